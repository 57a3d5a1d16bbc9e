package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every channel {@link GrpcUnaryBenchmark} compares answers its call, with and without a deadline. */
class GrpcUnaryBenchmarkSetupTest {
  @Test
  void everyChannelAnswersTheCall() throws Exception {
    List<String> channels = BenchmarkSetupTest.paramValues(GrpcUnaryBenchmark.class, "channel");
    assertThat(channels).contains("bare", "backoff", "grpc-retry", "backoff-hedging", "grpc-hedging");
    for (String channel : channels) {
      for (boolean deadline : new boolean[] {false, true}) {
        GrpcUnaryBenchmark benchmark = new GrpcUnaryBenchmark();
        benchmark.channel = channel;
        benchmark.deadline = deadline;
        benchmark.request = "ping " + channel;
        benchmark.setUp();
        try {
          assertThat(benchmark.call()).as(channel).isEqualTo("ping " + channel);
          assertThat(benchmark.call()).as(channel).isEqualTo("ping " + channel);
        } finally {
          benchmark.tearDown();
        }
      }
    }
  }
}
