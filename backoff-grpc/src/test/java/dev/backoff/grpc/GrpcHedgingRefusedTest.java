package dev.backoff.grpc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GrpcHedgingRefusedTest {
  @Test
  void aHedgingPolicyIsRefusedInFavourOfGrpcsOwnHedging() {
    RetryPolicy<Object> policy = RetryPolicy.builder().name("hedged")
        .hedging(Hedging.after(Duration.ofMillis(10))).build();
    assertThatThrownBy(() -> GrpcRetryInterceptor.of(policy))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'hedged' hedges")
        .hasMessageContaining("hedgingPolicy");
  }
}
