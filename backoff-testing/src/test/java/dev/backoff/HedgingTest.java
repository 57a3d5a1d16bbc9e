package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class HedgingTest {
  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 1_000_000_000L); // wraps during the tests
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RecordingListener<String> listener = new RecordingListener<>();
  private final long origin = clock.nanoTime();

  /** Attempts the test completes by hand: each call of the supplier is a new, pending future. */
  final class Attempts implements Supplier<CompletionStage<String>> {
    final List<CompletableFuture<String>> futures = new ArrayList<>();
    final List<Long> startedAtMillis = new ArrayList<>();

    @Override
    public synchronized CompletionStage<String> get() {
      CompletableFuture<String> future = new CompletableFuture<>();
      futures.add(future);
      startedAtMillis.add((clock.nanoTime() - origin) / 1_000_000);
      return future;
    }

    synchronized int count() {
      return futures.size();
    }

    CompletableFuture<String> attempt(int number) {
      synchronized (this) {
        return futures.get(number - 1);
      }
    }
  }

  private RetryPolicy.Builder<String> policy(long delayMillis) {
    return RetryPolicy.<String>builder()
        .name("hedged")
        .maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofSeconds(7))) // never used by a hedged call
        .hedging(Hedging.after(Duration.ofMillis(delayMillis)))
        .clock(clock)
        .listener(listener);
  }

  private void advanceMillis(long millis) {
    scheduler.advance(Duration.ofMillis(millis));
  }

  @Test
  void hedgesAfterEachDelayUpToMaxAttemptsAndTheFirstResultWins() throws Exception {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(100).build(), scheduler).call(attempts);

    assertThat(attempts.count()).isEqualTo(1);
    advanceMillis(99);
    assertThat(attempts.count()).isEqualTo(1);
    advanceMillis(1);
    assertThat(attempts.count()).isEqualTo(2);
    advanceMillis(100);
    assertThat(attempts.count()).isEqualTo(3);
    assertThat(scheduler.pending()).isZero(); // maxAttempts reached: no further hedge planned
    advanceMillis(1000);
    assertThat(attempts.count()).isEqualTo(3);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 100L, 200L);

    attempts.attempt(2).complete("second");
    assertThat(call.get()).isEqualTo("second");
    assertThat(attempts.attempt(1)).isCancelled();
    assertThat(attempts.attempt(3)).isCancelled();
    assertThat(listener.summary()).containsExactly("hedge 2", "hedge 3", "hedge won 2", "success 3 second");
  }

  @Test
  void aFirstAttemptAnsweringWithinTheDelaySendsNoHedge() throws Exception {
    Attempts attempts = new Attempts();
    ScriptedBudget budget = ScriptedBudget.granting();
    CompletableFuture<String> call =
        AsyncRetryExecutor.of(policy(100).budget(budget).build(), scheduler).call(attempts);
    advanceMillis(60);
    attempts.attempt(1).complete("fast");

    assertThat(call.get()).isEqualTo("fast");
    assertThat(scheduler.pending()).isZero(); // the hedge timer was cancelled
    advanceMillis(500);
    assertThat(attempts.count()).isEqualTo(1);
    assertThat(listener.summary()).containsExactly("success 1 fast");
    assertThat(budget.log()).containsExactly("call", "success 0 null");
  }

  @Test
  void theOriginalAttemptCanStillWinAfterHedgesWereSent() throws Exception {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(100).build(), scheduler).call(attempts);
    advanceMillis(150);
    attempts.attempt(1).complete("first");

    assertThat(call.get()).isEqualTo("first");
    assertThat(attempts.attempt(2)).isCancelled();
    assertThat(listener.summary()).containsExactly("hedge 2", "success 2 first"); // no "hedge won"
  }

  @Test
  void aRetryableFailureStartsTheNextHedgeAtOnceAndTheDelayRestartsFromIt() throws Exception {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call =
        AsyncRetryExecutor.of(policy(100).maxAttempts(4).build(), scheduler).call(attempts);
    advanceMillis(30);
    attempts.attempt(1).completeExceptionally(new IOException("reset"));
    scheduler.runDue();
    assertThat(attempts.startedAtMillis).containsExactly(0L, 30L);
    advanceMillis(100);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 30L, 130L);
    advanceMillis(100);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 30L, 130L, 230L);
    attempts.attempt(4).complete("fourth");
    assertThat(call.get()).isEqualTo("fourth");
    assertThat(listener.summary())
        .containsExactly("hedge 2 after reset", "hedge 3", "hedge 4", "hedge won 4", "success 4 fourth");
  }

  @Test
  void whenEveryAttemptFailsTheCallFailsWithTheLastFailureAndTheOthersSuppressed() {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(100).build(), scheduler).call(attempts);
    advanceMillis(200);
    IOException first = new IOException("first");
    IOException second = new IOException("second");
    IOException third = new IOException("third");
    attempts.attempt(2).completeExceptionally(second);
    attempts.attempt(1).completeExceptionally(first);
    assertThat(call).isNotDone(); // the third attempt is still in flight
    attempts.attempt(3).completeExceptionally(third);

    assertThatThrownBy(call::get).isInstanceOf(ExecutionException.class).cause().isSameAs(third);
    assertThat(third.getSuppressed()).contains(second, first);
    assertThat(RetryHistory.of(third).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(RetryHistory.of(third).attempts()).isEqualTo(3);
    assertThat(listener.stopReasons()).containsExactly(StopReason.ATTEMPTS_EXHAUSTED);
  }

  @Test
  void aFatalFailureEndsTheCallAtOnceAndCancelsTheOthers() {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(
        policy(100).abortOn(IllegalStateException.class).build(), scheduler).call(attempts);
    advanceMillis(100);
    IllegalStateException fatal = new IllegalStateException("bad request");
    attempts.attempt(2).completeExceptionally(fatal);

    assertThatThrownBy(call::get).cause().isSameAs(fatal);
    assertThat(attempts.attempt(1)).isCancelled();
    assertThat(scheduler.pending()).isZero();
    advanceMillis(1000);
    assertThat(attempts.count()).isEqualTo(2);
    assertThat(listener.stopReasons()).containsExactly(StopReason.ABORTED);
  }

  @Test
  void cancellingTheCallCancelsEveryAttemptAndStartsNoOther() {
    Attempts attempts = new Attempts();
    ScriptedBudget budget = ScriptedBudget.granting();
    CompletableFuture<String> call =
        AsyncRetryExecutor.of(policy(100).budget(budget).build(), scheduler).call(attempts);
    advanceMillis(100);
    assertThat(call.cancel(true)).isTrue();

    assertThat(attempts.attempt(1)).isCancelled();
    assertThat(attempts.attempt(2)).isCancelled();
    assertThat(scheduler.pending()).isZero();
    advanceMillis(1000);
    assertThat(attempts.count()).isEqualTo(2);
    assertThat(listener.stopReasons()).containsExactly(StopReason.CANCELLED);
    assertThat(budget.granted()).isEqualTo(1); // the one hedge sent
  }

  @Test
  void aHedgeTheBudgetRefusesIsNotSentAndNoLaterOneIs() {
    Attempts attempts = new Attempts();
    ScriptedBudget budget = ScriptedBudget.answering(true, false);
    CompletableFuture<String> call = AsyncRetryExecutor.of(
        policy(100).maxAttempts(5).budget(budget).build(), scheduler).call(attempts);
    advanceMillis(1000);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 100L);
    assertThat(budget.log()).containsExactly("call", "acquire transient", "acquire transient refused");
    attempts.attempt(1).completeExceptionally(new IOException("1"));
    assertThat(call).isNotDone();
    attempts.attempt(2).completeExceptionally(new IOException("2"));

    assertThat(call).isCompletedExceptionally();
    assertThat(attempts.count()).isEqualTo(2);
    assertThat(listener.stopReasons()).containsExactly(StopReason.BUDGET_EXHAUSTED);
  }

  @Test
  void pushbackDelaysTheNextHedgeThenTheHedgingDelayResumes() {
    Attempts attempts = new Attempts();
    RetryPolicy<String> policy = policy(100).maxAttempts(4)
        .pushback((result, failure) -> failure != null && failure.getMessage().startsWith("wait")
            ? Pushback.after(Duration.ofMillis(Long.parseLong(failure.getMessage().substring(5))))
            : Pushback.NONE)
        .build();
    AsyncRetryExecutor.of(policy, scheduler).call(attempts);
    advanceMillis(20);
    attempts.attempt(1).completeExceptionally(new IOException("wait 300"));
    advanceMillis(299);
    assertThat(attempts.count()).isEqualTo(1); // the failure did not start a hedge at once, nor at 100 ms
    advanceMillis(1);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 320L);
    advanceMillis(100);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 320L, 420L);
  }

  @Test
  void aServerSayingStopEndsHedgingButTheAttemptsInFlightGoOn() throws Exception {
    Attempts attempts = new Attempts();
    RetryPolicy<String> policy = policy(100).maxAttempts(5)
        .pushback((result, failure) -> failure != null && "stop".equals(failure.getMessage())
            ? Pushback.STOP : Pushback.NONE)
        .build();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy, scheduler).call(attempts);
    advanceMillis(100);
    attempts.attempt(2).completeExceptionally(new IOException("stop"));
    advanceMillis(1000);
    assertThat(attempts.count()).isEqualTo(2);
    assertThat(call).isNotDone();
    attempts.attempt(1).complete("late but fine");
    assertThat(call.get()).isEqualTo("late but fine");
  }

  @Test
  void aPushbackLongerThanTheMaximumStopsHedgingAndTheLastFailureEndsTheCall() {
    Attempts attempts = new Attempts();
    RetryPolicy<String> policy = policy(100)
        .maxPushback(Duration.ofSeconds(1))
        .pushback((result, failure) -> Pushback.after(Duration.ofSeconds(5)))
        .build();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy, scheduler).call(attempts);
    attempts.attempt(1).completeExceptionally(new IOException("overloaded"));

    assertThat(call).isCompletedExceptionally();
    assertThat(scheduler.pending()).isZero();
    assertThat(listener.stopReasons()).containsExactly(StopReason.PUSHBACK_TOO_LONG);
  }

  @Test
  void noHedgeStartsPastTheDeadline() {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(
        policy(100).maxAttempts(10).maxElapsed(Duration.ofMillis(250)).build(), scheduler).call(attempts);
    advanceMillis(1000);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 100L, 200L);
    for (int i = 1; i <= 3; i++) {
      attempts.attempt(i).completeExceptionally(new IOException(String.valueOf(i)));
    }
    assertThat(call).isCompletedExceptionally();
    assertThat(listener.stopReasons()).containsExactly(StopReason.DEADLINE_EXCEEDED);
  }

  @Test
  void eachAttemptHasTheAttemptTimeout() {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(
        policy(100).maxAttempts(2).attemptTimeout(Duration.ofMillis(150)).build(), scheduler).call(attempts);
    advanceMillis(150);
    assertThat(attempts.attempt(1)).isCancelled();
    assertThat(call).isNotDone();
    advanceMillis(100);
    assertThat(attempts.attempt(2)).isCancelled();
    assertThatThrownBy(call::get).cause().isInstanceOf(TimeoutException.class)
        .hasMessageContaining("attempt 2");
    assertThat(attempts.startedAtMillis).containsExactly(0L, 100L);
  }

  @Test
  void anOpenBreakerRefusesTheFirstAttemptAndAHedgeAsksItToo() {
    CircuitBreaker breaker = CircuitBreaker.builder().clock(clock).failureRateThreshold(50)
        .minimumCalls(2).countWindow(2).waitInOpen(Duration.ofSeconds(30)).build();
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(
        policy(100).maxAttempts(5).circuitBreaker(breaker).build(), scheduler).call(attempts);
    attempts.attempt(1).completeExceptionally(new IOException("1"));
    scheduler.runDue();
    attempts.attempt(2).completeExceptionally(new IOException("2")); // the breaker opens
    scheduler.runDue();

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThat(attempts.count()).isEqualTo(2); // the third was refused by the breaker
    assertThat(listener.stopReasons()).containsExactly(StopReason.CIRCUIT_OPEN);
    assertThat(call).isCompletedExceptionally();

    CompletableFuture<String> refused = AsyncRetryExecutor.of(
        policy(100).circuitBreaker(breaker).build(), scheduler).call(attempts);
    assertThatThrownBy(refused::get).cause().isInstanceOf(CircuitOpenException.class);
    assertThat(attempts.count()).isEqualTo(2);
  }

  @Test
  void aDriverJudgeAndDiscardHookAreUsedThroughRetryLoops() throws Exception {
    List<String> discarded = new ArrayList<>();
    List<CompletableFuture<String>> futures = new ArrayList<>();
    AsyncAttempt<String> attempt = new AsyncAttempt<>() {
      @Override
      public CompletionStage<String> start(AttemptContext context) {
        assertThat(context.attempt()).isEqualTo(futures.size() + 1);
        CompletableFuture<String> future = new CompletableFuture<>();
        futures.add(future);
        return future;
      }

      @Override
      public void discard(String result) {
        discarded.add(result);
      }
    };
    OutcomeJudge<String> judge = (policy, result, failure) ->
        "503".equals(result) ? Verdict.retryable(0) : failure != null ? Verdict.RETRYABLE : Verdict.ACCEPT;
    CompletableFuture<String> call = RetryLoops.async(
        AsyncRetryExecutor.of(policy(100).build(), scheduler), attempt, judge);
    futures.get(0).complete("503");
    scheduler.runDue();
    assertThat(futures).hasSize(2);
    futures.get(1).complete("200");
    assertThat(call.get()).isEqualTo("200");
    assertThat(discarded).containsExactly("503");
    futures.get(0).complete("late"); // already done: ignored
    assertThat(listener.summary()).containsExactly("hedge 2", "hedge won 2", "success 2 200");
  }

  @Test
  void aLoserThatAnswersAfterTheWinnerIsDiscarded() throws Exception {
    List<String> discarded = new ArrayList<>();
    List<CompletableFuture<String>> futures = new ArrayList<>();
    AsyncAttempt<String> attempt = new AsyncAttempt<>() {
      @Override
      public CompletionStage<String> start(AttemptContext context) {
        // A stage that cannot be cancelled: its result still arrives after the call is won.
        CompletableFuture<String> future = new CompletableFuture<>();
        futures.add(future);
        return future.minimalCompletionStage();
      }

      @Override
      public void discard(String result) {
        discarded.add(result);
      }
    };
    CompletableFuture<String> call = RetryLoops.async(
        AsyncRetryExecutor.of(policy(100).build(), scheduler), attempt, OutcomeJudge.policyRules());
    advanceMillis(100);
    futures.get(1).complete("winner");
    futures.get(0).complete("loser");
    assertThat(call.get()).isEqualTo("winner");
    assertThat(discarded).containsExactly("loser");
  }

  @Test
  void aSynchronousCallUnderAHedgingPolicyIsRejectedBeforeAnyAttempt() {
    RetryPolicy<String> policy = policy(100).build();
    RetryExecutor<String> executor = RetryExecutor.of(policy); // a driver may hold both executors
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> executor.call(() -> "x" + calls.incrementAndGet()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'hedged' hedges")
        .hasMessageContaining("AsyncRetryExecutor");
    assertThatThrownBy(() -> RetryLoops.sync(executor, context -> "x" + calls.incrementAndGet(),
        OutcomeJudge.policyRules()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(calls).hasValue(0);
  }

  @Test
  void maxHedgesMustFitInMaxAttempts() {
    assertThatThrownBy(() -> policy(100).maxAttempts(3).hedging(Hedging.after(Duration.ofMillis(5)).maxHedges(3))
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hedging maxHedges(3) needs maxAttempts of at least 4 (the original attempt and the hedges), "
            + "but maxAttempts was 3");
    assertThatThrownBy(() -> Hedging.after(Duration.ofMillis(5)).maxHedges(0))
        .hasMessage("maxHedges must be at least 1, was 0");
    assertThatThrownBy(() -> Hedging.after(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hedging delay");
  }

  @Test
  void maxHedgesBoundsTheHedgesBelowMaxAttempts() {
    Attempts attempts = new Attempts();
    AsyncRetryExecutor.of(policy(100).maxAttempts(5)
        .hedging(Hedging.after(Duration.ofMillis(100)).maxHedges(1)).build(), scheduler).call(attempts);
    advanceMillis(1000);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 100L);
  }

  @Test
  void recoveryRunsWhenEveryAttemptFailed() throws Exception {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(100).maxAttempts(2).build(), scheduler)
        .call(attempts, (lastResult, lastFailure, history) -> "fallback after " + history.attempts());
    advanceMillis(100);
    attempts.attempt(1).completeExceptionally(new IOException("1"));
    attempts.attempt(2).completeExceptionally(new IOException("2"));
    assertThat(call.get()).isEqualTo("fallback after 2");
  }

  @Test
  void withARateLimiterEachHedgeWaitsForItsTokenAndACancelGivesAHeldTokenBack() {
    // beta 0.5 (the default is 0.7) for exact rates: a throttle before any time bucket closed measures the
    // open bucket's one response over 0.5 s, 2/s, and halves it: 1 token per second, 1 token.
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("svc").clock(clock).beta(0.5).build();
    limiter.onResponse(true); // a throttle enables it
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(100).rateLimiter(limiter).build(), scheduler)
        .call(attempts);
    // Attempt 1 takes the token. At 100 ms the hedge finds 0.1 tokens: it waits (1 - 0.1) / 1 = 0.9 s.
    advanceMillis(999);
    assertThat(attempts.startedAtMillis).containsExactly(0L);
    advanceMillis(1);
    assertThat(attempts.startedAtMillis).containsExactly(0L, 1000L);
    assertThat(limiter.waits()).isEqualTo(1);
    // The next hedge is due at 1100 ms and waits again, holding its token; the caller cancels meanwhile.
    advanceMillis(500);
    assertThat(limiter.waits()).isEqualTo(2);
    double before = limiter.tokens();
    assertThat(call.cancel(true)).isTrue();
    assertThat(limiter.tokens()).isCloseTo(before + 1, org.assertj.core.data.Offset.offset(1e-9));
    advanceMillis(10_000);
    assertThat(attempts.count()).isEqualTo(2);
  }

  @Test
  void aFirstAttemptTheRateLimiterRefusesFailsWithRateLimitedException() {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("svc").clock(clock).failFast(true).build();
    limiter.onResponse(true);
    limiter.reserve(); // the only token
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(100).rateLimiter(limiter).build(), scheduler)
        .call(attempts);
    assertThatThrownBy(call::get).cause().isInstanceOf(RateLimitedException.class);
    assertThat(attempts.count()).isZero();
    assertThat(scheduler.pending()).isZero();
  }
}
