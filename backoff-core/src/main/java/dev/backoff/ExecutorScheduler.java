package dev.backoff;

import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** {@link RetryScheduler#of}: retries wait on a {@link ScheduledExecutorService}. Thread-safe. */
final class ExecutorScheduler implements RetryScheduler {
  final ScheduledExecutorService executor;

  ExecutorScheduler(ScheduledExecutorService executor) {
    this.executor = executor;
  }

  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
    // The core's pending retry is a Callable too: scheduled as one, the executor wraps it in its own task
    // without the adapter object it would add around a Runnable.
    if (task instanceof Callable<?> callable) {
      return executor.schedule(callable, delayNanos, TimeUnit.NANOSECONDS);
    }
    return executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public String toString() {
    return "RetryScheduler.of(" + executor + ")";
  }
}
