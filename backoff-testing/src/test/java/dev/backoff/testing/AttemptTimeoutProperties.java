package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The per-attempt timeout's watchdog and timer, clipped to the deadline, over many timeouts, deadlines and
 * first-attempt durations (the examples are in {@link AttemptTimeoutTest}; jqwik runs this class alone, so
 * its report is not overwritten by JUnit's).
 */
class AttemptTimeoutProperties {
  /**
   * Each attempt's timeout is the policy's, clipped to what is left of the deadline: the first attempt's
   * watchdog waits min(timeout, deadline), the second's min(timeout, deadline - first attempt - backoff),
   * and never less than 1 ms.
   */
  @Property(tries = 300)
  void theSyncWatchdogWaitsTheTimeoutClippedToTheDeadline(
      @ForAll @LongRange(min = 1, max = 10_000) long timeoutMs,
      @ForAll @LongRange(min = 200, max = 20_000) long deadlineMs,
      @ForAll @LongRange(min = 0, max = 20_000) long firstAttemptMs) throws Exception {
    FakeClock time = new FakeClock();
    FakeScheduler watchdogs = new FakeScheduler(time);
    long backoffMs = 100;
    RetryExecutor<String> retry = RetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(2).backoff(Backoff.fixed(Duration.ofMillis(backoffMs)))
        .attemptTimeout(Duration.ofMillis(timeoutMs)).interruptOnAttemptTimeout(true)
        .maxElapsed(Duration.ofMillis(deadlineMs))
        .clock(time).sleeper(new RecordingSleeper(time)).build())
        .withScheduler((task, nanos) -> watchdogs.schedule(task, nanos, TimeUnit.NANOSECONDS));
    AtomicInteger attempts = new AtomicInteger();
    long firstMs = Math.min(firstAttemptMs, Math.min(timeoutMs, deadlineMs) - 1); // ends before its watchdog

    catchThrowable(() -> retry.call(() -> {
      if (attempts.incrementAndGet() == 1) {
        time.advance(Duration.ofMillis(firstMs));
      }
      throw new IOException("attempt " + attempts.get());
    }));

    List<Duration> waits = watchdogs.delays();
    assertThat(waits.get(0)).isEqualTo(Duration.ofMillis(Math.min(timeoutMs, deadlineMs)));
    if (firstMs + backoffMs <= deadlineMs) {
      assertThat(attempts).hasValue(2);
      assertThat(waits).hasSize(2);
      assertThat(waits.get(1)).isEqualTo(Duration.ofMillis(Math.max(1, Math.min(timeoutMs, deadlineMs - firstMs - backoffMs))));
    } else {
      assertThat(attempts).hasValue(1); // the retry would end past the deadline
      assertThat(waits).hasSize(1);
    }
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Property(tries = 300)
  void theAsyncTimerWaitsTheTimeoutClippedToTheDeadline(
      @ForAll @LongRange(min = 1, max = 10_000) long timeoutMs,
      @ForAll @LongRange(min = 200, max = 20_000) long deadlineMs,
      @ForAll @LongRange(min = 0, max = 20_000) long firstAttemptMs) {
    FakeClock time = new FakeClock();
    FakeScheduler timers = new FakeScheduler(time);
    long backoffMs = 100;
    AsyncRetryExecutor<String> retry = AsyncRetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(2).backoff(Backoff.fixed(Duration.ofMillis(backoffMs)))
        .attemptTimeout(Duration.ofMillis(timeoutMs)).maxElapsed(Duration.ofMillis(deadlineMs))
        .clock(time).build(), timers);
    List<CompletableFuture<String>> stages = new CopyOnWriteArrayList<>();
    long firstMs = Math.min(firstAttemptMs, Math.min(timeoutMs, deadlineMs) - 1); // ends before its timer

    CompletableFuture<String> call = retry.call(() -> {
      CompletableFuture<String> stage = new CompletableFuture<>();
      stages.add(stage);
      return stage;
    });
    timers.advance(Duration.ofMillis(firstMs));
    stages.get(0).completeExceptionally(new IOException("first"));
    timers.advance(Duration.ofSeconds(60));

    assertThat(call).isCompletedExceptionally();
    List<Duration> waits = timers.delays();
    assertThat(waits.get(0)).isEqualTo(Duration.ofMillis(Math.min(timeoutMs, deadlineMs)));
    if (firstMs + backoffMs <= deadlineMs) {
      assertThat(stages).hasSize(2);
      assertThat(waits).containsExactly(waits.get(0), Duration.ofMillis(backoffMs),
          Duration.ofMillis(Math.max(1, Math.min(timeoutMs, deadlineMs - firstMs - backoffMs))));
    } else {
      assertThat(stages).hasSize(1);
    }
  }
}
