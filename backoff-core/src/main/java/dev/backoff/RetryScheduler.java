package dev.backoff;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Where the asynchronous loop's retries wait: the one operation it needs from a timer, run a task once after
 * a delay. The default is a {@link ScheduledExecutorService} ({@link #of}); a driver for another runtime (an
 * event loop, Reactor's {@code Scheduler}, a coroutine dispatcher, a virtual-time test scheduler) implements
 * this one method instead of a whole executor service.
 *
 * <p>Implementations must be thread-safe: retries of many calls are scheduled from many threads.
 */
@FunctionalInterface
public interface RetryScheduler {
  /**
   * Runs {@code task} once, on some thread, after at least {@code delayNanos} nanoseconds (at once when the
   * delay is zero or negative). The returned handle's {@link Future#cancel cancel(false)} must keep a task
   * that has not started from ever running; its other methods are not used by the retry loop.
   *
   * @param task what to run; it does not throw
   * @param delayNanos how long to wait first, in nanoseconds
   * @return a handle that cancels the task
   * @throws java.util.concurrent.RejectedExecutionException (or any runtime exception) if the task cannot be
   *     scheduled; the call waiting for it then ends with its last failure, the exception suppressed
   */
  Future<?> schedule(Runnable task, long delayNanos);

  /**
   * A scheduler that runs tasks on {@code executor}.
   *
   * @throws NullPointerException if {@code executor} is null
   */
  static RetryScheduler of(ScheduledExecutorService executor) {
    Nanos.requireNonNull("executor", executor);
    return new ExecutorScheduler(executor);
  }
}
