package dev.backoff.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.Decision;
import dev.backoff.Pushback;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryPreviewTest {
  static final long SECOND = 1_000_000_000L;
  /** Three attempts, a 100 ms fixed backoff, at most 60 s of pushback, a 10 s deadline. */
  static final RetryPolicy<String> POLICY = RetryPolicy.<String>builder()
      .maxAttempts(3)
      .backoff(Backoff.fixed(Duration.ofMillis(100)))
      .maxPushback(Duration.ofSeconds(60))
      .maxElapsed(Duration.ofSeconds(10))
      .build();

  /**
   * What the engine decides on a retryable result judged {@code verdict} as attempt {@code attempt}, at
   * {@code elapsed} nanoseconds into the call: the outcome a preview must agree with.
   */
  static Decision engine(Verdict verdict, int attempt, long elapsed) {
    CallState<String> execution = Engine.newExecution(POLICY, 0, new SplittableRandom(1));
    for (int earlier = 1; earlier < attempt; earlier++) {
      assertThat(Engine.record(execution, "busy", null, Verdict.retryable(Pushback.NONE), 0).isRetry()).isTrue();
    }
    return Engine.record(execution, "busy", null, verdict, elapsed);
  }

  static RetryPreview preview(Verdict verdict, int attempt, long elapsed) {
    return RetryPreview.of(POLICY, verdict, attempt, 10 * SECOND - elapsed);
  }

  /** The preview and the engine agree: a stop for the same reason, or a retry no sooner than the preview's. */
  static void agree(Verdict verdict, int attempt, long elapsed, StopReason expectedStop) {
    RetryPreview preview = preview(verdict, attempt, elapsed);
    Decision decision = engine(verdict, attempt, elapsed);
    assertThat(preview.stopReason()).as("preview of %s at attempt %d", verdict, attempt).isEqualTo(expectedStop);
    if (expectedStop != null) {
      assertThat(preview.mayRetry()).isFalse();
      assertThat(decision.isRetry()).as("the engine stops too").isFalse();
      assertThat(decision.stopReason()).isEqualTo(expectedStop);
    } else {
      assertThat(preview.mayRetry()).isTrue();
      assertThat(decision.isRetry()).as("the engine retries").isTrue();
      assertThat(decision.delayNanos()).isGreaterThanOrEqualTo(preview.earliestWaitNanos());
    }
  }

  @Test
  void aRetryMayFollowAfterTheServersHintAtLeast() {
    agree(Verdict.retryable(Pushback.NONE), 1, 0, null);
    assertThat(preview(Verdict.retryable(Pushback.NONE), 1, 0).earliestWaitNanos()).isZero();
    agree(Verdict.retryable(5 * SECOND), 2, 0, null);
    assertThat(preview(Verdict.retryable(5 * SECOND), 2, 0).earliestWaitNanos()).isEqualTo(5 * SECOND);
  }

  @Test
  void theEnginesStopRulesInItsOrder() {
    agree(Verdict.stop(StopReason.NOT_RETRYABLE), 1, 0, StopReason.NOT_RETRYABLE);
    agree(Verdict.retryable(Pushback.STOP), 3, 0, StopReason.PUSHBACK); // before the attempts, as the engine
    agree(Verdict.retryable(Pushback.NONE), 3, 0, StopReason.ATTEMPTS_EXHAUSTED);
    agree(Verdict.retryable(60 * SECOND + 1), 3, 0, StopReason.ATTEMPTS_EXHAUSTED);
    agree(Verdict.retryable(60 * SECOND + 1), 1, 0, StopReason.PUSHBACK_TOO_LONG);
    agree(Verdict.retryable(60 * SECOND), 1, 0, StopReason.DEADLINE_EXCEEDED);
  }

  @Test
  void theDeadlineBoundIsTheServersHintAgainstTheTimeLeft() {
    agree(Verdict.retryable(4 * SECOND), 1, 6 * SECOND, null); // ends exactly at the deadline
    agree(Verdict.retryable(4 * SECOND + 1), 1, 6 * SECOND, StopReason.DEADLINE_EXCEEDED);
    // Without a hint the preview cannot rule a retry out (the backoff is the engine's to draw).
    assertThat(preview(Verdict.retryable(Pushback.NONE), 1, 10 * SECOND).mayRetry()).isTrue();
    assertThat(RetryPreview.of(POLICY, Verdict.retryable(Long.MAX_VALUE - 1), 1, AttemptContext.NO_DEADLINE)
        .stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    RetryPolicy<String> anyWait = POLICY.toBuilder().maxPushback(Duration.ofNanos(Long.MAX_VALUE)).build();
    assertThat(RetryPreview.of(anyWait, Verdict.retryable(Long.MAX_VALUE - 1), 1, AttemptContext.NO_DEADLINE)
        .earliestWaitNanos()).isEqualTo(Long.MAX_VALUE - 1);
  }

  @Test
  void anAcceptedOutcomeAndThePolicysOwnRulesStopNothing() {
    RetryPreview accepted = RetryPreview.of(POLICY, Verdict.ACCEPT, 3, 0);
    assertThat(accepted.mayRetry()).isFalse();
    assertThat(accepted.stopReason()).isNull();
    assertThat(accepted).hasToString("accepted");
    RetryPreview policyRules = RetryPreview.of(POLICY, Verdict.RETRYABLE, 1, AttemptContext.NO_DEADLINE);
    assertThat(policyRules.mayRetry()).isTrue();
    assertThat(policyRules.earliestWaitNanos()).isZero();
  }

  @Test
  void aStopAllocatesNothingAndBadArgumentsAreNamed() {
    assertThat(RetryPreview.of(POLICY, Verdict.retryable(Pushback.NONE), 3, 0))
        .isSameAs(RetryPreview.of(POLICY, Verdict.retryable(Pushback.NONE), 4, 0));
    assertThatThrownBy(() -> RetryPreview.of(null, Verdict.ACCEPT, 1, 0))
        .isInstanceOf(NullPointerException.class).hasMessage("policy must not be null");
    assertThatThrownBy(() -> RetryPreview.of(POLICY, null, 1, 0))
        .isInstanceOf(NullPointerException.class).hasMessage("verdict must not be null");
    assertThatThrownBy(() -> RetryPreview.of(POLICY, Verdict.ACCEPT, 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("attempt must be at least 1, was 0");
    assertThat(RetryPreview.of(POLICY, Verdict.retryable(2 * SECOND), 1, AttemptContext.NO_DEADLINE))
        .hasToString("may retry after at least 2000000000 ns");
  }
}
