package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The async executor at its edges: listeners that throw errors, and a budget charged only for retries that start. */
class AsyncExecutorEdgesTest {
  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);

  private static RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().maxAttempts(5).backoff(Backoff.fixed(Duration.ofSeconds(1)));
  }

  private static CompletableFuture<String> busy(AtomicInteger attempts) {
    attempts.incrementAndGet();
    return CompletableFuture.failedFuture(new IOException("busy"));
  }

  @Test
  void anErrorFromOnAbortedDoesNotEscapeFromCancel() {
    List<String> heard = Collections.synchronizedList(new ArrayList<>());
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy().clock(clock).listener(new RetryListener<>() {
      @Override
      public void onAborted(RetryEvent<String> event) {
        heard.add("aborted " + event.stopReason());
        throw new AssertionError("listener assertion");
      }
    }).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(() -> busy(attempts));

    assertThat(future.cancel(true)).isTrue();

    assertThat(future).isCancelled();
    assertThat(heard).containsExactly("aborted CANCELLED");
    assertThat(scheduler.runDue()).isZero();
    assertThat(attempts).hasValue(1);
  }

  @Test
  void anErrorFromOnRetryScheduledChangesNothing() {
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy().clock(clock).listener(new RetryListener<>() {
      @Override
      public void onRetryScheduled(RetryEvent<String> event) {
        throw new AssertionError("listener assertion");
      }
    }).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    IOException last = new IOException("last");
    CompletableFuture<String> future = executor.call(() -> {
      if (attempts.incrementAndGet() == 5) {
        return CompletableFuture.<String>failedFuture(last);
      }
      return CompletableFuture.<String>failedFuture(new IOException("busy"));
    });
    scheduler.advance(Duration.ofSeconds(10));
    assertThat(attempts).hasValue(5);
    assertThat(future.handle((r, f) -> f).join()).isSameAs(last);
  }

  @Test
  void aRetryCancelledWhileWaitingGivesItsChargeBack() {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(100).build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy().clock(clock).budget(budget).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(() -> busy(attempts));
    scheduler.advance(Duration.ofSeconds(1)); // retry 1 runs and fails; retry 2 waits
    assertThat(attempts).hasValue(2);
    assertThat(budget.level()).isEqualTo(90.0);

    assertThat(future.cancel(true)).isTrue();

    assertThat(budget.level()).as("retry 1 charged, retry 2 given back").isEqualTo(95.0);
  }

  @Test
  void aRetryCancelledWhileItsAttemptIsInFlightKeepsItsCharge() {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(100).build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy().clock(clock).budget(budget).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> hanging = new CompletableFuture<>();
    CompletableFuture<String> future = executor.call(() -> attempts.get() == 0 ? busy(attempts) : hanging);
    scheduler.advance(Duration.ofSeconds(1)); // retry 1 starts and hangs
    assertThat(future.cancel(true)).isTrue();
    assertThat(hanging).isCancelled();
    assertThat(budget.level()).as("retry 1 went ahead").isEqualTo(95.0);
  }

  @Test
  void aRetryTheSchedulerRefusesGivesItsChargeBack() {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(100).build();
    FakeScheduler refusing = new FakeScheduler(clock);
    refusing.shutdown(); // schedule() now throws RejectedExecutionException
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy().clock(clock).budget(budget).build(), refusing);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(() -> busy(attempts));
    assertThat(future).isCompletedExceptionally();
    assertThat(budget.level()).isEqualTo(100.0);
  }
}
