package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;

/**
 * Every setup of the rate limiter and circuit breaker benchmarks returns the task's result, again and again,
 * without a wait or a refusal (the benchmarks measure the success path, never a limited one).
 */
class LimiterAndBreakerSetupTest {
  private static List<String> libraries(Class<?> benchmark) throws Exception {
    return Arrays.asList(benchmark.getField("library").getAnnotation(Param.class).value());
  }

  @Test
  void everyLimiterSetupReturnsTheResultWithoutWaiting() throws Exception {
    List<String> libraries = libraries(LimiterBenchmark.class);
    assertThat(libraries).hasSize(7).contains("backoff+limiter", "backoff+limiter-enabled", "resilience4j-ratelimiter");
    for (String library : libraries) {
      LimiterBenchmark benchmark = new LimiterBenchmark();
      benchmark.library = library;
      benchmark.value = "result of " + library;
      benchmark.setUp();
      for (int i = 0; i < 10_000; i++) {
        assertThat(benchmark.call()).as(library).isEqualTo("result of " + library);
      }
      if (library.startsWith("backoff+limiter")) {
        assertThat(benchmark.limiter.enabled()).as(library).isEqualTo(library.endsWith("enabled"));
        assertThat(benchmark.limiter.waits() + benchmark.limiter.refusals()).as(library + ": waits").isZero();
      }
    }
  }

  @Test
  void everyBreakerSetupReturnsTheResult() throws Exception {
    List<String> libraries = libraries(BreakerBenchmark.class);
    assertThat(libraries).hasSize(5).contains("backoff+breaker", "resilience4j-breaker");
    for (String library : libraries) {
      BreakerBenchmark benchmark = new BreakerBenchmark();
      benchmark.library = library;
      benchmark.value = "result of " + library;
      benchmark.setUp();
      for (int i = 0; i < 1_000; i++) {
        assertThat(benchmark.call()).as(library).isEqualTo("result of " + library);
      }
    }
  }
}
