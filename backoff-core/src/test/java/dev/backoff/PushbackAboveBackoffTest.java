package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code pushbackAboveBackoff}: a hint lifts the wait above the backoff by at most the limit (AWS's 2026 rule). */
class PushbackAboveBackoffTest {
  private static RetryPolicy.Builder<String> policy(long hintNanos) {
    return RetryPolicy.<String>builder().backoff(Backoff.fixed(Duration.ofSeconds(1)))
        .maxPushback(Duration.ofHours(1)).pushback((result, failure) -> hintNanos);
  }

  private static long delay(RetryPolicy<String> policy) {
    return policy.newExecution(0).onFailure(new IOException("busy"), 0).delayNanos();
  }

  @Test
  void aHintIsHonouredUpToTheBackoffPlusTheLimit() {
    assertThat(delay(policy(Duration.ofSeconds(60).toNanos()).pushbackAboveBackoff(Duration.ofSeconds(5)).build()))
        .isEqualTo(Duration.ofSeconds(6).toNanos());
    assertThat(delay(policy(Duration.ofSeconds(3).toNanos()).pushbackAboveBackoff(Duration.ofSeconds(5)).build()))
        .isEqualTo(Duration.ofSeconds(3).toNanos());
    assertThat(delay(policy(Duration.ofMillis(500).toNanos()).pushbackAboveBackoff(Duration.ofSeconds(5)).build()))
        .isEqualTo(Duration.ofSeconds(1).toNanos()); // the backoff stays the floor
    assertThat(delay(policy(Duration.ofSeconds(60).toNanos()).pushbackAboveBackoff(Duration.ZERO).build()))
        .isEqualTo(Duration.ofSeconds(1).toNanos());
  }

  @Test
  void withoutALimitTheHintIsHonouredWhole() {
    RetryPolicy<String> policy = policy(Duration.ofSeconds(60).toNanos()).build();
    assertThat(policy.pushbackAboveBackoff()).isNull();
    assertThat(delay(policy)).isEqualTo(Duration.ofSeconds(60).toNanos());
  }

  @Test
  void theLimitIsCopiedAndValidated() {
    RetryPolicy<String> policy = policy(Long.MAX_VALUE - 1).maxPushback(Duration.ofNanos(Long.MAX_VALUE))
        .pushbackAboveBackoff(Duration.ofSeconds(7)).build();
    assertThat(delay(policy)).isEqualTo(Duration.ofSeconds(8).toNanos());
    assertThat(policy.toBuilder().build().pushbackAboveBackoff()).isEqualTo(Duration.ofSeconds(7));
    assertThat(policy.withMaxElapsedNanos(Duration.ofMinutes(1).toNanos()).pushbackAboveBackoff())
        .isEqualTo(Duration.ofSeconds(7));
    assertThatThrownBy(() -> RetryPolicy.builder().pushbackAboveBackoff(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pushbackAboveBackoff");
  }
}
