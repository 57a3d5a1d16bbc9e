package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FakeSchedulerTest {
  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 50); // due times wrap past Long.MAX_VALUE
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final List<String> log = new ArrayList<>();
  private final long start = clock.nanoTime();

  private Runnable record(String name) {
    return () -> log.add(name + "@" + (clock.nanoTime() - start));
  }

  @Test
  void runsTasksInDueOrderAtTheirDueTimes() {
    scheduler.schedule(record("c"), 300, TimeUnit.NANOSECONDS);
    scheduler.schedule(record("a"), 100, TimeUnit.NANOSECONDS);
    scheduler.schedule(record("b"), 100, TimeUnit.NANOSECONDS); // same time: in scheduling order
    assertThat(scheduler.pending()).isEqualTo(3);
    assertThat(scheduler.advance(Duration.ofNanos(250))).isEqualTo(2);
    assertThat(log).containsExactly("a@100", "b@100");
    assertThat(clock.nanoTime() - start).isEqualTo(250);
    assertThat(scheduler.runNext()).isTrue();
    assertThat(log).containsExactly("a@100", "b@100", "c@300");
    assertThat(scheduler.runNext()).isFalse();
    assertThat(scheduler.ran()).isEqualTo(3);
    assertThat(scheduler.delays()).containsExactly(Duration.ofNanos(300), Duration.ofNanos(100), Duration.ofNanos(100));
  }

  @Test
  void runDueRunsOnlyWhatIsDueAndTasksThatTheyScheduleForNow() {
    scheduler.execute(() -> {
      log.add("first");
      scheduler.execute(record("second"));
    });
    scheduler.schedule(record("later"), 1, TimeUnit.SECONDS);
    assertThat(scheduler.runDue()).isEqualTo(2);
    assertThat(log).containsExactly("first", "second@0");
    assertThat(clock.nanoTime()).isEqualTo(start);
  }

  @Test
  void cancelledTasksLeaveTheQueueAndNeverRun() {
    ScheduledFuture<?> task = scheduler.schedule(record("x"), 10, TimeUnit.MILLISECONDS);
    assertThat(task.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(10);
    assertThat(task.cancel(false)).isTrue();
    assertThat(scheduler.pending()).isZero();
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(log).isEmpty();
    assertThat(task.isCancelled()).isTrue();
  }

  @Test
  void callablesCompleteTheirFutures() throws Exception {
    ScheduledFuture<String> task = scheduler.schedule(() -> "done", 5, TimeUnit.SECONDS);
    assertThat(task.isDone()).isFalse();
    scheduler.advance(Duration.ofSeconds(5));
    assertThat(task.get()).isEqualTo("done");
  }

  @Test
  void periodicTasksRepeatUntilCancelled() {
    ScheduledFuture<?> task = scheduler.scheduleAtFixedRate(record("tick"), 10, 20, TimeUnit.NANOSECONDS);
    scheduler.advance(Duration.ofNanos(55));
    assertThat(log).containsExactly("tick@10", "tick@30", "tick@50");
    task.cancel(false);
    scheduler.advance(Duration.ofNanos(100));
    assertThat(log).hasSize(3);
    assertThatThrownBy(() -> scheduler.scheduleWithFixedDelay(record("x"), 0, 0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("delay must be positive, was 0 ns");
  }

  @Test
  void shutdownRejectsNewTasks() {
    scheduler.schedule(record("queued"), 1, TimeUnit.SECONDS);
    scheduler.shutdown();
    assertThat(scheduler.isShutdown()).isTrue();
    assertThat(scheduler.isTerminated()).isFalse();
    assertThatThrownBy(() -> scheduler.execute(record("late"))).isInstanceOf(RejectedExecutionException.class);
    assertThat(scheduler.shutdownNow()).hasSize(1);
    assertThat(scheduler.isTerminated()).isTrue();
    assertThatThrownBy(() -> scheduler.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("duration must not be negative, was PT-1S");
    assertThatThrownBy(() -> new FakeScheduler(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("clock must not be null");
  }
}
