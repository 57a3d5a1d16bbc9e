// Run by the build (maven-invoker-plugin) after the example: it must have printed its result, and Maven must
// have taken the Backoff versions from the imported backoff-bom (the pom names none, so without it no build).
def log = new File(basedir, 'build.log').text
def expected = "bom example: 200 'hello' after 2 requests (retried: attempt 1 got 503, waiting 10 ms)"
assert log.contains(expected) : "the example did not print \"${expected}\"; see ${basedir}/build.log"
assert !log.contains('will linger') : "the example left a thread running after main returned; see ${basedir}/build.log"
