package dev.backoff.conformance;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Every row of the {@link ConformanceTable} through every HTTP adapter ({@link HttpRunners}), against a loopback
 * server in real time: slow (the rows' waits are waited for real, about a minute in all). The rows whose outcome
 * does not depend on how soon a request is answered run side by side (see junit-platform.properties): each makes
 * its own server on an ephemeral port and its own client, and asserts only lower bounds on the waits (waits
 * honoured), so a row waiting beside others cannot fail it. The rows that race the clock run alone, in
 * {@link HttpConformanceTimedRowsTest}.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
class HttpConformanceTest {
  @TestFactory
  Stream<DynamicContainer> everyHttpAdapterRunsEveryRowTheSameWay() {
    return ConformanceTest.matrix(HttpRunners.all(), row -> !racesTheClock(row));
  }

  /**
   * Whether a row's outcome depends on how soon each request is answered in real time: a deadline, an attempt
   * timeout, a hedging delay or the caller's stop at a set time decides between two outcomes, so a machine
   * short of CPU (or other rows beside it) could make the row take another path. A rate limiter on the real
   * clock too: the limiter that must refuse a first attempt (its token more than 1 ms away) admits it if the
   * call starts after its next token is due, which a loaded machine made happen.
   */
  static boolean racesTheClock(Scenario row) {
    return row.hedges() || row.cancelAfter() != null || row.policy().maxElapsed() != null
        || row.policy().attemptTimeout() != null || row.limiter() != null;
  }
}
