package dev.backoff;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.Verdict;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The asynchronous driver for a policy with {@link Hedging}: several attempts of one call may be in flight, the
 * first acceptable result wins and the others are cancelled. {@link AsyncRetryExecutor} and
 * {@code dev.backoff.driver.RetryLoops.async} hand a hedged policy's calls here instead of to
 * {@link AsyncCall}. Every decision is the call state machine's ({@link CallMachine}: the gate before every
 * attempt, {@link CallMachine#hedgeDue}, {@link CallMachine#hedgedOutcome}, {@link CallMachine#hedgeWon}, the
 * "no more hedges" rule and result custody); this class carries out its effects: it calls the attempt hook,
 * watches the stages, runs the attempt timeouts and the hedge timer, cancels losers and completes the future.
 *
 * <p>Every hedge starts in a task on the executor's scheduler, after the delay the machine answered. At most
 * one such task is pending; a newer one replaces it ({@link #generation}). A first attempt that must wait for a
 * rate limiter's token is such a task too, holding the token ({@link #pendingHoldsToken}), which is given back
 * if the call ends first; a hedge's token is held by the execution. The call's state is guarded by its monitor,
 * which is never held while calling the attempt hook, cancelling a stage or completing the future (code that
 * may take other locks); listeners and policy callbacks may run under it, as they must be quick. As in
 * {@link AsyncCall}, no attempt starts after {@code cancel} (or an outside completion) has returned true: a
 * canceller that finds an attempt hook running waits, without a lock, until it has returned, and its stage is
 * then cancelled.
 */
final class HedgedCall<R, T extends R> extends CallFuture<T> {

  private final AsyncRetryExecutor<R> executor;
  private final AsyncAttempt<T> attempt;
  private final OutcomeJudge<R> judge; // null: the policy's rules (the executor's supplier)
  private final Recovery<T> recovery; // null: none
  private long startNanos;
  // Guarded by this call's monitor:
  private Execution<R> execution; // created at the first hedge or the first failure (the machine's state)
  private final List<Attempt> inFlight = new ArrayList<>(2);
  private Future<?> pendingHedge;
  private boolean pendingHoldsToken; // the pending task is the first attempt's and holds a rate limiter's token
  private int generation; // of the pending hedge task: an older one that runs anyway does nothing
  private boolean finished; // the outcome is decided (or the caller completed the future)
  // A retried result that is the execution's last outcome stays in its custody (Execution.takeHeldResult):
  // the call may still end with it (no further hedge may start and nothing else answers). A later outcome
  // takes it (to discard outside the lock); whoever ends the call takes it to hand it over or discard it.
  private volatile int starting; // attempt hooks running now (a canceller waits for them)
  // Guarded by this call's monitor: the attempts counted in starting (kept after the call finishes, unlike
  // inFlight, so that a canceller can tell whether it runs inside one of their hooks).
  private final List<Attempt> inHooks = new ArrayList<>(2);
  private Throwable failure; // a policy callback's exception, set by fail()

  HedgedCall(AsyncRetryExecutor<R> executor, AsyncAttempt<T> attempt, OutcomeJudge<R> judge, Recovery<T> recovery) {
    this.executor = executor;
    this.attempt = attempt;
    this.judge = judge;
    this.recovery = recovery;
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
    final boolean first; // the first attempt, after the rate limiter's wait

    Hedge(int generation, boolean first) {
      this.generation = generation;
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
    if (CallMachine.isRefusal(permit)) {
      completeRefused(permit == CallMachine.OPEN ? CallMachine.REFUSED_CIRCUIT_OPEN
          : CallMachine.REFUSED_CONCURRENCY_LIMITED);
      return;
    }
    Attempt first = null;
    long effect;
    Throwable rejected;
    synchronized (this) {
      startNanos = executor.clock.nanoTime();
      effect = CallMachine.meter(policy, null, startNanos, executor.clock, permit);
      long wait = CallMachine.waitNanos(effect);
      if (wait >= 0) { // the first attempt waits (the permit given back): holding its token, or re-checking
        schedule(new Hedge(++generation, true), wait, effect >= 0);
      } else if (effect == CallMachine.START) {
        first = startFirst(permit);
      } else {
        finished = true; // refused (the permit given back)
      }
      rejected = failure; // the scheduler refused the first attempt's task
    }
    if (first != null) {
      launch(first);
    } else if (CallMachine.waitNanos(effect) < 0) {
      completeRefused(effect);
    } else if (rejected != null) {
      settleExceptionally(rejected);
    }
  }

  /** The first attempt was refused by the gate ({@code effect}, a {@code REFUSED_*}): the call completes. */
  private void completeRefused(long effect) {
    try {
      settle(effect == CallMachine.REFUSED_CIRCUIT_OPEN ? SyncLoop.refused(executor.policy, recovery)
          : effect == CallMachine.REFUSED_CONCURRENCY_LIMITED
              ? SyncLoop.refused(executor.policy, CallMachine.LIMITED, recovery)
              : RateGate.refusedFirst(executor.policy, CallMachine.refusal(effect), recovery));
    } catch (Throwable refusal) {
      settleExceptionally(refusal);
    }
  }

  /** Registers the first attempt and plans the first hedge. Locked. */
  private Attempt startFirst(CircuitBreaker.Permit permit) {
    Attempt first = new Attempt(1, permit);
    register(first);
    planHedge(CallMachine.nextHedge(executor.policy, null, startNanos));
    return first;
  }

  /** Registers an attempt about to start on this thread. Locked. */
  private void register(Attempt a) {
    a.starter = Thread.currentThread();
    inFlight.add(a);
    inHooks.add(a);
    starting++;
  }

  /**
   * Carries out a hedge effect: a delay {@code >= 0} schedules the hedge task (replacing a pending one);
   * {@link CallMachine#NO_MORE_HEDGES} cancels it. Locked.
   */
  private void planHedge(long effect) {
    cancelPendingHedge();
    if (effect >= 0) {
      schedule(new Hedge(++generation, false), effect, false);
    }
  }

  /** Schedules {@code task} in {@code delayNanos} as the pending task. Locked. */
  private void schedule(Hedge task, long delayNanos, boolean holdsToken) {
    try {
      pendingHedge = executor.scheduler.schedule(task, delayNanos);
      pendingHoldsToken = holdsToken;
    } catch (RuntimeException rejected) {
      // The scheduler was shut down: no further attempt can start.
      if (task.first) {
        if (holdsToken) {
          CallMachine.firstTokenAbandoned(executor.policy);
        }
        finished = true; // nothing else will end the call: it fails as the asynchronous loop's would
        failure = rejected;
        return;
      }
      if (execution == null) {
        execution = newExecution();
      }
      if (CallMachine.hedgeNotPlanned(execution, executor.clock.nanoTime()) == CallMachine.STOPPED) {
        finished = true; // nothing is in flight: whoever scheduled ends the call (see ended())
      }
    }
  }

  private void cancelPendingHedge() {
    generation++;
    Future<?> pending = pendingHedge;
    if (pending != null) {
      pendingHedge = null;
      pending.cancel(false);
      if (pendingHoldsToken) {
        pendingHoldsToken = false;
        CallMachine.firstTokenAbandoned(executor.policy); // the first attempt will not be sent
      }
    }
  }

  /** The hedge task ran: the machine decides whether the attempt starts (its gate), then it starts. */
  private void hedge(Hedge task) {
    Attempt next = null;
    List<Attempt> toCancel = null;
    long refused = 0;
    synchronized (this) {
      if (finished || task.generation != generation) {
        return; // replaced or ended: whoever did that gave a held token back
      }
      pendingHedge = null;
      boolean tokenHeld = pendingHoldsToken;
      pendingHoldsToken = false;
      RetryPolicy<R> policy = executor.policy;
      CircuitBreaker.Permit permit;
      if (task.first) { // the first attempt's wait for the rate limiter is over
        permit = CallMachine.admit(policy);
        // After a firm wait the token is the attempt's; after a re-check the whole gate is asked again.
        refused = tokenHeld ? CallMachine.firstTokenWaited(policy, permit)
            : CallMachine.firstGate(policy, startNanos, executor.clock, permit);
        long wait = CallMachine.waitNanos(refused);
        if (refused == CallMachine.START) {
          refused = 0;
          next = startFirst(permit);
        } else if (wait >= 0) {
          schedule(new Hedge(++generation, true), wait, refused >= 0);
          refused = 0;
        } else {
          finished = true; // refused: completed outside the lock
        }
      } else {
        if (execution == null) {
          execution = newExecution();
        }
        permit = CallMachine.admitHedge(execution);
        long now = executor.clock.nanoTime();
        long effect;
        try {
          effect = CallMachine.hedgeDue(execution, permit, now);
        } catch (RuntimeException | Error unexpected) { // the budget threw
          effect = CallMachine.STOPPED;
          toCancel = fail(unexpected);
        }
        if (toCancel != null) {
          next = null;
        } else if (effect == CallMachine.START) {
          next = new Attempt(CallMachine.hedgesStarted(execution), permit);
          register(next);
          planHedge(CallMachine.nextHedge(policy, execution, now));
        } else if (effect >= 0) { // the limiter's wait or re-check: the hedge falls due again after it
          schedule(new Hedge(++generation, false), effect, false);
        } else if (effect == CallMachine.STOPPED) {
          finished = true;
          toCancel = takeAll();
        }
      }
      if (finished && toCancel == null && refused == 0) {
        toCancel = takeAll(); // the scheduler refused the task the machine asked for, with nothing in flight
      }
    }
    if (next != null) {
      launch(next);
    } else if (refused != 0) {
      completeRefused(refused);
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
        CircuitBreaker.Permit permit = a.permit;
        a.permit = null; // the machine reports this attempt's outcome to it (or gives it back)
        if (verdict.isAccept()) {
          replaced = (T) CallMachine.hedgeWon(policy, execution, (R) result, cause, a.number, permit, startNanos,
              now, identity());
          finished = true;
          won = true;
          winner = result;
          toCancel = takeAll();
          inHook = inHookHere();
        } else {
          if (execution == null) {
            execution = newExecution();
          }
          // This outcome becomes the execution's last: the call may end with it if it is a result, so it is
          // held, not discarded; the result it replaces can no longer be the call's outcome.
          replaced = heldResult();
          long effect = CallMachine.hedgedOutcome(execution, result, cause, verdict, permit, now);
          if (effect == CallMachine.STOPPED) { // a fatal failure, or nothing in flight and no hedge may start
            finished = true;
            toCancel = takeAll();
          } else {
            planHedge(effect); // the next hedge after its delay, or none (NO_MORE_HEDGES)
            if (finished) { // the scheduler refused it with nothing in flight
              toCancel = takeAll();
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
      if (!settle(winner)) {
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

  /** Takes every attempt in flight and the pending hedge from the call, releasing their permits. Locked. */
  private List<Attempt> takeAll() {
    cancelPendingHedge();
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
      settleExceptionally(unexpected);
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
        settleExceptionally(thrown);
        return;
      }
      settle(recovered);
    } else if (e.lastFailure() == null) {
      // The held result is the execution's last (it was never discarded): the caller gets it, intact.
      if (!settle(last)) {
        discard(last); // the caller cancelled or completed the future meanwhile
      }
    } else {
      discard(last); // null: a failure replaced any held result
      settleExceptionally(e.finalFailure());
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

  /** After a completion from outside ({@code completed}: it took effect), stops the call; returns it. */
  @SuppressWarnings("unchecked")
  @Override
  boolean stopIf(boolean completed) {
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
        boolean firstStarted = execution != null || !inFlight.isEmpty();
        toCancel = takeAll();
        if (execution == null) {
          execution = newExecution();
        }
        if (firstStarted) {
          // The caller's own outcome replaces a held result; the attempts in flight count.
          dropped = (T) CallMachine.stop(execution, StopReason.CANCELLED, executor.clock);
        } else { // it waited for the rate limiter's token (given back by takeAll)
          CallMachine.stopBeforeFirstAttempt(execution, StopReason.CANCELLED, executor.clock);
        }
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
