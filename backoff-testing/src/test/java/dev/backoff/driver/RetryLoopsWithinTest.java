package dev.backoff.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryLoops#within(AsyncRetryExecutor, long)} and {@link RetryLoops#within(RetryExecutor, long)}: a
 * call's own deadline shortens the policy's, for that call only.
 */
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
    assertThatThrownBy(() -> RetryLoops.within((AsyncRetryExecutor<Object>) null, 1)).hasMessage("executor must not be null");
  }

  // The synchronous twin.

  @Test
  void theShortenedSyncExecutorKeepsEveryOtherSetting() throws Exception {
    RecordingSleeper sleeper = new RecordingSleeper(clock);
    RetryExecutor<Object> executor = RetryExecutor.of(RetryPolicy.builder().name("orders").maxAttempts(7)
        .backoff(Backoff.fixed(Duration.ofMillis(400))).budget(RetryBudgets.grpcThrottling()).clock(clock).build())
        .withSleeper(sleeper);

    RetryExecutor<Object> within = RetryLoops.within(executor, 2 * SECOND);

    RetryPolicy<Object> shortened = within.policy();
    assertThat(shortened.maxElapsed()).isEqualTo(Duration.ofSeconds(2));
    assertThat(shortened.name()).isEqualTo("orders");
    assertThat(shortened.maxAttempts()).isEqualTo(7);
    assertThat(shortened.backoff()).isSameAs(executor.policy().backoff());
    assertThat(shortened.budget()).isSameAs(executor.policy().budget());
    assertThat(shortened.clock()).isSameAs(clock);
    assertThat(executor.policy().maxElapsed()).isNull(); // the original is untouched
    // The executor's own sleeper (not the policy's) still does the waiting.
    AtomicInteger attempts = new AtomicInteger();
    Object result = within.call(() -> {
      if (attempts.incrementAndGet() < 3) {
        throw new IOException("down");
      }
      return "ok";
    });
    assertThat(result).isEqualTo("ok");
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(400), Duration.ofMillis(400));
  }

  @Test
  void aSyncExecutorWhoseDeadlineIsNoLongerIsKept() {
    RetryExecutor<Object> executor = RetryExecutor.of(RetryPolicy.builder().maxElapsed(Duration.ofSeconds(1)).build());
    assertThat(RetryLoops.within(executor, 5 * SECOND)).isSameAs(executor);
    assertThat(RetryLoops.within(executor, SECOND)).isSameAs(executor);
    assertThat(RetryLoops.within(executor, SECOND - 1).policy().maxElapsed()).isEqualTo(Duration.ofNanos(SECOND - 1));
  }

  @Test
  void noSleepIsStartedThatWouldEndPastTheCallsDeadline() {
    RecordingSleeper sleeper = new RecordingSleeper(clock);
    RetryExecutor<Object> executor = RetryLoops.within(RetryExecutor.of(RetryPolicy.builder().maxAttempts(10)
        .backoff(Backoff.fixed(Duration.ofMillis(400))).clock(clock).sleeper(sleeper).build()), SECOND);
    AtomicInteger attempts = new AtomicInteger();

    Throwable failure = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
        () -> RetryLoops.sync(executor, context -> {
          attempts.incrementAndGet();
          throw new IOException("down");
        }, OutcomeJudge.policyRules()));

    // Attempts at 0, 0.4 s and 0.8 s; the next sleep would end at 1.2 s.
    assertThat(attempts).hasValue(3);
    assertThat(sleeper.sleeps()).isEqualTo(List.of(Duration.ofMillis(400), Duration.ofMillis(400)));
    assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
  }

  @Test
  void badArgumentsAreRefusedByNameForTheSyncExecutor() {
    RetryExecutor<Object> executor = RetryExecutor.of(RetryPolicy.builder().build());
    assertThatThrownBy(() -> RetryLoops.within(executor, 0)).hasMessage("nanosLeft must be positive, was 0");
    assertThatThrownBy(() -> RetryLoops.within(executor, -5)).hasMessage("nanosLeft must be positive, was -5");
    assertThatThrownBy(() -> RetryLoops.within((RetryExecutor<Object>) null, 1))
        .hasMessage("executor must not be null");
  }
}
