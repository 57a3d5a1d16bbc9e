package dev.backoff.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler that records each requested delay and either runs the task at once (fake time) or holds it
 * for an hour (so a test can act "during the backoff"). For tests only.
 */
final class RecordingScheduler extends ScheduledThreadPoolExecutor {
  private final boolean runAtOnce;
  private final List<Long> delays = new ArrayList<>();
  private final List<Runnable> commands = new ArrayList<>();
  private final List<ScheduledFuture<?>> futures = new ArrayList<>();
  final CountDownLatch firstScheduled = new CountDownLatch(1);

  RecordingScheduler(boolean runAtOnce) {
    super(1);
    this.runAtOnce = runAtOnce;
    setRemoveOnCancelPolicy(true);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    ScheduledFuture<?> future = super.schedule(command, runAtOnce ? 0 : 1, runAtOnce ? TimeUnit.NANOSECONDS
        : TimeUnit.HOURS);
    synchronized (this) {
      delays.add(unit.toNanos(delay));
      commands.add(command);
      futures.add(future);
    }
    firstScheduled.countDown();
    return future;
  }

  /** The core's async loop schedules its retry as a Callable (the call is its own task): the same rules. */
  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    ScheduledFuture<V> future = super.schedule(callable, runAtOnce ? 0 : 1, runAtOnce ? TimeUnit.NANOSECONDS
        : TimeUnit.HOURS);
    synchronized (this) {
      delays.add(unit.toNanos(delay));
      commands.add(() -> {
        try {
          callable.call();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      futures.add(future);
    }
    firstScheduled.countDown();
    return future;
  }

  synchronized List<Long> delays() {
    return List.copyOf(delays);
  }

  synchronized List<Runnable> commands() {
    return List.copyOf(commands);
  }

  synchronized List<ScheduledFuture<?>> futures() {
    return List.copyOf(futures);
  }
}
