package dev.backoff.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} that runs nothing by itself: tasks wait in a queue ordered by due time
 * until the test moves time with {@link #advance}, or runs them with {@link #runNext()} / {@link #runDue()},
 * always on the test's own thread. Time is a {@link FakeClock}, which it moves forward to each task's due
 * time, so asynchronous retry code runs deterministically and in zero real time.
 *
 * <p>Thread-safe: tasks may be scheduled and cancelled from any thread; they run outside its lock. Cancelled
 * tasks leave the queue at once. Records every delay requested.
 */
public final class FakeScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final FakeClock clock;
  private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
  private final List<Long> delays = new ArrayList<>();
  private long sequence;
  private int ran;
  private boolean shutdown;

  /** A scheduler whose time is {@code clock}. */
  public FakeScheduler(FakeClock clock) {
    if (clock == null) {
      throw new NullPointerException("clock must not be null");
    }
    this.clock = clock;
  }

  /** The clock this scheduler reads and moves. */
  public FakeClock clock() {
    return clock;
  }

  /**
   * Runs the earliest queued task, first moving the clock forward to its due time if that is later.
   *
   * @return false if no task was queued
   */
  public boolean runNext() {
    Task<?> task;
    synchronized (this) {
      task = queue.poll();
      if (task == null) {
        return false;
      }
      long wait = task.dueNanos - clock.nanoTime();
      if (wait > 0) {
        clock.advanceNanos(wait);
      }
      ran++;
    }
    task.runAndRequeue();
    return true;
  }

  /** Runs every task due now (including ones those tasks schedule for now), without moving the clock. */
  public int runDue() {
    int count = 0;
    for (;;) {
      Task<?> task;
      synchronized (this) {
        task = queue.peek();
        if (task == null || task.dueNanos - clock.nanoTime() > 0) {
          return count;
        }
        queue.poll();
        ran++;
      }
      task.runAndRequeue();
      count++;
    }
  }

  /**
   * Moves time forward by {@code duration}, running each task when its due time is reached, in order.
   *
   * @return the number of tasks run
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public int advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("duration must not be negative, was " + duration);
    }
    long end = clock.nanoTime() + duration.toNanos();
    int count = runDue();
    for (;;) {
      Task<?> task;
      synchronized (this) {
        task = queue.peek();
        if (task == null || task.dueNanos - end > 0) {
          break;
        }
        queue.poll();
        long wait = task.dueNanos - clock.nanoTime();
        if (wait > 0) {
          clock.advanceNanos(wait);
        }
        ran++;
      }
      task.runAndRequeue();
      count++;
    }
    long rest = end - clock.nanoTime();
    if (rest > 0) {
      clock.advanceNanos(rest);
    }
    return count;
  }

  /** How many tasks are queued (cancelled ones excluded). */
  public synchronized int pending() {
    return queue.size();
  }

  /** How many tasks have been run. */
  public synchronized int ran() {
    return ran;
  }

  /** Every delay requested so far, in order. */
  public synchronized List<Duration> delays() {
    List<Duration> result = new ArrayList<>(delays.size());
    for (long nanos : delays) {
      result.add(Duration.ofNanos(nanos));
    }
    return result;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return enqueue(new Task<>(Executors.callable(command, null), unit.toNanos(delay), 0));
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return enqueue(new Task<>(callable, unit.toNanos(delay), 0));
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    return enqueue(new Task<>(Executors.callable(command, null), unit.toNanos(initialDelay),
        positive("period", unit.toNanos(period))));
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return enqueue(new Task<>(Executors.callable(command, null), unit.toNanos(initialDelay),
        positive("delay", unit.toNanos(delay))));
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  /** Stops accepting tasks; queued ones stay queued (run them or not). */
  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  /** Stops accepting tasks and returns the queued ones, which are dropped. */
  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    List<Runnable> dropped = new ArrayList<>(queue);
    queue.clear();
    return dropped;
  }

  @Override
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown && queue.isEmpty();
  }

  /** Returns at once: nothing runs unless the test runs it. */
  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }

  private static long positive(String name, long nanos) {
    if (nanos <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + nanos + " ns");
    }
    return nanos;
  }

  private synchronized <V> Task<V> enqueue(Task<V> task) {
    if (shutdown) {
      throw new RejectedExecutionException("the fake scheduler is shut down");
    }
    delays.add(task.delayNanos);
    task.dueNanos = clock.nanoTime() + Math.max(0, task.delayNanos);
    task.sequence = sequence++;
    queue.add(task);
    return task;
  }

  private synchronized void requeue(Task<?> task) {
    if (!shutdown && !task.isCancelled()) {
      task.dueNanos = clock.nanoTime() + task.periodNanos;
      task.sequence = sequence++;
      queue.add(task);
    }
  }

  private synchronized void remove(Task<?> task) {
    queue.remove(task);
  }

  @Override
  public synchronized String toString() {
    return "FakeScheduler[" + queue.size() + " pending at " + clock + "]";
  }

  private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
    final long delayNanos;
    final long periodNanos;
    long dueNanos;
    long sequence;

    Task(Callable<V> callable, long delayNanos, long periodNanos) {
      super(callable);
      this.delayNanos = delayNanos;
      this.periodNanos = periodNanos;
    }

    void runAndRequeue() {
      if (periodNanos == 0) {
        run();
      } else if (runAndReset()) {
        requeue(this);
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      remove(this);
      return cancelled;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueNanos - clock.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      if (other instanceof FakeScheduler.Task) {
        Task<?> that = (Task<?>) other;
        long difference = dueNanos - that.dueNanos; // readings may wrap: compare differences only
        if (difference != 0) {
          return difference < 0 ? -1 : 1;
        }
        return Long.compare(sequence, that.sequence);
      }
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }
  }
}
