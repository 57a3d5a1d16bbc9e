package dev.backoff.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link RetryLoops#within}: a call's own deadline shortens the policy's, for that call only. */
class RetryLoopsWithinTest {
  private static final long SECOND = 1_000_000_000L;
  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - SECOND); // wraps during the test
  private final FakeScheduler scheduler = new FakeScheduler(clock);

  private AsyncRetryExecutor<Object> executor(RetryPolicy.Builder<Object> policy) {
    return AsyncRetryExecutor.of(policy.clock(clock).build(), scheduler);
  }

  @Test
  void theShortenedPolicyKeepsEveryOtherSetting() {
    AsyncRetryExecutor<Object> executor = executor(RetryPolicy.builder().name("orders").maxAttempts(7)
        .backoff(Backoff.fixed(Duration.ofMillis(400))).budget(RetryBudgets.grpcThrottling()));

    AsyncRetryExecutor<Object> within = RetryLoops.within(executor, 2 * SECOND);

    RetryPolicy<Object> shortened = within.policy();
    assertThat(shortened.maxElapsed()).isEqualTo(Duration.ofSeconds(2));
    assertThat(shortened.name()).isEqualTo("orders");
    assertThat(shortened.maxAttempts()).isEqualTo(7);
    assertThat(shortened.backoff()).isSameAs(executor.policy().backoff());
    assertThat(shortened.budget()).isSameAs(executor.policy().budget());
    assertThat(shortened.clock()).isSameAs(clock);
    assertThat(within.scheduler()).isSameAs(executor.scheduler());
    assertThat(executor.policy().maxElapsed()).isNull(); // the original is untouched
  }

  @Test
  void aPolicyWhoseDeadlineIsNoLongerIsKept() {
    AsyncRetryExecutor<Object> executor = executor(RetryPolicy.builder().maxElapsed(Duration.ofSeconds(1)));
    assertThat(RetryLoops.within(executor, 5 * SECOND)).isSameAs(executor);
    assertThat(RetryLoops.within(executor, SECOND)).isSameAs(executor);
    assertThat(RetryLoops.within(executor, SECOND - 1).policy().maxElapsed()).isEqualTo(Duration.ofNanos(SECOND - 1));
  }

  @Test
  void noWaitIsStartedThatWouldEndPastTheCallsDeadline() {
    AsyncRetryExecutor<Object> executor = RetryLoops.within(
        executor(RetryPolicy.builder().maxAttempts(10).backoff(Backoff.fixed(Duration.ofMillis(400)))), SECOND);
    AtomicInteger attempts = new AtomicInteger();

    CompletableFuture<Object> call = RetryLoops.async(executor, context -> {
      attempts.incrementAndGet();
      return CompletableFuture.failedFuture(new IOException("down"));
    }, OutcomeJudge.policyRules());
    scheduler.advance(Duration.ofSeconds(5));

    // Attempts at 0, 0.4 s and 0.8 s; the next wait would end at 1.2 s.
    assertThat(attempts).hasValue(3);
    assertThat(call).isCompletedExceptionally();
    Throwable failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, call::get).getCause();
    assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
  }

  @Test
  void badArgumentsAreRefusedByName() {
    AsyncRetryExecutor<Object> executor = executor(RetryPolicy.builder());
    assertThatThrownBy(() -> RetryLoops.within(executor, 0)).hasMessage("nanosLeft must be positive, was 0");
    assertThatThrownBy(() -> RetryLoops.within(null, 1)).hasMessage("executor must not be null");
  }
}
