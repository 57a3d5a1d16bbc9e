package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged calls on real threads: attempts answer on a pool while hedges start on the scheduler and the caller
 * cancels from its own thread. Checks invariants only (never how long anything took).
 */
class HedgingConcurrencyTest {
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
  private final ScheduledExecutorService answers = Executors.newScheduledThreadPool(2);

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
    answers.shutdownNow();
  }

  /** Attempts that answer after 0 to 300 microseconds on the answering pool, half of them with a failure. */
  final class RacingAttempts implements Supplier<CompletionStage<String>> {
    final List<CompletableFuture<String>> futures = new CopyOnWriteArrayList<>();
    final AtomicInteger inHook = new AtomicInteger();

    @Override
    public CompletionStage<String> get() {
      inHook.incrementAndGet();
      try {
        CompletableFuture<String> future = new CompletableFuture<>();
        futures.add(future);
        int number = futures.size();
        long micros = ThreadLocalRandom.current().nextLong(300);
        boolean fail = ThreadLocalRandom.current().nextBoolean();
        answers.schedule(() -> {
          if (fail) {
            future.completeExceptionally(new IOException("fail " + number));
          } else {
            future.complete("ok " + number);
          }
        }, micros, TimeUnit.MICROSECONDS);
        return future;
      } finally {
        inHook.decrementAndGet();
      }
    }
  }

  @Test
  void noAttemptStartsAfterCancelReturnsAndEveryCallEnds() throws Exception {
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(4)
        .hedging(Hedging.after(Duration.ofNanos(50_000)))
        .build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy, scheduler);
    for (int i = 0; i < 400; i++) {
      RacingAttempts attempts = new RacingAttempts();
      CompletableFuture<String> call = executor.call(attempts);
      if (i % 2 == 0) {
        Thread.sleep(0, ThreadLocalRandom.current().nextInt(200_000));
        boolean cancelled = call.cancel(true);
        int startedAtCancel = attempts.futures.size();
        if (cancelled) {
          assertThat(attempts.inHook).hasValue(0); // cancel waited for a hook that was running
        }
        // Wait until every attempt has answered or been cancelled, then check none started after cancel.
        for (CompletableFuture<String> future : attempts.futures) {
          future.handle((r, t) -> null).get(10, TimeUnit.SECONDS);
        }
        // A hedge due after the cancel would have run by the time a later task on the scheduler has.
        scheduler.schedule(() -> null, 200, TimeUnit.MICROSECONDS).get(10, TimeUnit.SECONDS);
        assertThat(attempts.futures).hasSize(startedAtCancel);
      } else {
        call.handle((r, t) -> null).get(10, TimeUnit.SECONDS); // every call ends
        assertThat(attempts.futures.size()).isBetween(1, 4);
        if (!call.isCompletedExceptionally()) {
          int winner = Integer.parseInt(call.get().substring(3));
          for (int n = 1; n <= attempts.futures.size(); n++) {
            if (n != winner) {
              CompletableFuture<String> loser = attempts.futures.get(n - 1);
              // Cancelled, failed, or (on another thread, in the same instant) answered and discarded.
              assertThat(loser.handle((r, t) -> null).get(10, TimeUnit.SECONDS)).isNull();
            }
          }
        }
      }
    }
  }
}
