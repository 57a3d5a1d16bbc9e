package dev.backoff.conformance;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The rows of the {@link ConformanceTable} that race the clock ({@link HttpConformanceTest#racesTheClock}: a
 * deadline, an attempt timeout, hedging, the caller's stop), through every HTTP adapter in real time, one row at a
 * time and with no other test class running beside them.
 */
@Tag("slow")
@Isolated("its rows' outcomes depend on how soon a loopback request is answered")
class HttpConformanceTimedRowsTest {
  @TestFactory
  Stream<DynamicContainer> everyHttpAdapterRunsEveryRowThatRacesTheClockTheSameWay() {
    return ConformanceTest.matrix(HttpRunners.all(), HttpConformanceTest::racesTheClock);
  }
}
