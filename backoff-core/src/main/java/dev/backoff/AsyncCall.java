package dev.backoff;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Supplier;

/**
 * One asynchronous call: the future handed to the caller, and also the task scheduled for each retry (as a
 * {@link Callable}, so the scheduler needs no adapter object), which keeps a waiting call small.
 *
 * <p>Ownership of the (not thread-safe) {@link Execution} passes between threads through {@link #state}: the
 * thread that moves it out of {@link #WAITING} by compare-and-set (the retry task, or a canceller) owns the
 * call until it sets {@link #WAITING} or {@link #DONE} again; an attempt's completion handler owns it while
 * {@link #RUNNING}. That compare-and-set is also what guarantees that no attempt starts after cancellation.
 */
final class AsyncCall<R, T extends R> extends CompletableFuture<T> implements Callable<Object> {
  private static final int RUNNING = 0;
  private static final int WAITING = 1;
  private static final int DONE = 2;
  private static final int MAX_UNWRAP_DEPTH = 16;
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<AsyncCall> STATE =
      AtomicIntegerFieldUpdater.newUpdater(AsyncCall.class, "state");

  private final AsyncRetryExecutor<R> executor;
  private final Supplier<? extends CompletionStage<T>> supplier;
  private Execution<R> execution; // created on the first failure; guarded by state
  private long startNanos;
  private volatile int state = RUNNING;
  private volatile Future<?> pending; // the scheduled retry, best effort for cancellation
  private volatile CompletionStage<T> inFlight;

  AsyncCall(AsyncRetryExecutor<R> executor, Supplier<? extends CompletionStage<T>> supplier) {
    this.executor = executor;
    this.supplier = supplier;
  }

  void start() {
    if (executor.policy.needsStartTime) {
      startNanos = executor.clock.nanoTime();
    }
    attempt();
  }

  /** The scheduled retry. */
  @Override
  public Object call() {
    if (!STATE.compareAndSet(this, WAITING, RUNNING)) {
      return null; // cancelled: no attempt
    }
    if (isDone()) {
      // Completed by the caller after this task won the race: stop without another attempt.
      state = DONE;
      execution.abort(StopReason.CANCELLED, executor.clock.nanoTime());
      return null;
    }
    attempt();
    return null;
  }

  private void attempt() {
    CompletionStage<T> stage;
    try {
      stage = supplier.get();
      if (stage == null) {
        throw new NullPointerException("the supplier returned null instead of a CompletionStage");
      }
    } catch (Throwable failure) {
      onOutcome(null, failure);
      return;
    }
    inFlight = stage;
    if (isDone()) {
      cancelStage(stage); // cancelled while the attempt was starting
    }
    try {
      stage.whenComplete((result, failure) -> onOutcome(result, failure));
    } catch (Throwable failure) {
      onOutcome(null, failure); // a stage that cannot even take a callback: a failed attempt
    }
  }

  private void onOutcome(T result, Throwable failure) {
    try {
      decide(result, failure);
    } catch (Throwable unexpected) {
      // A policy callback (predicate, classifier, pushback extractor, backoff, budget) threw. The sync
      // executor would throw it to the caller; here it completes the future, which must never hang.
      state = DONE;
      super.completeExceptionally(unexpected);
    }
  }

  private void decide(T result, Throwable failure) {
    inFlight = null;
    RetryPolicy<R> policy = executor.policy;
    Throwable cause = failure == null ? null : unwrap(failure);
    if (isDone()) {
      // The caller cancelled (or completed) the future during the attempt.
      long now = executor.clock.nanoTime();
      if (execution == null) {
        execution = new Execution<>(policy, policy.needsStartTime ? startNanos : now, executor.random);
      }
      state = DONE;
      execution.abort(StopReason.CANCELLED, now);
      return;
    }
    if (execution == null) {
      if (cause == null && (policy.retryOnResult == null || !policy.retryOnResult.test(result))) {
        // First-try success: like the sync executor, read no clock unless a deadline or listener needs it.
        state = DONE;
        if (policy.budget != null || policy.listeners.length > 0) {
          policy.recordFirstTrySuccess(result, startNanos, policy.needsStartTime ? executor.clock.nanoTime() : 0);
        }
        super.complete(result);
        return;
      }
      long now = executor.clock.nanoTime();
      execution = new Execution<>(policy, policy.needsStartTime ? startNanos : now, executor.random);
      decideAfter(cause, result, now);
      return;
    }
    decideAfter(cause, result, executor.clock.nanoTime());
  }

  @SuppressWarnings("unchecked")
  private void decideAfter(Throwable cause, T result, long now) {
    Decision decision = cause != null ? execution.onFailure(cause, now) : execution.onResult(result, now);
    if (decision.isRetry()) {
      scheduleRetry(decision.delayNanos());
      return;
    }
    state = DONE;
    if (decision.isSuccess() || execution.lastFailure() == null) {
      super.complete((T) execution.lastResult());
    } else {
      super.completeExceptionally(execution.finalFailure());
    }
  }

  private void scheduleRetry(long delayNanos) {
    state = WAITING; // before scheduling: the task may run at once on another thread
    try {
      Future<?> task = executor.scheduler.schedule((Callable<Object>) this, delayNanos, TimeUnit.NANOSECONDS);
      pending = task;
      if (isDone()) {
        // Cancelled while this retry was being decided or scheduled: the canceller may have found no task
        // to cancel, so drop it from the queue now rather than when it falls due.
        if (STATE.compareAndSet(this, WAITING, DONE)) {
          execution.abort(StopReason.CANCELLED, executor.clock.nanoTime());
        }
        task.cancel(false);
      }
    } catch (RejectedExecutionException rejected) {
      if (STATE.compareAndSet(this, WAITING, DONE)) {
        execution.abort(StopReason.CANCELLED, executor.clock.nanoTime());
        Throwable last = execution.finalFailure();
        if (last != null) {
          last.addSuppressed(rejected);
          super.completeExceptionally(last);
        } else {
          super.completeExceptionally(rejected);
        }
      }
    }
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled) {
      stopRetrying();
    }
    return cancelled;
  }

  @Override
  public boolean complete(T value) {
    boolean completed = super.complete(value);
    if (completed) {
      stopRetrying();
    }
    return completed;
  }

  @Override
  public boolean completeExceptionally(Throwable failure) {
    boolean completed = super.completeExceptionally(failure);
    if (completed) {
      stopRetrying();
    }
    return completed;
  }

  /** The future was completed from outside: cancel the pending retry, or the attempt in flight. */
  private void stopRetrying() {
    if (STATE.compareAndSet(this, WAITING, DONE)) {
      Future<?> task = pending;
      if (task != null) {
        task.cancel(false);
      }
      execution.abort(StopReason.CANCELLED, executor.clock.nanoTime());
      return;
    }
    CompletionStage<T> stage = inFlight;
    if (stage != null) {
      cancelStage(stage);
    }
  }

  private static void cancelStage(CompletionStage<?> stage) {
    try {
      stage.toCompletableFuture().cancel(true);
    } catch (UnsupportedOperationException notCancellable) {
      // A stage that cannot be viewed as a future runs to completion; its outcome is then ignored.
    }
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; depth < MAX_UNWRAP_DEPTH
        && (t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null; depth++) {
      t = t.getCause();
    }
    return t;
  }

  @Override
  public String toString() {
    return super.toString() + "[" + executor.policy.name() + "]";
  }

}
