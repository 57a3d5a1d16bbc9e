// Run by the build (maven-invoker-plugin) after the example's tests: all of them must have run (a test that was
// not found or was skipped would pass the build too); their reports are in target/surefire-reports.
def log = new File(basedir, 'build.log').text
def expected = 'Tests run: 3, Failures: 0, Errors: 0, Skipped: 0'
assert log.contains(expected) : "the example's tests did not report \"${expected}\"; see ${basedir}/build.log"
