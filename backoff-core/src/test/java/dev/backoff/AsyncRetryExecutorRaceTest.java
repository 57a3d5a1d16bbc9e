package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Races of the async executor made deterministic: a scheduler may run a task on another thread before
 * {@code schedule} even returns; running it inline, inside {@code schedule}, is that race with a fixed order.
 */
@Timeout(20)
class AsyncRetryExecutorRaceTest {
  /** Runs the first task inline (as if it fired before schedule returned), holds later ones for an hour. */
  static final class FirstTaskInlineScheduler extends ScheduledThreadPoolExecutor {
    final List<ScheduledFuture<?>> held = new ArrayList<>();
    private boolean first = true;

    FirstTaskInlineScheduler() {
      super(1);
      setRemoveOnCancelPolicy(true);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> task, long delay, TimeUnit unit) {
      if (first) {
        first = false;
        V value;
        try {
          value = task.call();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        return super.schedule(() -> value, 0, TimeUnit.NANOSECONDS);
      }
      ScheduledFuture<V> future = super.schedule(task, 1, TimeUnit.HOURS);
      held.add(future);
      return future;
    }
  }

  private FirstTaskInlineScheduler scheduler;

  @AfterEach
  void stop() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  /** Five attempts 100 ms apart; aborted calls are recorded in {@code events}. */
  private static RetryPolicy<String> policyRecordingAborts(List<String> events) {
    return RetryPolicy.<String>builder()
        .maxAttempts(5)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .listener(new RetryListener<>() {
          @Override
          public void onAborted(RetryEvent<String> event) {
            events.add("aborted: " + event.stopReason());
          }
        })
        .build();
  }

  @Test
  void cancellingCancelsTheNewestRetryEvenIfAnOlderOneFiredBeforeItsSchedulerReturned() {
    scheduler = new FirstTaskInlineScheduler();
    List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    RetryPolicy<String> policy = policyRecordingAborts(events);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy, scheduler).call(() -> {
      attempts.incrementAndGet();
      return CompletableFuture.failedFuture(new IOException("busy"));
    });
    assertThat(attempts).hasValue(2); // the first retry ran inside schedule(); the second one is held
    assertThat(scheduler.held).hasSize(1);

    assertThat(future.cancel(true)).isTrue();

    assertThat(scheduler.held.get(0).isCancelled()).as("the pending retry is cancelled").isTrue();
    assertThat(scheduler.getQueue()).as("no retry left queued").doesNotContain((Runnable) scheduler.held.get(0));
    assertThat(attempts).hasValue(2);
    assertThat(events).containsExactly("aborted: CANCELLED");
  }

  @Test
  void aSchedulerThatThrowsSomethingOtherThanARejectionStillEndsTheCallAndTellsTheListeners() {
    List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    ScheduledThreadPoolExecutor broken = new ScheduledThreadPoolExecutor(1) {
      @Override
      public <V> ScheduledFuture<V> schedule(Callable<V> task, long delay, TimeUnit unit) {
        throw new IllegalStateException("scheduler broken");
      }
    };
    try {
      RetryPolicy<String> policy = policyRecordingAborts(events);
      IOException busy = new IOException("busy");
      CompletableFuture<String> future = AsyncRetryExecutor.of(policy, broken)
          .call(() -> CompletableFuture.failedFuture(busy));

      assertThat(future).isCompletedExceptionally();
      Throwable cause = future.handle((value, failure) -> failure).join();
      assertThat(cause).isSameAs(busy);
      assertThat(busy.getSuppressed()).anySatisfy(s -> assertThat(s).hasMessage("scheduler broken"));
      assertThat(events).containsExactly("aborted: CANCELLED");
    } finally {
      broken.shutdownNow();
    }
  }
}
