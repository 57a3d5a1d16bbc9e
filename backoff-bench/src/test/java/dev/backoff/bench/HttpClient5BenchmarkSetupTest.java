package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every combination the HttpClient 5 benchmark compares gets the same answer; no timing is measured here. */
class HttpClient5BenchmarkSetupTest {
  @Test
  void everyRetryVariantOverEveryTransportGetsTheAnswer() throws Exception {
    List<String> retries = BenchmarkSetupTest.paramValues(HttpClient5Benchmark.class, "retry");
    List<String> transports = BenchmarkSetupTest.paramValues(HttpClient5Benchmark.class, "transport");
    assertThat(retries).containsExactly(HttpClient5Benchmark.CLIENT_ALONE, HttpClient5Benchmark.HC5_RETRY,
        HttpClient5Benchmark.BACKOFF);
    assertThat(transports).containsExactly(HttpClient5Benchmark.IN_PROCESS, HttpClient5Benchmark.LOOPBACK);
    for (String retry : retries) {
      for (String transport : transports) {
        HttpClient5Benchmark benchmark = new HttpClient5Benchmark();
        benchmark.retry = retry;
        benchmark.transport = transport;
        benchmark.setUp();
        try {
          assertThat(benchmark.get()).as(retry + " over " + transport).isEqualTo("200 ok");
          assertThat(benchmark.get()).as(retry + " over " + transport).isEqualTo("200 ok");
        } finally {
          benchmark.tearDown();
        }
      }
    }
  }
}
