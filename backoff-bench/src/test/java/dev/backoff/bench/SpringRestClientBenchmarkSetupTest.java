package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every combination the RestClient benchmark compares gets the same answer; no timing is measured here. */
class SpringRestClientBenchmarkSetupTest {
  @Test
  void everyClientOverEveryTransportGetsTheAnswer() throws Exception {
    List<String> clients = BenchmarkSetupTest.paramValues(SpringRestClientBenchmark.class, "client");
    List<String> transports = BenchmarkSetupTest.paramValues(SpringRestClientBenchmark.class, "transport");
    assertThat(clients).containsExactly(SpringRestClientBenchmark.BARE, SpringRestClientBenchmark.PASS_THROUGH,
        SpringRestClientBenchmark.BACKOFF);
    assertThat(transports).containsExactly(SpringRestClientBenchmark.IN_PROCESS, SpringRestClientBenchmark.LOOPBACK);
    for (String client : clients) {
      for (String transport : transports) {
        SpringRestClientBenchmark benchmark = new SpringRestClientBenchmark();
        benchmark.client = client;
        benchmark.transport = transport;
        benchmark.setUp();
        try {
          // 200 and the two bytes of "ok", twice: the second over the kept-alive connection.
          assertThat(benchmark.get()).as(client + " over " + transport).isEqualTo(200_002);
          assertThat(benchmark.get()).as(client + " over " + transport).isEqualTo(200_002);
        } finally {
          benchmark.tearDown();
        }
      }
    }
  }
}
