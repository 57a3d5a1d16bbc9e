package dev.backoff;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.Verdict;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The asynchronous loop for a policy with {@link Hedging}: several attempts of one call may be in flight, the
 * first acceptable result wins and the others are cancelled. {@link AsyncRetryExecutor} and
 * {@code dev.backoff.driver.RetryLoops.async} hand a hedged policy's calls here instead of to
 * {@link AsyncCall}; the decisions are the engine's ({@link Execution#tryHedge}, {@link Execution#recordHedged}).
 *
 * <p>Every hedge starts in a task on the executor's scheduler: after the hedging delay, or at once (delay 0)
 * after a retryable failure, or after a server's pushback. At most one such task is pending; a newer one
 * replaces it ({@link #generation}). With a rate limiter, every attempt (the first too) takes a token first;
 * an attempt that must wait for it is a task scheduled after the wait, holding the token
 * ({@link #pendingHoldsToken}), which is given back if that task is replaced or the call ends first. The call's state is guarded by its monitor, which is never held while
 * calling the attempt hook, cancelling a stage or completing the future (code that may take other locks);
 * listeners and policy callbacks may run under it, as they must be quick. As in {@link AsyncCall}, no attempt
 * starts after {@code cancel} (or an outside completion) has returned true: a canceller that finds an attempt
 * hook running waits, without a lock, until it has returned, and its stage is then cancelled.
 */
final class HedgedCall<R, T extends R> extends CompletableFuture<T> {

  private final AsyncRetryExecutor<R> executor;
  private final AsyncAttempt<T> attempt;
  private final OutcomeJudge<R> judge; // null: the policy's rules (the executor's supplier)
  private final Recovery<T> recovery; // null: none
  private final int maxStarted;
  private long startNanos;
  // Guarded by this call's monitor:
  private Execution<R> execution; // created at the first hedge or the first failure
  private int started;
  private final List<Attempt> inFlight = new ArrayList<>(2);
  private Future<?> pendingHedge;
  private boolean pendingHoldsToken; // the pending task holds a rate limiter's token
  private CircuitBreaker.Permit firstPermit; // the first attempt's, while it waits for a rate limiter's token
  private int generation; // of the pending hedge task: an older one that runs anyway does nothing
  private StopReason noMoreHedges; // why no further hedge may start, or null
  private boolean finished; // the outcome is decided (or the caller completed the future)
  // A retried result that is the execution's last outcome stays in its custody (Execution.takeHeldResult):
  // the call may still end with it (no further hedge may start and nothing else answers). A later outcome
  // takes it (to discard outside the lock); whoever ends the call takes it to hand it over or discard it.
  private volatile int starting; // attempt hooks running now (a canceller waits for them)
  // Guarded by this call's monitor: the attempts counted in starting (kept after the call finishes, unlike
  // inFlight, so that a canceller can tell whether it runs inside one of their hooks).
  private final List<Attempt> inHooks = new ArrayList<>(2);

  HedgedCall(AsyncRetryExecutor<R> executor, AsyncAttempt<T> attempt, OutcomeJudge<R> judge, Recovery<T> recovery) {
    this.executor = executor;
    this.attempt = attempt;
    this.judge = judge;
    this.recovery = recovery;
    this.maxStarted = executor.policy.hedging.maxStarted(executor.policy.maxAttempts);
  }

  /** The executor's supplier as an attempt hook. */
  static <T> AsyncAttempt<T> of(Supplier<? extends CompletionStage<T>> supplier) {
    return context -> supplier.get();
  }

  /** One attempt: its own context, its outcome's handler and its timeout's timer. */
  private final class Attempt implements AttemptContext, BiConsumer<T, Throwable>, Runnable {
    final int number;
    CircuitBreaker.Permit permit; // guarded by the call's monitor
    CompletionStage<T> stage; // guarded by the call's monitor
    Future<?> timer; // guarded by the call's monitor
    Thread starter; // guarded by the call's monitor: the thread calling the hook, until it returns
    boolean settled; // guarded by the call's monitor: the outcome (or timeout) was taken
    long began;
    long timeoutNanos;

    Attempt(int number, CircuitBreaker.Permit permit) {
      this.number = number;
      this.permit = permit;
    }

    @Override
    public int attempt() {
      return number;
    }

    @Override
    public long nanosLeft() {
      return SyncLoop.timeLeft(executor.policy.maxElapsedNanos, startNanos, executor.clock);
    }

    /** The outcome of the attempt's stage. */
    @Override
    public void accept(T result, Throwable failure) {
      onOutcome(this, result, failure, false);
    }

    /** The attempt's time is up. */
    @Override
    public void run() {
      onOutcome(this, null, new TimeoutException("attempt " + number + " took longer than its timeout, "
          + Duration.ofNanos(timeoutNanos).truncatedTo(ChronoUnit.MILLIS)), true);
    }
  }

  /** The hedge task: starts the next attempt if it is still the one the call waits for. */
  private final class Hedge implements Runnable {
    final int generation;
    final Throwable trigger;
    final FailureClass triggerClass;
    final boolean first; // the first attempt, after the rate limiter's wait

    Hedge(int generation, Throwable trigger, FailureClass triggerClass, boolean first) {
      this.generation = generation;
      this.trigger = trigger;
      this.triggerClass = triggerClass;
      this.first = first;
    }

    @Override
    public void run() {
      hedge(this);
    }
  }

  void start() {
    RetryPolicy<R> policy = executor.policy;
    CircuitBreaker.Permit permit = CallMachine.admit(policy);
    if (permit == CallMachine.OPEN) {
      try {
        super.complete(SyncLoop.refused(policy, recovery));
      } catch (Throwable refusal) {
        super.completeExceptionally(refusal);
      }
      return;
    }
    Attempt first;
    StopReason refused = null;
    synchronized (this) {
      startNanos = executor.clock.nanoTime();
      if (policy.rateLimiter != null) {
        long wait = policy.rateLimiter.reserve();
        if (wait != 0) {
          refused = RateGate.refusal(policy, wait, startNanos, executor.clock);
          if (refused == null) { // the first attempt starts after the wait, holding its token
            firstPermit = permit;
            generation++;
            schedule(new Hedge(generation, null, null, true), wait, true);
            if (!settleLater) {
              return;
            }
          }
        }
      }
      if (settleLater) {
        first = null; // the scheduler refused the first attempt's task
      } else if (refused == null) {
        first = startFirst(permit);
      } else {
        first = null;
        finished = true;
      }
    }
    if (settleLater) {
      super.completeExceptionally(failure);
      return;
    }
    if (refused != null) {
      if (permit != null) {
        permit.release();
      }
      try {
        super.complete(RateGate.refusedFirst(policy, refused, recovery));
      } catch (Throwable refusal) {
        super.completeExceptionally(refusal);
      }
      return;
    }
    launch(first);
  }

  /** Registers the first attempt and plans the first hedge. Locked. */
  private Attempt startFirst(CircuitBreaker.Permit permit) {
    started = 1;
    Attempt first = new Attempt(1, permit);
    first.starter = Thread.currentThread();
    inFlight.add(first);
    inHooks.add(first);
    starting++;
    scheduleHedge(executor.policy.hedging.delayNanos(), null, null);
    return first;
  }

  /** Schedules {@code task} in {@code delayNanos} as the pending task. Locked. */
  private void schedule(Hedge task, long delayNanos, boolean holdsToken) {
    try {
      pendingHedge = executor.scheduler.schedule(task, delayNanos);
      pendingHoldsToken = holdsToken;
    } catch (RuntimeException rejected) {
      if (holdsToken) {
        executor.policy.rateLimiter.unreserve();
      }
      noMoreHedges = StopReason.CANCELLED; // the scheduler was shut down: no further attempt can start
      if (task.first) {
        // Nothing else will end the call: it fails as the asynchronous loop's would.
        finished = true;
        releaseFirstPermit();
        failure = rejected;
        settleLater = true;
      }
    }
  }

  private boolean settleLater; // a rejected first task: start() completes the call after the lock

  private void releaseFirstPermit() {
    CircuitBreaker.Permit permit = firstPermit;
    if (permit != null) {
      firstPermit = null;
      permit.release();
    }
  }

  /** Schedules the next hedge in {@code delayNanos} (replacing a pending one), if one may still start. Locked. */
  private void scheduleHedge(long delayNanos, Throwable trigger, FailureClass triggerClass) {
    cancelPendingHedge();
    if (noMoreHedges != null) {
      return;
    }
    if (started >= maxStarted) {
      noMoreHedges = StopReason.ATTEMPTS_EXHAUSTED;
      return;
    }
    RetryPolicy<R> policy = executor.policy;
    if (policy.maxElapsedNanos != Long.MAX_VALUE
        && Nanos.add(executor.clock.nanoTime() - startNanos, delayNanos) > policy.maxElapsedNanos) {
      noMoreHedges = StopReason.DEADLINE_EXCEEDED; // the hedge would start after the deadline
      return;
    }
    schedule(new Hedge(++generation, trigger, triggerClass, false), delayNanos, false);
  }

  private void cancelPendingHedge() {
    generation++;
    Future<?> pending = pendingHedge;
    if (pending != null) {
      pendingHedge = null;
      pending.cancel(false);
      if (pendingHoldsToken) {
        pendingHoldsToken = false;
        executor.policy.rateLimiter.unreserve(); // that attempt will not be sent
      }
    }
  }

  /** The hedge task ran: asks the breaker and the engine, then starts the attempt. */
  private void hedge(Hedge task) {
    Attempt next;
    List<Attempt> toCancel = null;
    synchronized (this) {
      if (finished || task.generation != generation) {
        return; // replaced or ended: whoever did that gave a held token back
      }
      pendingHedge = null;
      boolean tokenHeld = pendingHoldsToken;
      pendingHoldsToken = false;
      RetryPolicy<R> policy = executor.policy;
      if (task.first) { // the first attempt's wait for the rate limiter is over
        CircuitBreaker.Permit permit = firstPermit;
        firstPermit = null;
        next = startFirst(permit);
        toCancel = null;
      } else {
        next = null;
      }
      long now = executor.clock.nanoTime();
      StopReason refusal = null;
      if (next == null && !tokenHeld && policy.rateLimiter != null) {
        long wait = policy.rateLimiter.reserve();
        if (wait != 0) {
          refusal = RateGate.refusal(policy, wait, startNanos, executor.clock);
          if (refusal == null) { // this hedge goes after the wait, holding its token
            generation++;
            schedule(new Hedge(generation, task.trigger, task.triggerClass, false), wait, true);
            return;
          }
          tokenHeld = false; // refused: no token was taken, or RateGate gave it back
        } else {
          tokenHeld = true;
        }
      }
      if (next != null) {
        toCancel = null; // the first attempt: no budget, and its breaker permit was taken in start()
      } else if (refusal != null) {
        noMoreHedges = refusal;
        if (inFlight.isEmpty()) {
          if (execution == null) {
            execution = newExecution();
          }
          toCancel = stopNow(refusal, now);
        }
      } else {
        if (execution == null) {
          execution = newExecution();
        }
        CircuitBreaker.Permit permit = CallMachine.admit(policy);
        if (permit == CallMachine.OPEN) {
          permit = null;
          refusal = StopReason.CIRCUIT_OPEN;
        }
        if (refusal == null) {
          try {
            refusal = execution.tryHedge(started, task.triggerClass, task.trigger, now);
          } catch (RuntimeException | Error unexpected) { // the budget threw
            refusal = StopReason.CANCELLED;
            toCancel = fail(unexpected);
          }
          if (refusal != null && permit != null) {
            permit.release();
          }
        }
        if (refusal != null && tokenHeld) {
          policy.rateLimiter.unreserve(); // the breaker or the budget refused: the attempt is not sent
        }
        if (toCancel != null) {
          next = null;
        } else if (refusal != null) {
          noMoreHedges = refusal;
          next = null;
          if (inFlight.isEmpty()) {
            toCancel = stopNow(refusal, now);
          }
        } else {
          next = new Attempt(++started, permit);
          next.starter = Thread.currentThread();
          inFlight.add(next);
          inHooks.add(next);
          starting++;
          scheduleHedge(policy.hedging.delayNanos(), null, null);
        }
      }
    }
    if (next != null) {
      launch(next);
    } else if (toCancel != null) {
      settleOutside(toCancel);
    }
  }

  private Execution<R> newExecution() {
    // The machine's first-attempt rule: the execution comes with the first failure (or the first hedge).
    return CallMachine.firstFailed(executor.policy, startNanos, startNanos, executor.random, identity(), null);
  }

  /** Takes the retried result in the execution's custody, if any (guarded by this call's monitor). */
  @SuppressWarnings("unchecked")
  private T heldResult() {
    return execution == null ? null : (T) execution.takeHeldResult();
  }

  private Object identity() {
    return executor.policy.attemptListeners.length == 0 ? null : this;
  }

  /** Calls the attempt hook (no lock held) and watches the stage it returns. */
  private void launch(Attempt a) {
    RetryPolicy<R> policy = executor.policy;
    if (policy.attemptListeners.length > 0) {
      a.began = executor.clock.nanoTime();
      Listeners.tell(policy.attemptListeners, Listeners.ATTEMPT_STARTED,
          new RetryEvent<>(policy.name, a.number, a.began - startNanos, null, null, null, 0, null, 0, this));
    }
    CompletionStage<T> stage;
    Throwable thrown = null;
    try {
      stage = attempt.start(a);
      if (stage == null) {
        throw new NullPointerException("the attempt returned null instead of a CompletionStage");
      }
    } catch (Throwable failure) {
      stage = null;
      thrown = failure;
    }
    boolean cancel;
    synchronized (this) {
      a.starter = null;
      a.stage = stage;
      cancel = finished || a.settled;
      inHooks.remove(a);
      starting--; // after the stage is recorded: a canceller that waited then finds it
      if (stage != null && !cancel && policy.attemptTimeoutNanos != Long.MAX_VALUE) {
        a.timeoutNanos = policy.attemptTimeoutNanos(a.nanosLeft());
        try {
          a.timer = executor.scheduler.schedule(a, a.timeoutNanos);
        } catch (RuntimeException rejected) {
          // Without its timer the attempt could run past its timeout unnoticed: it fails instead.
          thrown = rejected;
          cancel = true;
        }
      }
    }
    if (thrown != null) {
      if (stage != null) {
        AsyncCall.cancelStage(stage);
      }
      onOutcome(a, null, thrown, false);
      return;
    }
    if (cancel) {
      AsyncCall.cancelStage(stage); // the call ended while the hook ran
    }
    try {
      stage.whenComplete(a);
    } catch (Throwable failure) {
      onOutcome(a, null, failure, false); // a stage that cannot even take a callback: a failed attempt
    }
  }

  /** One attempt's outcome (or its timeout, {@code timedOut}). */
  @SuppressWarnings("unchecked")
  private void onOutcome(Attempt a, T result, Throwable failure, boolean timedOut) {
    RetryPolicy<R> policy = executor.policy;
    Future<?> timer;
    CompletionStage<T> stage;
    synchronized (this) {
      if (a.settled) {
        discard(result); // timed out before: nobody will read it
        return;
      }
      a.settled = true;
      timer = a.timer;
      stage = a.stage;
    }
    if (timer != null) {
      timer.cancel(false);
    }
    if (timedOut && stage != null) {
      AsyncCall.cancelStage(stage);
    }
    if (policy.attemptListeners.length > 0) {
      long ended = executor.clock.nanoTime();
      Listeners.tell(policy.attemptListeners, Listeners.ATTEMPT_FINISHED, new RetryEvent<>(policy.name, a.number,
          ended - startNanos, result, failure == null ? null : AsyncCall.unwrap(failure), null, 0, null,
          ended - a.began, this));
    }
    Throwable cause = failure == null ? null : AsyncCall.unwrap(failure);
    List<Attempt> toCancel;
    T winner = null;
    boolean won = false;
    boolean inHook = false; // this thread is inside one of the call's attempt hooks (when it wins)
    T replaced = null; // a held result this outcome replaces: discarded outside the lock
    boolean goesOn = false;
    try {
      synchronized (this) {
        if (finished) {
          inFlight.remove(a);
          releasePermit(a);
          discard(result);
          return;
        }
      }
      Verdict verdict = CallMachine.judge(policy, judge, result, cause, false);
      synchronized (this) {
        inFlight.remove(a);
        if (finished) { // the caller cancelled while the outcome was judged
          releasePermit(a);
          discard(result);
          return;
        }
        long now = executor.clock.nanoTime();
        if (verdict.isAccept()) {
          if (cause != null) {
            throw new IllegalArgumentException("the judge accepted a failure: " + cause, cause);
          }
          CircuitBreaker.Permit permit = a.permit;
          a.permit = null;
          if (permit != null) {
            permit.onSuccess();
          }
          replaced = heldResult(); // before the success, which makes this result the execution's last
          if (execution == null) {
            FirstAttempt.succeeded(policy, result, startNanos, now, identity());
          } else {
            execution.succeedHedged(result, a.number, now);
          }
          finished = true;
          won = true;
          winner = result;
          toCancel = takeAll();
          inHook = inHookHere();
        } else {
          if (execution == null) {
            execution = newExecution();
          }
          CircuitBreaker.Permit permit = a.permit;
          a.permit = null;
          // This outcome becomes the execution's last: the call may end with it if it is a result, so it is
          // held, not discarded; the result it replaces can no longer be the call's outcome.
          replaced = heldResult();
          Decision decision = execution.recordHedged(result, cause, verdict, permit, now);
          if (execution.isDone()) { // a fatal failure (or the driver's stop verdict on a result)
            finished = true;
            toCancel = takeAll();
          } else {
            if (decision.isStop()) {
              if (noMoreHedges == null) {
                noMoreHedges = decision.stopReason();
              }
              cancelPendingHedge();
            } else {
              scheduleHedge(decision.delayNanos(), cause, execution.lastFailureClass());
            }
            if (inFlight.isEmpty() && pendingHedge == null) {
              toCancel = stopNow(noMoreHedges == null ? StopReason.ATTEMPTS_EXHAUSTED : noMoreHedges, now);
            } else {
              toCancel = null;
              goesOn = true; // other attempts, or the next hedge, will decide
            }
          }
        }
      }
    } catch (Throwable unexpected) {
      // A policy callback (judge, predicate, classifier, pushback extractor, budget) threw: the future must
      // never hang, so the call fails with it.
      discard(replaced);
      synchronized (this) {
        if (result != null && execution != null && execution.lastResult() == result) {
          execution.takeHeldResult(); // discarded just below, once
        }
      }
      discard(result);
      synchronized (this) {
        inFlight.remove(a);
        releasePermit(a);
        if (finished) {
          return;
        }
        toCancel = fail(unexpected);
      }
      settleOutside(toCancel);
      return;
    }
    discard(replaced);
    if (goesOn) {
      return;
    }
    if (won) {
      cancelAll(toCancel);
      // A hedge whose hook another thread entered before the win: complete only once it has returned (its
      // stage is then cancelled by that thread, which finds the call finished), so no attempt starts after
      // the call completes, as on every other way the call ends.
      awaitHooks(inHook);
      if (!super.complete(winner)) {
        discard(winner);
      }
      return;
    }
    settleOutside(toCancel);
  }

  /** Ends the call with {@code unexpected}. Locked; returns the attempts to cancel outside the lock. */
  private List<Attempt> fail(Throwable unexpected) {
    finished = true;
    failure = unexpected;
    return takeAll();
  }

  private Throwable failure; // a policy callback's exception, set by fail()

  /** The last attempt has ended and no hedge may start: the call stops. Locked. */
  private List<Attempt> stopNow(StopReason reason, long now) {
    finished = true;
    execution.stop(reason, now);
    return takeAll();
  }

  /** Takes every attempt in flight and the pending hedge from the call, releasing their permits. Locked. */
  private List<Attempt> takeAll() {
    cancelPendingHedge();
    releaseFirstPermit();
    List<Attempt> taken = new ArrayList<>(inFlight);
    inFlight.clear();
    for (Attempt a : taken) {
      releasePermit(a);
    }
    return taken;
  }

  private static void releasePermit(HedgedCall<?, ?>.Attempt a) {
    CircuitBreaker.Permit permit = a.permit;
    if (permit != null) {
      a.permit = null;
      permit.release();
    }
  }

  /** Outside the lock: cancels the losers, then completes the future with the call's outcome. */
  @SuppressWarnings("unchecked")
  private void settleOutside(List<Attempt> toCancel) {
    cancelAll(toCancel);
    Throwable unexpected;
    boolean inHook;
    T last;
    synchronized (this) {
      unexpected = failure;
      inHook = inHookHere();
      last = heldResult(); // the call's outcome if it ends on a result: handed over (or discarded) below, once
    }
    // A hedge whose hook another thread entered before the outcome was decided: the call completes only
    // once that hook has returned (and its stage has been cancelled), so no attempt starts after it completes.
    awaitHooks(inHook);
    if (unexpected != null) {
      discard(last);
      super.completeExceptionally(unexpected);
      return;
    }
    Execution<R> e;
    synchronized (this) {
      e = execution;
    }
    if (recovery != null && SyncLoop.recovers(e.stopReason())) {
      // The recovery is given the last result (as the asynchronous loop's is): it owns it from here.
      T recovered;
      try {
        recovered = SyncLoop.recover(recovery, e);
      } catch (Throwable thrown) {
        super.completeExceptionally(thrown);
        return;
      }
      super.complete(recovered);
    } else if (e.lastFailure() == null) {
      // The held result is the execution's last (it was never discarded): the caller gets it, intact.
      if (!super.complete(last)) {
        discard(last); // the caller cancelled or completed the future meanwhile
      }
    } else {
      discard(last); // null: a failure replaced any held result
      super.completeExceptionally(e.finalFailure());
    }
  }

  private void cancelAll(List<Attempt> attempts) {
    for (Attempt a : attempts) {
      CompletionStage<T> stage;
      Future<?> timer;
      synchronized (this) {
        stage = a.stage;
        timer = a.timer;
        a.settled = true;
      }
      if (timer != null) {
        timer.cancel(false);
      }
      if (stage != null) {
        AsyncCall.cancelStage(stage);
      }
    }
  }

  /** A result nobody will read: the driver may release it. */
  private void discard(T result) {
    if (result != null) {
      try {
        attempt.discard(result);
      } catch (RuntimeException ignored) {
        // Releasing an unwanted result is best effort.
      }
    }
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    return stopIf(super.cancel(mayInterruptIfRunning));
  }

  @Override
  public boolean complete(T value) {
    return stopIf(super.complete(value));
  }

  @Override
  public boolean completeExceptionally(Throwable failure) {
    return stopIf(super.completeExceptionally(failure));
  }

  /** After a completion from outside ({@code completed}: it took effect), stops the call; returns it. */
  private boolean stopIf(boolean completed) {
    if (!completed) {
      return false;
    }
    List<Attempt> toCancel = null;
    boolean inHook;
    T dropped = null;
    synchronized (this) {
      inHook = inHookHere();
      if (!finished) {
        finished = true;
        dropped = heldResult(); // the caller's own outcome replaces it
        toCancel = takeAll();
        if (execution == null) {
          execution = newExecution();
        }
        execution.stop(StopReason.CANCELLED, executor.clock.nanoTime());
      }
    }
    // An attempt hook may be running on another thread, even when the call had already decided its outcome
    // (settleOutside is completing it): return only once it has (see the class comment); its stage is then
    // cancelled by that thread, which finds the call finished.
    awaitHooks(inHook);
    if (toCancel != null) {
      cancelAll(toCancel);
    }
    discard(dropped);
    return true;
  }

  /** True if this thread is inside one of this call's attempt hooks. Locked. */
  private boolean inHookHere() {
    Thread me = Thread.currentThread();
    for (Attempt a : inHooks) {
      if (a.starter == me) {
        return true;
      }
    }
    return false;
  }

  /**
   * Waits, without a lock, until no attempt hook of this call is running, unless this thread is inside one
   * ({@code inHook}: it cannot wait for itself).
   */
  private void awaitHooks(boolean inHook) {
    if (!inHook) {
      AsyncCall.spinWhile(() -> starting > 0);
    }
  }

  @Override
  public String toString() {
    return super.toString() + "[" + executor.policy.name() + ", hedged]";
  }
}
