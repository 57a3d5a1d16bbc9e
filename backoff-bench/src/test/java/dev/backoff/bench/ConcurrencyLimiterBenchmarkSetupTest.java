package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;

/**
 * Every setup of the concurrency limiter benchmark has room for its one thread, again and again (a refusal
 * throws), and every retry path makes the task's three attempts and returns its result.
 */
class ConcurrencyLimiterBenchmarkSetupTest {
  private static List<String> values(Class<?> state, String field) throws Exception {
    return Arrays.asList(state.getField(field).getAnnotation(Param.class).value());
  }

  @Test
  void everyLimiterAcquiresAndReleasesWithoutARefusal() throws Exception {
    List<String> limiters = values(ConcurrencyLimiterBenchmark.Slots.class, "limiter");
    assertThat(limiters).hasSize(9).contains("backoff-fixed-100", "backoff-gradient", "resilience4j-bulkhead", "failsafe-bulkhead",
        "netflix-aimd", "netflix-gradient2", "netflix-vegas");
    ConcurrencyLimiterBenchmark benchmark = new ConcurrencyLimiterBenchmark();
    for (String limiter : limiters) {
      ConcurrencyLimiterBenchmark.Slots slots = new ConcurrencyLimiterBenchmark.Slots();
      slots.limiter = limiter;
      slots.setUp();
      for (int i = 0; i < 10_000; i++) {
        benchmark.acquireRelease(slots); // a slot never given back would fill the 20 and throw
      }
    }
  }

  @Test
  void everyRetryPathMakesThreeAttemptsEachTakingASlot() throws Exception {
    List<String> libraries = values(ConcurrencyLimiterBenchmark.Calls.class, "library");
    assertThat(libraries).hasSize(6).contains("backoff+gradient", "resilience4j-retry+bulkhead",
        "failsafe-retry+bulkhead");
    ConcurrencyLimiterBenchmark benchmark = new ConcurrencyLimiterBenchmark();
    for (String library : libraries) {
      ConcurrencyLimiterBenchmark.Calls calls = new ConcurrencyLimiterBenchmark.Calls();
      calls.library = library;
      calls.setUp();
      for (int i = 0; i < 1_000; i++) {
        assertThat(benchmark.retryPath(calls)).as(library).isEqualTo(FailingTwice.RESULT);
        assertThat(calls.task.attempts()).as(library).isEqualTo(3);
      }
    }
  }
}
