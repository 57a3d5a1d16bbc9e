package dev.backoff;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.Verdict;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * The one asynchronous retry loop: {@link AsyncRetryExecutor} and every asynchronous driver (through
 * {@code dev.backoff.driver.RetryLoops}) run on it. One call is the future handed to the caller, and also
 * the task scheduled for each retry (as a {@link Callable}, so the scheduler needs no adapter object), which
 * keeps a waiting call small.
 *
 * <p>Ownership of the (not thread-safe) {@link Execution} passes between threads through {@link #state}: the
 * thread that moves it out of {@link #WAITING} by compare-and-set (the retry task, or a canceller) owns the
 * call until it sets {@link #WAITING} or {@link #DONE} again; an attempt's completion handler owns it while
 * {@link #RUNNING}.
 *
 * <p>No supplier call begins after {@code cancel} (or an outside {@code complete}) has returned true. The
 * retry task's compare-and-set {@link #WAITING} to {@link #STARTING} commits it to calling the supplier; a
 * canceller that loses that race cannot un-commit it, and would otherwise return while the supplier is
 * still about to be entered. So a canceller that finds the call {@link #STARTING} waits (spinning, no lock)
 * until the supplier has returned, which is short since suppliers must not block; the retry task itself
 * takes no lock and waits for nothing. Likewise a canceller that wins while the retry is still being handed
 * to the scheduler waits for its handle, so the pending retry is cancelled by the time {@code cancel}
 * returns.
 *
 * <p>The attempt is the executor's {@link Supplier} (judged by the policy's rules, inline) or a driver's
 * {@link AsyncAttempt} with its {@link OutcomeJudge}; "supplier" above means either.
 * The call is its own {@link AttemptContext}, so a waiting call is no bigger for it.
 *
 * <p>When the policy has an attempt timeout or listeners of attempt events, each attempt's stage is watched
 * by an {@link AttemptWatch} (allocated per attempt; the plain path allocates none): it tells those
 * listeners, and times the attempt on the scheduler.
 */
final class AsyncCall<R, T extends R> extends CallFuture<T>
    implements Callable<Object>, Runnable, AttemptContext {
  private static final int RUNNING = 0;
  private static final int WAITING = 1;
  private static final int DONE = 2;
  private static final int STARTING = 3; // a retry task is calling the supplier
  private static final int SPINS_BEFORE_YIELD = 64;
  private static final int MAX_UNWRAP_DEPTH = 16;
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<AsyncCall> STATE =
      AtomicIntegerFieldUpdater.newUpdater(AsyncCall.class, "state");
  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<AsyncCall, Future> PENDING =
      AtomicReferenceFieldUpdater.newUpdater(AsyncCall.class, Future.class, "pending");
  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<AsyncCall, CompletionStage> IN_FLIGHT =
      AtomicReferenceFieldUpdater.newUpdater(AsyncCall.class, CompletionStage.class, "inFlight");
  /** In {@link #inFlight} while a retry is handed to the scheduler and its handle is not yet in pending. */
  @SuppressWarnings("rawtypes")
  private static final CompletionStage SCHEDULING = new CompletableFuture<>();

  private final AsyncRetryExecutor<R> executor;
  private final Object attempt; // the executor's Supplier, or a driver's Hooks (one field: a waiting call stays small)
  private Execution<R> execution; // created on the first failure; guarded by state
  private long startNanos;
  private volatile int state = RUNNING;
  // The scheduled retry, for cancellation; this call itself once that retry has started (see scheduleRetry).
  private volatile Future<?> pending;
  private volatile CompletionStage<T> inFlight;
  // The thread calling the supplier while STARTING, or handing the retry to the scheduler (inFlight is then
  // SCHEDULING): written before the volatile write that publishes it.
  private Thread starter;

  AsyncCall(AsyncRetryExecutor<R> executor, Supplier<? extends CompletionStage<T>> supplier,
      Recovery<T> recovery) {
    this.executor = executor;
    // The recovery travels with the supplier, so that a call without one is no bigger for it.
    this.attempt = recovery == null ? supplier : new Recovering<>(supplier, recovery);
  }

  /** The executor's supplier with the caller's recovery. */
  private static final class Recovering<T> {
    final Supplier<? extends CompletionStage<T>> supplier;
    final Recovery<T> recovery;

    Recovering(Supplier<? extends CompletionStage<T>> supplier, Recovery<T> recovery) {
      this.supplier = supplier;
      this.recovery = recovery;
    }
  }

  AsyncCall(AsyncRetryExecutor<R> executor, AsyncAttempt<T> attempt, OutcomeJudge<R> judge) {
    this.executor = executor;
    this.attempt = new Hooks<>(attempt, judge);
  }

  /** A driver's two hooks. */
  private static final class Hooks<R, T> {
    final AsyncAttempt<T> attempt;
    final OutcomeJudge<R> judge;

    Hooks(AsyncAttempt<T> attempt, OutcomeJudge<R> judge) {
      this.attempt = attempt;
      this.judge = judge;
    }
  }

  /** The call's recovery, or null: a {@link Recovering} attempt carries the caller's. */
  @SuppressWarnings("unchecked") // a Recovering attempt is made for this call's T
  private Recovery<T> recovery() {
    return attempt instanceof Recovering ? ((Recovering<T>) attempt).recovery : null;
  }

  @SuppressWarnings("unchecked")
  void start() {
    RetryPolicy<R> policy = executor.policy;
    CircuitBreaker.Permit permit = CallMachine.admit(policy);
    if (CallMachine.isRefusal(permit)) {
      state = DONE;
      try {
        settle(SyncLoop.refused(policy, permit, recovery()));
      } catch (Throwable refusal) {
        settleExceptionally(refusal);
      }
      return;
    }
    startNanos = CallMachine.startNanos(policy, executor.clock);
    if (policy.rateLimiter != null && !passedRateGate(startNanos, permit)) {
      return;
    }
    startAttempt(permit);
  }

  @Override
  public int attempt() {
    Execution<R> e = execution; // read by the attempt's own thread, which owns the call while it starts
    return e == null ? 1 : e.attempts() + 1;
  }

  @Override
  public long nanosLeft() {
    return SyncLoop.timeLeft(executor.policy.maxElapsedNanos, startNanos, executor.clock);
  }

  /** The scheduled retry, for a {@link RetryScheduler} that takes it as a {@link Runnable}. */
  @Override
  public void run() {
    call();
  }

  /** The scheduled retry. */
  @Override
  public Object call() {
    starter = Thread.currentThread();
    if (!STATE.compareAndSet(this, WAITING, STARTING)) {
      return null; // cancelled: no attempt
    }
    pending = this; // this retry has started: a late handle for it must not replace the next retry's
    if (isDone()) {
      // Completed by the caller after this task won the race: stop without another attempt (and give the
      // budget back the retry, which never started).
      state = DONE;
      IN_FLIGHT.compareAndSet(this, SCHEDULING, null);
      stopCancelled();
      return null;
    }
    // The wait is over: the machine asks the gate (after a rate limiter's wait, the token held is this attempt's).
    CircuitBreaker.Permit permit = CallMachine.admit(execution);
    long effect;
    try {
      effect = CallMachine.timerFired(execution, permit, executor.clock);
    } catch (Throwable unexpected) {
      IN_FLIGHT.compareAndSet(this, SCHEDULING, null);
      state = DONE;
      settleExceptionally(unexpected);
      return null;
    }
    long wait = CallMachine.waitNanos(effect);
    if (wait >= 0) { // wait for the limiter's token, then ask the breaker again; or re-check: the whole gate
      scheduleRetry(wait);
      return null;
    }
    if (effect == CallMachine.STOPPED) { // a gate refused the retry: the call ends as when its attempts run out
      IN_FLIGHT.compareAndSet(this, SCHEDULING, null);
      state = DONE;
      try {
        if (execution.attempts() == 0) { // the first attempt, refused after its wait for the rate limiter
          settle(CallMachine.isRefusal(permit) ? SyncLoop.refused(executor.policy, permit, recovery())
              : RateGate.refusedFirst(executor.policy, execution.stopReason(), recovery()));
        } else {
          settle(false);
        }
      } catch (Throwable unexpected) {
        settleExceptionally(unexpected); // the refusal; a listener cannot throw; a recovery's failure is settled
      }
      return null;
    }
    // The retry starts: a retried result it replaces goes back to a driver's hook (Execution.takeHeldResult).
    discardHeld();
    startAttempt(permit);
    return null;
  }

  /**
   * The machine's gate for the first attempt, rate limiter half. Returns true if the attempt may start now;
   * otherwise the call has either completed (refused, or a wait past the deadline) or is scheduled to run
   * again after the wait, holding its token (the first attempt's wait creates the execution early, so that
   * the waiting call's stop gives the token back). The machine gave the breaker's permit back: a waiting call
   * holds none, and asks the breaker again when its wait is over.
   */
  @SuppressWarnings("unchecked")
  private boolean passedRateGate(long callStartNanos, CircuitBreaker.Permit permit) {
    RetryPolicy<R> policy = executor.policy;
    long effect = CallMachine.meter(policy, null, callStartNanos, executor.clock, permit);
    if (effect == CallMachine.START) {
      return true;
    }
    long wait = CallMachine.waitNanos(effect);
    if (wait >= 0) { // a firm wait holds its token; a re-check holds nothing and asks the whole gate again
      execution = FirstAttempt.failed(policy, startNanos, executor.clock.nanoTime(), executor.random, identity());
      execution.rateTokenHeld(effect >= 0);
      scheduleRetry(wait);
      return false;
    }
    state = DONE;
    try {
      settle(RateGate.refusedFirst(policy, CallMachine.refusal(effect), recovery()));
    } catch (Throwable stopped) {
      settleExceptionally(stopped); // the refusal, or a recovery's failure
    }
    return false;
  }

  /**
   * Starts an attempt with its circuit breaker permit (or null). The permit is not stored in this call (a
   * waiting call holds none): it travels with the attempt's completion handler to the outcome it reports.
   */
  @SuppressWarnings("unchecked")
  private void startAttempt(CircuitBreaker.Permit permit) {
    RetryPolicy<R> policy = executor.policy;
    AttemptWatch<R, T> watch = policy.attemptListeners.length == 0 && policy.attemptTimeoutNanos == Long.MAX_VALUE
        ? null : new AttemptWatch<>(this, permit);
    CompletionStage<T> stage;
    try {
      stage = attempt instanceof Hooks ? ((Hooks<R, T>) attempt).attempt.start(this)
          : attempt instanceof Recovering ? ((Recovering<T>) attempt).supplier.get()
          : ((Supplier<? extends CompletionStage<T>>) attempt).get();
      if (stage == null) {
        throw new NullPointerException("the attempt returned null instead of a CompletionStage");
      }
    } catch (Throwable failure) {
      supplierReturned();
      if (watch != null) {
        watch.accept(null, failure);
      } else {
        onOutcome(null, failure, permit);
      }
      return;
    }
    inFlight = stage; // before supplierReturned: a canceller that waited then finds the stage to cancel
    supplierReturned();
    if (isDone()) {
      cancelStage(stage); // cancelled while the attempt was starting
    }
    if (watch != null) {
      watch.watch(stage);
      return;
    }
    try {
      if (permit == null) {
        stage.whenComplete((result, failure) -> onOutcome(result, failure, null));
      } else {
        stage.whenComplete((result, failure) -> onOutcome(result, failure, permit));
      }
    } catch (Throwable failure) {
      onOutcome(null, failure, permit); // a stage that cannot even take a callback: a failed attempt
    }
  }

  /**
   * One attempt's watcher, on the watched path: tells the attempt listeners that it started and finished,
   * and ends it with a {@link TimeoutException} (cancelling its stage) if the policy's attempt timeout,
   * clipped to the deadline, passes first. Whichever comes first, the stage's outcome or the timer, moves
   * {@link #settled} and hands the outcome to the call; a result arriving later is discarded.
   */
  private static final class AttemptWatch<R, T extends R> implements Runnable, BiConsumer<T, Throwable> {
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<AttemptWatch> SETTLED =
        AtomicIntegerFieldUpdater.newUpdater(AttemptWatch.class, "settled");

    private final AsyncCall<R, T> call;
    private final CircuitBreaker.Permit permit; // the attempt's, or null
    private final int number;
    private final long began;
    private long timeoutNanos;
    private CompletionStage<T> stage;
    private volatile Future<?> timer;
    private volatile int settled;

    AttemptWatch(AsyncCall<R, T> call, CircuitBreaker.Permit permit) {
      this.call = call;
      this.permit = permit;
      this.number = call.attempt();
      RetryPolicy<R> policy = call.executor.policy;
      if (policy.attemptListeners.length > 0) {
        began = call.executor.clock.nanoTime();
        Listeners.tell(policy.attemptListeners, Listeners.ATTEMPT_STARTED,
            new RetryEvent<>(policy.name, number, began - call.startNanos(), null, null, null, 0, null, 0, call));
      } else {
        began = 0;
      }
    }

    /** Watches the attempt's stage: its outcome, and the timer if the policy has an attempt timeout. */
    void watch(CompletionStage<T> attemptStage) {
      this.stage = attemptStage;
      RetryPolicy<R> policy = call.executor.policy;
      boolean completed = attemptStage instanceof CompletableFuture<?> future && future.isDone();
      if (policy.attemptTimeoutNanos != Long.MAX_VALUE && !completed) {
        timeoutNanos = policy.attemptTimeoutNanos(call.nanosLeft());
        try {
          Future<?> scheduled = call.executor.scheduler.schedule(this, timeoutNanos);
          timer = scheduled;
          if (settled != 0) {
            scheduled.cancel(false); // the outcome arrived while the timer was being scheduled
          }
        } catch (RuntimeException rejected) {
          // Without its timer the attempt could run past its timeout unnoticed: it fails instead, and the
          // policy decides whether to retry (a scheduler that was shut down will refuse the retry too).
          if (SETTLED.compareAndSet(this, 0, 1)) {
            cancelStage(attemptStage);
            finish(null, rejected);
          }
          return;
        }
      }
      try {
        attemptStage.whenComplete(this);
      } catch (Throwable failure) {
        accept(null, failure); // a stage that cannot even take a callback: a failed attempt
      }
    }

    /** The attempt's time is up. */
    @Override
    public void run() {
      if (!SETTLED.compareAndSet(this, 0, 1)) {
        return;
      }
      cancelStage(stage);
      finish(null, new TimeoutException("attempt " + number + " took longer than its timeout, "
          + Duration.ofNanos(timeoutNanos).truncatedTo(ChronoUnit.MILLIS)));
    }

    /** The attempt's outcome. */
    @Override
    public void accept(T result, Throwable failure) {
      if (!SETTLED.compareAndSet(this, 0, 1)) {
        call.discard(result); // timed out before: nobody will read it
        return;
      }
      Future<?> scheduled = timer;
      if (scheduled != null) {
        scheduled.cancel(false);
      }
      finish(result, failure);
    }

    private void finish(T result, Throwable failure) {
      RetryPolicy<R> policy = call.executor.policy;
      if (policy.attemptListeners.length > 0) {
        long ended = call.executor.clock.nanoTime();
        Listeners.tell(policy.attemptListeners, Listeners.ATTEMPT_FINISHED, new RetryEvent<>(policy.name, number,
            ended - call.startNanos(), result, failure == null ? null : unwrap(failure), null, 0, null,
            ended - began, call));
      }
      call.onOutcome(result, failure, permit);
    }
  }

  /** The call's identity in listener events: itself, when the policy has listeners of attempt events. */
  private Object identity() {
    return executor.policy.attemptListeners.length == 0 ? null : this;
  }

  /** The call's start: the clock's reading, or 0 if the policy needs none (then no attempt event is sent). */
  private long startNanos() {
    return startNanos;
  }

  /** Lets a canceller waiting for the supplier go on; the first attempt (never STARTING) writes nothing. */
  private void supplierReturned() {
    if (state == STARTING) {
      state = RUNNING; // only this thread changes the state while STARTING
    }
  }

  private void onOutcome(T result, Throwable failure, CircuitBreaker.Permit permit) {
    try {
      decide(result, failure, permit);
    } catch (Throwable unexpected) {
      discard(result);
      // A policy callback (predicate, classifier, pushback extractor, backoff, budget) threw. The sync
      // executor would throw it to the caller; here it completes the future, which must never hang. The
      // attempt's permit has been reported or released by then (by decide, or by the execution).
      state = DONE;
      settleExceptionally(unexpected);
    }
  }

  @SuppressWarnings("unchecked")
  private void decide(T result, Throwable failure, CircuitBreaker.Permit permit) {
    inFlight = null;
    RetryPolicy<R> policy = executor.policy;
    Throwable cause = failure == null ? null : unwrap(failure);
    if (isDone()) {
      // The caller cancelled (or completed) the future during the attempt: its outcome says nothing.
      CallMachine.release(permit);
      long now = executor.clock.nanoTime();
      if (execution == null) {
        execution = FirstAttempt.failed(policy, startNanos, now, executor.random, identity());
      }
      state = DONE;
      discard((T) CallMachine.stopInFlight(execution, StopReason.CANCELLED, now));
      discard(result);
      return;
    }
    Verdict verdict;
    try {
      verdict = CallMachine.judge(policy, judge(), result, cause, false);
    } catch (RuntimeException | Error unexpected) {
      CallMachine.release(permit);
      throw unexpected;
    }
    if (execution == null) {
      if (verdict == Verdict.ACCEPT) {
        // First-try success: like the sync loop, read no clock unless a deadline or listener needs it.
        CallMachine.firstAccepted(policy, result, cause, startNanos, executor.clock, permit, identity());
        state = DONE;
        if (!settle(result)) {
          discard(result);
        }
        return;
      }
      long now = executor.clock.nanoTime();
      execution = CallMachine.firstFailed(policy, startNanos, now, executor.random, identity(), permit);
      decideAfter(cause, result, verdict, now, permit);
      return;
    }
    decideAfter(cause, result, verdict, executor.clock.nanoTime(), permit);
  }

  /** The driver's judge, or null for the executor's supplier (the policy's rules). */
  @SuppressWarnings("unchecked")
  private OutcomeJudge<R> judge() {
    return attempt instanceof Hooks ? ((Hooks<R, T>) attempt).judge : null;
  }

  /** A result nobody will read: the driver may release it (an HTTP body's connection). */
  @SuppressWarnings("unchecked")
  private void discard(T result) {
    if (attempt instanceof Hooks && result != null) {
      try {
        ((Hooks<R, T>) attempt).attempt.discard(result);
      } catch (RuntimeException ignored) {
        // Releasing an unwanted result is best effort: the call has its outcome already.
      }
    }
  }

  /** The machine's cancel input: no further attempt; a result the call held goes back to a driver's hook. */
  @SuppressWarnings("unchecked")
  private void stopCancelled() {
    discard((T) CallMachine.stop(execution, StopReason.CANCELLED, executor.clock));
  }

  /** Hands a held retried result back to a driver's hook (see {@link Execution#takeHeldResult}). */
  @SuppressWarnings("unchecked")
  private void discardHeld() {
    discard((T) execution.takeHeldResult());
  }

  /** Records the outcome with the attempt's permit (the execution reports it, or releases it if a callback throws). */
  private void decideAfter(Throwable cause, T result, Verdict verdict, long now, CircuitBreaker.Permit permit) {
    long decision = CallMachine.record(execution, result, cause, verdict, now, permit);
    if (decision >= 0) {
      scheduleRetry(decision); // a retried result stays held until the retry starts (Execution.takeHeldResult)
      return;
    }
    state = DONE;
    settle(decision == Execution.SUCCEEDED);
  }

  /** Completes the future of a call that has stopped, or succeeded after retries ({@code succeeded}). */
  @SuppressWarnings("unchecked")
  private void settle(boolean succeeded) {
    if (succeeded) {
      T last = (T) execution.lastResult();
      if (!settle(last)) {
        discard(last);
      }
    } else if (attempt instanceof Recovering && SyncLoop.recovers(execution.stopReason())) {
      T recovered;
      try {
        recovered = SyncLoop.recover(((Recovering<T>) attempt).recovery, execution);
      } catch (Throwable thrown) {
        settleExceptionally(thrown);
        return;
      }
      settle(recovered);
    } else if (execution.lastFailure() == null) {
      T last = (T) execution.lastResult();
      if (!settle(last)) {
        discard(last);
      }
    } else {
      settleExceptionally(execution.finalFailure());
    }
  }

  private void scheduleRetry(long delayNanos) {
    // The task may run, and schedule the next retry, before schedule() returns its handle. Storing that
    // handle then would hide the next retry's from a canceller, which would leave it queued: so it is stored
    // only if the task has not started (the task marks its start by setting pending to this call).
    Future<?> before = pending;
    starter = Thread.currentThread(); // a canceller does not wait for itself (see stopRetrying)
    @SuppressWarnings("unchecked") // the marker is never completed nor read as a stage of T
    CompletionStage<T> scheduling = SCHEDULING;
    inFlight = scheduling; // no attempt is in flight now (decide cleared it)
    state = WAITING; // before scheduling: the task may run at once on another thread
    try {
      Future<?> task = executor.scheduler.schedule(this, delayNanos);
      if (PENDING.compareAndSet(this, before, task)) {
        // The task has not started, so the marker is still ours (a started task replaces it).
        IN_FLIGHT.compareAndSet(this, SCHEDULING, null);
      }
      if (isDone()) {
        // Cancelled while this retry was being decided or scheduled: the canceller may have found no task
        // to cancel, so drop it from the queue now rather than when it falls due.
        if (STATE.compareAndSet(this, WAITING, DONE)) {
          stopCancelled();
        }
        task.cancel(false);
      }
    } catch (RuntimeException rejected) {
      IN_FLIGHT.compareAndSet(this, SCHEDULING, null);
      // Usually a RejectedExecutionException (shut down); any other exception from schedule() must end the
      // call the same way, or the future would hang and the listeners never hear of the call again.
      if (STATE.compareAndSet(this, WAITING, DONE)) {
        stopCancelled(); // the retry cannot be scheduled: the call fails with the refusal
        Throwable last = execution.finalFailure();
        if (last != null) {
          last.addSuppressed(rejected);
          settleExceptionally(last);
        } else {
          settleExceptionally(rejected);
        }
      }
    }
  }

  /** After a completion from outside ({@code completed}: it took effect), stops retrying; returns it. */
  @Override
  boolean stopIf(boolean completed) {
    if (completed) {
      stopRetrying();
    }
    return completed;
  }

  /** The future was completed from outside: cancel the pending retry, or the attempt in flight. */
  private void stopRetrying() {
    if (STATE.compareAndSet(this, WAITING, DONE)) {
      // The retry may still be on its way into the scheduler: wait (briefly, no lock) for its handle, so
      // that it is cancelled, and out of the queue, by the time cancel returns.
      if (inFlight == SCHEDULING && starter != Thread.currentThread()) {
        spinWhile(() -> inFlight == SCHEDULING);
      }
      Future<?> task = pending;
      if (task != null && task != this) {
        task.cancel(false);
      }
      stopCancelled();
      return;
    }
    if (state == STARTING && starter != Thread.currentThread()) {
      // A retry task is calling the supplier: return only once that call has (see the class comment). The
      // supplier's own thread cancelling from inside it must not wait for itself.
      spinWhile(() -> state == STARTING);
    }
    CompletionStage<T> stage = inFlight;
    if (stage != null && stage != SCHEDULING) {
      cancelStage(stage);
    }
  }

  /** Spins, then yields, while {@code condition} holds (a wait of a few instructions on another thread). */
  static void spinWhile(java.util.function.BooleanSupplier condition) {
    for (int spins = 0; condition.getAsBoolean(); spins++) {
      if (spins < SPINS_BEFORE_YIELD) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  /** Cancels an attempt's stage if it can be viewed as a future (interrupting its task if it may). */
  static void cancelStage(CompletionStage<?> stage) {
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
