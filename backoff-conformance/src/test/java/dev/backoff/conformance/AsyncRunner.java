package dev.backoff.conformance;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Recovery;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The asynchronous executor ({@link AsyncRetryExecutor}) on a fake scheduler; the caller cancels its future. An
 * attempt that never completes is a future nobody completes; the loop must cancel it.
 */
final class AsyncRunner implements DriverRunner {
  /**
   * Moves {@code scheduler}'s time until the call has ended: stops it at the trial's {@code cancelAfter} as its
   * caller would (cancelling its future), then lets an hour pass, so that a retry left running would show.
   */
  static void runToEnd(Trial trial, FakeScheduler scheduler, Future<?> call) {
    if (trial.cancelAfter() != null) {
      scheduler.advance(trial.cancelAfter());
      call.cancel(true);
    }
    scheduler.advance(Duration.ofHours(1));
    if (!call.isDone()) {
      throw new AssertionError("the call had not ended an hour later");
    }
  }

  @Override
  public String name() {
    return "async";
  }

  @Override
  public Outcome run(Trial trial) {
    FakeClock clock = new FakeClock();
    FakeScheduler scheduler = new FakeScheduler(clock);
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(trial.policy(clock), scheduler);
    Supplier<CompletableFuture<String>> attempt = () -> {
      try {
        return CompletableFuture.completedFuture(trial.attempt());
      } catch (Trial.Hang hang) {
        CompletableFuture<String> never = new CompletableFuture<>();
        never.whenComplete((result, failure) -> {
          if (never.isCancelled()) {
            trial.attemptCancelled();
          }
        });
        return never;
      } catch (Exception failure) {
        return CompletableFuture.failedFuture(failure);
      }
    };
    Recovery<String> recovery = trial.recovery();
    CompletableFuture<String> call = recovery == null ? executor.call(attempt) : executor.call(attempt, recovery);
    runToEnd(trial, scheduler, call);
    try {
      return Outcome.of(call.join());
    } catch (CompletionException failure) {
      return Outcome.failed(failure.getCause());
    } catch (RuntimeException cancelled) {
      return Outcome.failed(cancelled);
    }
  }
}
