package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class AsyncRetryExecutorTest {
  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 1_000_000_000L); // wraps during the tests
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RecordingListener<String> listener = new RecordingListener<>();

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder()
        .name("test")
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .clock(clock)
        .listener(listener);
  }

  /** A supplier whose attempts fail with the scripted failures, then succeed with "ok". */
  private static final class Scripted implements Supplier<CompletionStage<String>> {
    final AtomicInteger attempts = new AtomicInteger();
    final List<Throwable> failures;

    Scripted(Throwable... failures) {
      this.failures = List.of(failures);
    }

    @Override
    public CompletionStage<String> get() {
      int attempt = attempts.incrementAndGet();
      if (attempt <= failures.size()) {
        return CompletableFuture.failedFuture(failures.get(attempt - 1));
      }
      return CompletableFuture.completedFuture("ok");
    }
  }

  @Test
  void retriesOnTheSchedulerWithoutBlockingAndSucceeds() throws Exception {
    Scripted supplier = new Scripted(new IOException("1"), new IOException("2"));
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy().build(), scheduler);
    CompletableFuture<String> future = executor.call(supplier);

    assertThat(supplier.attempts).hasValue(1); // the first attempt runs on the caller's thread
    assertThat(future).isNotDone();
    assertThat(scheduler.pending()).isEqualTo(1);
    assertThat(scheduler.advance(Duration.ofMillis(99))).isZero(); // not due yet
    assertThat(scheduler.advance(Duration.ofMillis(1))).isEqualTo(1);
    assertThat(supplier.attempts).hasValue(2);
    assertThat(scheduler.runNext()).isTrue();
    assertThat(future.get(0, TimeUnit.SECONDS)).isEqualTo("ok");
    assertThat(supplier.attempts).hasValue(3);
    assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
    assertThat(scheduler.pending()).isZero();
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "retry 2 in PT0.1S", "success 3 ok");
  }

  @Test
  void exhaustedCallFailsWithTheLastFailureUnwrappedAndItsHistory() {
    IOException first = new IOException("1");
    IOException second = new IOException("2");
    IOException third = new IOException("3");
    Scripted supplier = new Scripted(new CompletionException(first), new ExecutionException(second),
        new CompletionException(new ExecutionException(third)), new IOException("never"));
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().build(), scheduler).call(supplier);
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(supplier.attempts).hasValue(3);
    assertThatThrownBy(future::join).isInstanceOf(CompletionException.class).cause().isSameAs(third);
    assertThat(third.getSuppressed()).contains(first, second);
    RetryHistory history = RetryHistory.of(third);
    assertThat(history.attempts()).isEqualTo(3);
    assertThat(history.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(history.elapsed()).isEqualTo(Duration.ofMillis(200));
    assertThat(listener.summary()).endsWith("exhausted ATTEMPTS_EXHAUSTED");
  }

  @Test
  void wrappedFailuresAreClassifiedByTheirCause() {
    IllegalStateException fatal = new IllegalStateException("fatal");
    Scripted supplier = new Scripted(new CompletionException(new IOException("retry me")),
        new CompletionException(fatal));
    CompletableFuture<String> future = AsyncRetryExecutor.of(
        policy().retryOn(IOException.class).abortOn(IllegalStateException.class).maxAttempts(5).build(), scheduler)
        .call(supplier);
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(supplier.attempts).hasValue(2);
    assertThatThrownBy(future::join).cause().isSameAs(fatal);
    assertThat(RetryHistory.of(fatal).stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "aborted ABORTED");
  }

  @Test
  void aSupplierThatThrowsOrReturnsNullCountsAsAFailedAttempt() {
    AtomicInteger attempts = new AtomicInteger();
    Supplier<CompletionStage<String>> supplier = () -> {
      int attempt = attempts.incrementAndGet();
      if (attempt == 1) {
        throw new IllegalArgumentException("thrown before any stage");
      }
      if (attempt == 2) {
        return null;
      }
      return CompletableFuture.completedFuture("third time");
    };
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().build(), scheduler).call(supplier);
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(future.join()).isEqualTo("third time");
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "retry 2 in PT0.1S", "success 3 third time");
  }

  @Test
  void retriesOnResultsAndReturnsTheLastResultWhenTheyRunOut() {
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = AsyncRetryExecutor.of(
        policy().retryOnResult(result -> result.startsWith("busy")).build(), scheduler)
        .call(() -> CompletableFuture.completedFuture("busy " + attempts.incrementAndGet()));
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(future.join()).isEqualTo("busy 3");
    assertThat(listener.summary()).endsWith("exhausted ATTEMPTS_EXHAUSTED");
  }

  @Test
  void cancellingWhileARetryIsPendingCancelsItAndNoAttemptFollows() {
    Scripted supplier = new Scripted(new IOException("1"), new IOException("2"));
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().maxAttempts(10).build(), scheduler)
        .call(supplier);
    assertThat(scheduler.pending()).isEqualTo(1);

    assertThat(future.cancel(true)).isTrue();

    assertThat(scheduler.pending()).isZero(); // the scheduled retry was cancelled, not merely skipped
    assertThat(scheduler.advance(Duration.ofHours(1))).isZero();
    assertThat(supplier.attempts).hasValue(1); // zero extra attempts
    assertThat(future).isCancelled();
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "aborted CANCELLED");
  }

  @Test
  void cancellingDuringAnAttemptCancelsTheStageInFlightAndNoAttemptFollows() {
    List<CompletableFuture<String>> stages = new ArrayList<>();
    Supplier<CompletionStage<String>> supplier = () -> {
      CompletableFuture<String> stage = new CompletableFuture<>();
      stages.add(stage);
      return stage;
    };
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().build(), scheduler).call(supplier);
    stages.get(0).completeExceptionally(new IOException("1"));
    scheduler.runNext();
    assertThat(stages).hasSize(2);

    future.cancel(false);

    assertThat(stages.get(1)).isCancelled();
    assertThat(scheduler.pending()).isZero();
    assertThat(scheduler.advance(Duration.ofHours(1))).isZero();
    assertThat(stages).hasSize(2);
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "aborted CANCELLED");
  }

  @Test
  void cancellingAfterTheTaskWasQueuedButBeforeItRunsStartsNothing() {
    // The cancellation races the retry task: the task is due, but cancel wins the state change.
    Scripted supplier = new Scripted(new IOException("1"));
    CompletableFuture<String> future = AsyncRetryExecutor.of(
        policy().backoff(Backoff.none()).build(), scheduler).call(supplier);
    assertThat(scheduler.delays()).containsExactly(Duration.ZERO);
    future.cancel(true);
    assertThat(scheduler.runDue()).isZero();
    assertThat(supplier.attempts).hasValue(1);
  }

  @Test
  void completingTheFutureFromOutsideAlsoStopsTheRetries() {
    Scripted supplier = new Scripted(new IOException("1"), new IOException("2"));
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().build(), scheduler).call(supplier);
    future.complete("fallback");
    assertThat(scheduler.pending()).isZero();
    assertThat(supplier.attempts).hasValue(1);
    assertThat(future.join()).isEqualTo("fallback");
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "aborted CANCELLED");
  }

  @Test
  void orTimeoutStopsThePendingRetry() throws Exception {
    Scripted supplier = new Scripted(new IOException("1"));
    CompletableFuture<String> future = AsyncRetryExecutor.of(
        policy().backoff(Backoff.fixed(Duration.ofHours(1))).build(), scheduler).call(supplier);
    future.orTimeout(1, TimeUnit.MILLISECONDS);
    // Real time passes here (the JDK's timeout thread); the bound only guards against a hang.
    assertThatThrownBy(() -> future.get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(java.util.concurrent.TimeoutException.class);
    // The timeout thread completes the future first, then cancels the retry: wait for it (bounded).
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while ((scheduler.pending() > 0 || listener.heard().size() < 2) && System.nanoTime() - giveUp < 0) {
      Thread.sleep(1);
    }
    assertThat(scheduler.pending()).isZero();
    assertThat(scheduler.advance(Duration.ofHours(2))).isZero();
    assertThat(supplier.attempts).hasValue(1);
    assertThat(listener.summary()).containsExactly("retry 1 in PT1H", "aborted CANCELLED");
  }

  @Test
  void theBudgetRefusingStopsTheCallAtOnce() {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(10).build();
    Scripted supplier = new Scripted(new IOException("1"), new IOException("2"), new IOException("3"),
        new IOException("4"));
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().maxAttempts(10).budget(budget).build(),
        scheduler).call(supplier);
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(supplier.attempts).hasValue(3); // two retries of 5 tokens each, then refused
    assertThat(scheduler.delays()).hasSize(2);
    assertThatThrownBy(future::join).cause().hasMessage("3");
    assertThat(RetryHistory.of(future.handle((r, f) -> f).join()).stopReason())
        .isEqualTo(StopReason.BUDGET_EXHAUSTED);
    assertThat(budget.level()).isZero();
    assertThat(listener.summary()).endsWith("exhausted BUDGET_EXHAUSTED");
  }

  @Test
  void firstTrySuccessesReachTheBudgetAndListeners() {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(10).build();
    budget.tryAcquire(FailureClass.TRANSIENT);
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().budget(budget).build(), scheduler)
        .call(() -> CompletableFuture.completedFuture("first"));
    assertThat(future.join()).isEqualTo("first");
    assertThat(budget.level()).isEqualTo(6.0); // 10 - 5 + the first-try refund of 1
    assertThat(listener.summary()).containsExactly("success 1 first");
  }

  @Test
  void aDeadlineStopsTheCallInsteadOfScheduling() {
    Scripted supplier = new Scripted(new IOException("1"), new IOException("2"), new IOException("3"));
    CompletableFuture<String> future = AsyncRetryExecutor.of(
        policy().maxAttempts(10).maxElapsed(Duration.ofMillis(250)).build(), scheduler).call(supplier);
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(supplier.attempts).hasValue(3); // at 0 and 100 ms; a third retry would start at 300 ms
    assertThat(listener.summary()).endsWith("exhausted DEADLINE_EXCEEDED");
    assertThatThrownBy(future::join).cause().hasMessage("3");
  }

  @Test
  void aShutDownSchedulerEndsTheCallWithTheLastFailure() {
    scheduler.shutdown();
    IOException failure = new IOException("1");
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().build(), scheduler)
        .call(new Scripted(failure));
    assertThatThrownBy(future::join).cause().isSameAs(failure);
    assertThat(failure.getSuppressed()).anyMatch(s -> s instanceof java.util.concurrent.RejectedExecutionException);
  }

  @Test
  void decoratedSuppliersRetryEachCall() {
    AtomicInteger attempts = new AtomicInteger();
    Supplier<CompletableFuture<String>> decorated = AsyncRetryExecutor.of(policy().build(), scheduler)
        .decorate(() -> attempts.incrementAndGet() % 2 == 1
            ? CompletableFuture.failedFuture(new IOException("odd"))
            : CompletableFuture.completedFuture("even"));
    CompletableFuture<String> first = decorated.get();
    scheduler.runNext();
    CompletableFuture<String> second = decorated.get();
    scheduler.runNext();
    assertThat(first.join()).isEqualTo("even");
    assertThat(second.join()).isEqualTo("even");
    assertThat(attempts).hasValue(4);
  }

  @Test
  void argumentsAreChecked() {
    RetryPolicy<String> policy = policy().build();
    assertThatThrownBy(() -> AsyncRetryExecutor.of(policy, (ScheduledExecutorService) null))
        .isInstanceOf(NullPointerException.class).hasMessage("scheduler must not be null");
    assertThatThrownBy(() -> AsyncRetryExecutor.of(policy, (RetryScheduler) null))
        .isInstanceOf(NullPointerException.class).hasMessage("scheduler must not be null");
    assertThatThrownBy(() -> RetryScheduler.of(null))
        .isInstanceOf(NullPointerException.class).hasMessage("executor must not be null");
    assertThatThrownBy(() -> AsyncRetryExecutor.of(policy, scheduler).call(null))
        .isInstanceOf(NullPointerException.class).hasMessage("supplier must not be null");
    assertThatThrownBy(() -> AsyncRetryExecutor.defaultScheduler().shutdown())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aOneMethodSchedulerCarriesTheRetries() {
    // A driver's own timer: it sees each retry's delay, and a handle it returns is what cancel() cancels.
    List<Long> delays = new ArrayList<>();
    RetryScheduler timer = (task, delayNanos) -> {
      delays.add(delayNanos);
      return scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    };
    Scripted supplier = new Scripted(new IOException("1"), new IOException("2"));
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy().build(), timer).call(supplier);
    assertThat(delays).hasSize(1);
    scheduler.runNext();
    assertThat(delays).hasSize(2);
    assertThat(delays).allSatisfy(delay -> assertThat(delay).isPositive());
    call.cancel(false);
    assertThat(scheduler.pending()).isZero();
    assertThat(scheduler.runNext()).isFalse();
    assertThat(supplier.attempts).hasValue(2);
  }

  @Test
  void theDefaultSchedulerRunsRealRetries() throws Exception {
    Scripted supplier = new Scripted(new IOException("1"), new IOException("2"));
    RetryPolicy<String> policy = RetryPolicy.<String>builder().backoff(Backoff.fixed(Duration.ofMillis(1))).build();
    // Generous bound only so that a broken build cannot hang; no timing is asserted.
    assertThat(AsyncRetryExecutor.of(policy).call(supplier).get(30, TimeUnit.SECONDS)).isEqualTo("ok");
    assertThat(supplier.attempts).hasValue(3);
  }

  @Test
  void aPolicyCallbackThatThrowsCompletesTheFutureInsteadOfHangingIt() {
    IllegalStateException broken = new IllegalStateException("broken predicate");
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().retryOnResult(result -> {
      if (attempts.get() == 2) {
        throw broken;
      }
      return true;
    }).build(), scheduler).call(() -> CompletableFuture.completedFuture("r" + attempts.incrementAndGet()));
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(attempts).hasValue(2);
    assertThat(future).isCompletedExceptionally(); // checked first: a hung future must fail, not block
    assertThatThrownBy(future::join).cause().isSameAs(broken);
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void cancellingWhileTheRetryIsBeingScheduledDropsTheTask() {
    // The listener runs while the engine schedules the retry, standing in for a cancel from another thread
    // that lands between the decision and the scheduling.
    List<CompletableFuture<String>> returned = new ArrayList<>();
    CompletableFuture<String> firstAttempt = new CompletableFuture<>();
    AtomicInteger attempts = new AtomicInteger();
    RetryPolicy<String> policy = policy().listener(new RetryListener<>() {
      @Override
      public void onRetryScheduled(RetryEvent<String> event) {
        returned.get(0).cancel(true);
      }
    }).build();
    returned.add(AsyncRetryExecutor.of(policy, scheduler).call(() -> {
      attempts.incrementAndGet();
      return firstAttempt;
    }));
    firstAttempt.completeExceptionally(new IOException("1"));

    assertThat(returned.get(0)).isCancelled();
    assertThat(scheduler.pending()).isZero(); // dropped at once, not left queued until due
    assertThat(scheduler.advance(Duration.ofHours(1))).isZero();
    assertThat(attempts).hasValue(1);
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "aborted CANCELLED");
  }

  @Test
  void cancellationIsVisibleToCallers() {
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy().build(), scheduler)
        .call(new Scripted(new IOException("1")));
    future.cancel(true);
    assertThatThrownBy(future::join).isInstanceOf(CancellationException.class);
  }
}
