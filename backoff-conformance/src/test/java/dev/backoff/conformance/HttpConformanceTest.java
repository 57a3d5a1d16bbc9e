package dev.backoff.conformance;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * Every row of the {@link ConformanceTable} through every HTTP adapter ({@link HttpRunners}), against a loopback
 * server in real time: slow (the rows' waits are waited for real, about a minute in all).
 */
@Tag("slow")
class HttpConformanceTest {
  @TestFactory
  Stream<DynamicContainer> everyHttpAdapterRunsEveryRowTheSameWay() {
    return ConformanceTest.matrix(HttpRunners.all());
  }
}
