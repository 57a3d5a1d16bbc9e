package dev.backoff.reactor;

import dev.backoff.NanoClock;
import dev.backoff.RetryScheduler;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * A {@link RetryScheduler} over a Reactor {@link Scheduler}: each retry is a delayed task on it, so retries
 * wait without a thread and follow the scheduler's time (virtual time under
 * {@code StepVerifier.withVirtualTime} or a {@code VirtualTimeScheduler}). Immutable and thread-safe.
 */
public final class ReactorRetryScheduler implements RetryScheduler {
  private final Scheduler scheduler;

  private ReactorRetryScheduler(Scheduler scheduler) {
    this.scheduler = scheduler;
  }

  /**
   * A retry scheduler that runs retries on {@code scheduler}.
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public static ReactorRetryScheduler of(Scheduler scheduler) {
    if (scheduler == null) {
      throw new NullPointerException("scheduler must not be null");
    }
    return new ReactorRetryScheduler(scheduler);
  }

  /**
   * A clock reading {@code scheduler}'s time, {@link Scheduler#now(TimeUnit) now(NANOSECONDS)}: for a policy's
   * deadline measured in the same (virtual) time the retries wait in. Reactor's ordinary schedulers report
   * wall-clock milliseconds, which may jump; use it with a virtual-time scheduler, and the system's monotonic
   * clock (the policy's default) otherwise.
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public static NanoClock clock(Scheduler scheduler) {
    if (scheduler == null) {
      throw new NullPointerException("scheduler must not be null");
    }
    return () -> scheduler.now(TimeUnit.NANOSECONDS);
  }

  /** The Reactor scheduler retries run on. */
  public Scheduler scheduler() {
    return scheduler;
  }

  /**
   * Schedules {@code task} on the Reactor scheduler after {@code delayNanos} (at once if not positive).
   *
   * @return a handle whose {@code cancel} disposes the task; {@code get} is not supported (the retry loop
   *     never waits on it)
   * @throws java.util.concurrent.RejectedExecutionException if the scheduler is disposed or refuses the task
   */
  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
    Disposable disposable = delayNanos <= 0 ? scheduler.schedule(task)
        : scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return new DisposableFuture(disposable);
  }

  @Override
  public String toString() {
    return "ReactorRetryScheduler[" + scheduler + "]";
  }

  /** A {@link Disposable} seen as the {@link Future} the retry loop cancels. */
  private static final class DisposableFuture implements Future<Object> {
    private final Disposable disposable;

    DisposableFuture(Disposable disposable) {
      this.disposable = disposable;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (disposable.isDisposed()) {
        return false;
      }
      disposable.dispose();
      return true;
    }

    @Override
    public boolean isCancelled() {
      return disposable.isDisposed();
    }

    @Override
    public boolean isDone() {
      return disposable.isDisposed();
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException("a Reactor task's handle cannot be waited on");
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException("a Reactor task's handle cannot be waited on");
    }
  }
}
