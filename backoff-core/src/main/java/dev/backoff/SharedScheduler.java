package dev.backoff;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The default scheduler of {@link AsyncRetryExecutor}: shared by the whole JVM, so nobody may shut it down. */
final class SharedScheduler implements ScheduledExecutorService {
  static final SharedScheduler INSTANCE = new SharedScheduler();

  private final ScheduledThreadPoolExecutor delegate;

  private SharedScheduler() {
    delegate = new ScheduledThreadPoolExecutor(1, task -> {
      Thread thread = new Thread(task, "backoff-retry-scheduler");
      thread.setDaemon(true);
      return thread;
    });
    delegate.setRemoveOnCancelPolicy(true); // a cancelled retry must not stay queued until its time
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return delegate.schedule(command, delay, unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return delegate.schedule(callable, delay, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    return delegate.scheduleAtFixedRate(command, initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return delegate.scheduleWithFixedDelay(command, initialDelay, delay, unit);
  }

  @Override
  public void shutdown() {
    throw new UnsupportedOperationException("the shared default retry scheduler cannot be shut down");
  }

  @Override
  public List<Runnable> shutdownNow() {
    throw new UnsupportedOperationException("the shared default retry scheduler cannot be shut down");
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return delegate.awaitTermination(timeout, unit);
  }

  @Override
  public <V> Future<V> submit(Callable<V> task) {
    return delegate.submit(task);
  }

  @Override
  public <V> Future<V> submit(Runnable task, V result) {
    return delegate.submit(task, result);
  }

  @Override
  public Future<?> submit(Runnable task) {
    return delegate.submit(task);
  }

  @Override
  public <V> List<Future<V>> invokeAll(Collection<? extends Callable<V>> tasks) throws InterruptedException {
    return delegate.invokeAll(tasks);
  }

  @Override
  public <V> List<Future<V>> invokeAll(Collection<? extends Callable<V>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException {
    return delegate.invokeAll(tasks, timeout, unit);
  }

  @Override
  public <V> V invokeAny(Collection<? extends Callable<V>> tasks) throws InterruptedException, ExecutionException {
    return delegate.invokeAny(tasks);
  }

  @Override
  public <V> V invokeAny(Collection<? extends Callable<V>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    return delegate.invokeAny(tasks, timeout, unit);
  }

  @Override
  public void execute(Runnable command) {
    delegate.execute(command);
  }

  @Override
  public String toString() {
    return "backoff shared retry scheduler " + delegate;
  }
}
