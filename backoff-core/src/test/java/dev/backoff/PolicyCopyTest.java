package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code RetryPolicy.withMaxElapsedNanos} copies every field by hand (to share the settings instead of
 * rebuilding them): a field added to the policy and forgotten in that copy would be silently lost for the
 * drivers that shorten a call's deadline. This walks the fields, so the copy cannot fall behind.
 */
class PolicyCopyTest {
  /** What the copy sets on purpose: the new deadline, and the flags derived from it. */
  private static final Set<String> CHANGED = Set.of("maxElapsedNanos", "needsStartTime", "gatesRetries");

  @Test
  void aShortenedPolicyKeepsEveryOtherField() throws Exception {
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .name("orders")
        .maxAttempts(7)
        .attemptTimeout(Duration.ofSeconds(3))
        .interruptOnAttemptTimeout(true)
        .budget(RetryBudgets.tokenBucket().build())
        .circuitBreaker(CircuitBreaker.builder().build())
        .rateLimiter(AdaptiveRateLimiter.builder().build())
        .hedging(Hedging.after(Duration.ofMillis(50)).maxHedges(2))
        .retryOnResult(result -> result.isEmpty())
        .listener(new RetryListener<>() {
          @Override
          public void onAttemptStarted(RetryEvent<String> event) {}
        })
        .build();
    RetryPolicy<String> shortened = policy.withMaxElapsedNanos(1_000_000_000L);
    assertThat(shortened).isNotSameAs(policy);
    assertThat(shortened.maxElapsedNanos).isEqualTo(1_000_000_000L);
    assertThat(shortened.needsStartTime).isTrue();
    int compared = 0;
    for (Field field : RetryPolicy.class.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers()) || CHANGED.contains(field.getName())) {
        continue;
      }
      field.setAccessible(true);
      if (field.getType().isPrimitive()) {
        assertThat(field.get(shortened)).as(field.getName()).isEqualTo(field.get(policy));
      } else {
        assertThat(field.get(shortened)).as(field.getName()).isSameAs(field.get(policy));
      }
      compared++;
    }
    assertThat(compared).isGreaterThan(20);
  }

  @Test
  void aShortenedPolicyWithoutOtherGatesChecksItsNewDeadline() {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().backoff(Backoff.fixed(Duration.ofMillis(100))).build();
    assertThat(policy.needsStartTime).isFalse();
    assertThat(policy.gatesRetries).as("no deadline, breaker or budget").isFalse();

    RetryPolicy<String> shortened = policy.withMaxElapsedNanos(1_000_000_000L);
    assertThat(shortened.needsStartTime).isTrue();
    assertThat(shortened.gatesRetries).as("the new deadline may refuse a retry").isTrue();
    Execution<String> execution = shortened.newExecution(0);
    // One nanosecond before the deadline, a 100 ms wait would end after it.
    assertThat(execution.recordNanos(null, new IllegalStateException("busy"), dev.backoff.driver.Verdict.RETRYABLE,
        999_999_999L, null)).isEqualTo(Execution.STOPPED);
    assertThat(execution.stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
  }
}
