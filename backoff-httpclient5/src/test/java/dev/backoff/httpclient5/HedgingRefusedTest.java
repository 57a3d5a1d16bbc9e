package dev.backoff.httpclient5;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import org.apache.hc.core5.http.HttpResponse;
import org.junit.jupiter.api.Test;

class HedgingRefusedTest {
  @Test
  void aHedgingPolicyIsRefusedAtBuild() {
    RetryPolicy<HttpResponse> policy = RetryPolicy.<HttpResponse>builder().name("hedged")
        .hedging(Hedging.after(Duration.ofMillis(10))).build();
    assertThatThrownBy(() -> HttpClient5Retry.of(policy))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'hedged' hedges");
  }
}
