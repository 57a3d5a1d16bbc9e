// Run by the build (maven-invoker-plugin) after the example: it must have printed its result.
def log = new File(basedir, 'build.log').text
def expected = "modulepath example: 200 'hello' after 2 requests, module example.modulepath reads dev.backoff.http"
assert log.contains(expected) : "the example did not print \"${expected}\"; see ${basedir}/build.log"
