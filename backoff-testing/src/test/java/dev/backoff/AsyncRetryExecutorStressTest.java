package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.RecordingListener.Kind;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many calls on real threads: stages complete on other threads, the caller cancels some calls at random
 * moments. Every call must end exactly once for its listeners, every future must complete, no retry may be
 * left queued, and the budget must balance to the token: what the scheduled retries withdrew, less what
 * retries that never started gave back, plus what successes after a retry refunded. Bounded in count; the
 * waits only guard against a hang.
 */
class AsyncRetryExecutorStressTest {

  @Test
  void concurrentCallsAndCancellationsEndEveryCallExactlyOnce() throws Exception {
    int calls = 2000;
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
    scheduler.setRemoveOnCancelPolicy(true);
    ExecutorService completers = Executors.newFixedThreadPool(2);
    RecordingListener<String> listener = new RecordingListener<>();
    AtomicLong attempts = new AtomicLong();
    long capacity = 1_000_000; // never reached nor emptied: every asked-for retry is granted, no refund clamped
    ScriptedBudget budget = ScriptedBudget.counting(
        RetryBudgets.tokenBucket().capacity(capacity).firstTrySuccessRefund(0).build());
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(4)
        .backoff(Backoff.exponential(Duration.ofNanos(1000), 2, Duration.ofMillis(1), Jitter.full()))
        .budget(budget)
        .listener(listener)
        .build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy, scheduler);
    List<CompletableFuture<String>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < calls; i++) {
        futures.add(executor.call(() -> {
          attempts.incrementAndGet();
          return CompletableFuture.supplyAsync(() -> {
            if (ThreadLocalRandom.current().nextInt(3) == 0) {
              return "ok";
            }
            throw new IllegalStateException(new IOException("flaky"));
          }, completers);
        }));
        if (i % 3 == 0) {
          futures.get(ThreadLocalRandom.current().nextInt(futures.size())).cancel(true);
        }
      }
      for (CompletableFuture<String> future : futures) {
        future.handle((result, failure) -> null).get(60, TimeUnit.SECONDS);
      }
      // Listeners of cancelled calls may hear the ending a moment after the future completes.
      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (listener.endings() < calls && System.nanoTime() - giveUp < 0) {
        Thread.sleep(5);
      }
    } finally {
      completers.shutdownNow();
      scheduler.shutdownNow();
    }
    long cancelled = futures.stream().filter(CompletableFuture::isCancelled).count();
    assertThat(cancelled).isPositive();
    assertThat(listener.endings()).isEqualTo(calls);
    // A cancel that loses the race to the call's own ending is not a cancellation; one that wins is heard.
    assertThat(listener.stopReasons().stream().filter(reason -> reason == StopReason.CANCELLED).count())
        .isLessThanOrEqualTo(cancelled);
    assertThat(scheduler.getQueue()).isEmpty();

    // The budget balances, counted from what the calls did rather than from what the budget says.
    List<RetryEvent<String>> retries = listener.events(Kind.RETRY);
    long startedRetries = attempts.get() - calls; // every call made its first attempt
    long retriedSuccesses = listener.events(Kind.SUCCESS).stream().filter(event -> event.attempts() > 1).count();
    assertThat(retries).extracting(RetryEvent::failureClass).containsOnly(FailureClass.TRANSIENT);
    assertThat(budget.calls()).isEqualTo(calls);
    assertThat(budget.granted()).as("a token withdrawn for every retry scheduled").isEqualTo(budget.acquires())
        .isEqualTo(retries.size());
    assertThat(budget.releases()).as("given back for every scheduled retry that never started")
        .isEqualTo(retries.size() - startedRetries);
    assertThat(budget.retriedSuccesses()).as("a deposit for every success after a retry").isEqualTo(retriedSuccesses);
    assertThat(budget.level()).as("capacity - cost x started retries + cost x successes after a retry")
        .isEqualTo(capacity - RetryBudgets.AWS_RETRY_COST * startedRetries
            + RetryBudgets.AWS_RETRY_COST * retriedSuccesses);
  }
}
