package dev.backoff.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.NanoClock;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

class ReactorRetrySchedulerTest {
  private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
  private final ReactorRetryScheduler scheduler = ReactorRetryScheduler.of(time);
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void runsATaskWhenItsDelayHasPassed() {
    scheduler.schedule(runs::incrementAndGet, Duration.ofMillis(100).toNanos());
    time.advanceTimeBy(Duration.ofNanos(Duration.ofMillis(100).toNanos() - 1));
    assertThat(runs).hasValue(0);
    time.advanceTimeBy(Duration.ofNanos(1));
    assertThat(runs).hasValue(1);
  }

  @Test
  void runsATaskWithNoDelayWithoutWaiting() {
    scheduler.schedule(runs::incrementAndGet, 0);
    scheduler.schedule(runs::incrementAndGet, -5);
    time.advanceTime();
    assertThat(runs).hasValue(2);
    assertThat(time.now(java.util.concurrent.TimeUnit.NANOSECONDS)).isZero();
  }

  @Test
  void aCancelledTaskNeverRuns() {
    Future<?> handle = scheduler.schedule(runs::incrementAndGet, Duration.ofSeconds(1).toNanos());
    assertThat(handle.isCancelled()).isFalse();
    assertThat(handle.cancel(false)).isTrue();
    assertThat(handle.cancel(false)).isFalse();
    assertThat(handle.isCancelled()).isTrue();
    assertThat(handle.isDone()).isTrue();
    time.advanceTimeBy(Duration.ofHours(1));
    assertThat(runs).hasValue(0);
    assertThatThrownBy(handle::get).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aDisposedSchedulerRefusesTasks() {
    time.dispose();
    assertThatThrownBy(() -> scheduler.schedule(runs::incrementAndGet, 1))
        .isInstanceOf(RejectedExecutionException.class);
  }

  @Test
  void itsClockReadsTheSchedulersTime() {
    NanoClock clock = ReactorRetryScheduler.clock(time);
    time.advanceTimeBy(Duration.ofMillis(1234));
    assertThat(clock.nanoTime()).isEqualTo(Duration.ofMillis(1234).toNanos());
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> ReactorRetryScheduler.of(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("scheduler must not be null");
    assertThatThrownBy(() -> ReactorRetryScheduler.clock(null)).hasMessage("scheduler must not be null");
    assertThat(scheduler.scheduler()).isSameAs(time);
  }
}
