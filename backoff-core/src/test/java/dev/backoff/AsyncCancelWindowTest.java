package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cancellation racing a retry on a real two-thread scheduler: once {@code cancel} has returned true, the
 * supplier is never entered again. The outcome is an invariant checked on every iteration, not a timing.
 */
@Tag("slow")
@Timeout(60)
class AsyncCancelWindowTest {
  private static final int ITERATIONS = 20_000;

  @Test
  void noSupplierCallBeginsAfterCancelReturnedTrue() throws Exception {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
    scheduler.setRemoveOnCancelPolicy(true);
    AtomicInteger late = new AtomicInteger();
    AtomicInteger cancelled = new AtomicInteger();
    AtomicInteger abortedEvents = new AtomicInteger();
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(100_000).backoff(Backoff.none())
        .listener(new RetryListener<>() {
          @Override
          public void onAborted(RetryEvent<String> event) {
            abortedEvents.incrementAndGet();
          }
        })
        .build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy, scheduler);
    try {
      for (int i = 0; i < ITERATIONS; i++) {
        AtomicBoolean cancelReturned = new AtomicBoolean();
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> future = executor.call(() -> {
          if (cancelReturned.get()) {
            late.incrementAndGet();
          }
          attempts.incrementAndGet();
          return CompletableFuture.failedFuture(new IOException("busy"));
        });
        // Let the retries run back to back on the scheduler's threads for a varying moment, then cancel.
        for (int spin = i % 64; spin > 0; spin--) {
          Thread.onSpinWait();
        }
        if (future.cancel(true)) {
          cancelReturned.set(true);
          cancelled.incrementAndGet();
        }
        assertThat(future).isCancelled();
      }
      // Any straggling retry task of any iteration runs (and would count) before the scheduler terminates.
      scheduler.shutdown();
      assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      scheduler.shutdownNow();
    }
    assertThat(cancelled).as("every cancel won: retries never run out").hasValue(ITERATIONS);
    assertThat(late).as("supplier calls begun after cancel() returned true").hasValue(0);
    assertThat(abortedEvents).as("each cancelled call is aborted exactly once").hasValue(ITERATIONS);
  }
}
