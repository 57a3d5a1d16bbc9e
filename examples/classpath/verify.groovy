// Run by the build (maven-invoker-plugin) after the example: it must have printed its result.
def log = new File(basedir, 'build.log').text
def expected = "classpath example: 'hello' after 3 attempts"
assert log.contains(expected) : "the example did not print \"${expected}\"; see ${basedir}/build.log"
assert !log.contains('will linger') : "the example left a thread running after main returned; see ${basedir}/build.log"
