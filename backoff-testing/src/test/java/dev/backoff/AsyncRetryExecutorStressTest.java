package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many calls on real threads: stages complete on other threads, the caller cancels some calls at random
 * moments. Every call must end exactly once for its listeners, every future must complete, no retry may be
 * left queued, and the budget must balance. Bounded in count; the waits only guard against a hang.
 */
class AsyncRetryExecutorStressTest {

  @Test
  void concurrentCallsAndCancellationsEndEveryCallExactlyOnce() throws Exception {
    int calls = 2000;
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
    scheduler.setRemoveOnCancelPolicy(true);
    ExecutorService completers = Executors.newFixedThreadPool(2);
    AtomicInteger endings = new AtomicInteger();
    AtomicInteger successes = new AtomicInteger();
    AtomicInteger cancelledEndings = new AtomicInteger();
    AtomicLong attempts = new AtomicLong();
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(1_000_000).firstTrySuccessRefund(0).build();
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(4)
        .backoff(Backoff.exponential(Duration.ofNanos(1000), 2, Duration.ofMillis(1), Jitter.full()))
        .budget(budget)
        .listener(new RetryListener<>() {
          @Override
          public void onSuccess(RetryEvent<String> event) {
            endings.incrementAndGet();
            successes.incrementAndGet();
          }

          @Override
          public void onExhausted(RetryEvent<String> event) {
            endings.incrementAndGet();
          }

          @Override
          public void onAborted(RetryEvent<String> event) {
            endings.incrementAndGet();
            if (event.stopReason() == StopReason.CANCELLED) {
              cancelledEndings.incrementAndGet();
            }
          }
        })
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
      while (endings.get() < calls && System.nanoTime() - giveUp < 0) {
        Thread.sleep(5);
      }
    } finally {
      completers.shutdownNow();
      scheduler.shutdownNow();
    }
    long cancelled = futures.stream().filter(CompletableFuture::isCancelled).count();
    assertThat(cancelled).isPositive();
    assertThat(endings).hasValue(calls);
    // A cancel that loses the race to the call's own ending is not a cancellation; one that wins is heard.
    assertThat(cancelledEndings.get()).isLessThanOrEqualTo((int) cancelled);
    assertThat(scheduler.getQueue()).isEmpty();
    assertThat(attempts.get()).isBetween((long) calls, 4L * calls);
    // Successful calls refund their last retry; failed ones keep what they took: never above capacity.
    assertThat(budget.level()).isBetween(0.0, 1_000_000.0);
  }
}
