package dev.backoff;

import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The one synchronous retry loop: {@link RetryExecutor} and every synchronous driver (through
 * {@code dev.backoff.driver.RetryLoops}) run on it. The first attempt runs inline and a first-try success
 * leaves at once (no allocation, no clock read unless a deadline or listeners need one); only a failure or
 * a retryable result creates the {@link Execution}.
 *
 * <p>The attempt is a target of one of three kinds, so that the executors pass their caller's
 * {@code Callable} or {@code CheckedRunnable} as it is, without an adapter object. A null judge means the
 * policy's own rules, tested inline.
 *
 * <p>An attempt runs on one of two paths. The plain path calls the target and nothing else. The watched
 * path, taken only when the policy has listeners of attempt events or interrupts attempts that outlive
 * their timeout, tells those listeners and arms a {@link Watchdog}: it allocates and reads the clock, the
 * plain path does neither.
 *
 * <p>The code is shaped for HotSpot's inlining, which decides the retry path's speed more than any
 * instruction here: a method over 325 bytecodes is not inlined where it is called, and neither is one
 * that has already been compiled on its own into more than 2 500 bytes of machine code, which is what
 * happens to the engine's decision path ({@link Execution#recordNanos}), called on every attempt. So the
 * first attempt runs in two small methods that inline into the executor; what only some policies need
 * (the breaker and the rate limiter, the watched attempt, a stop) is in methods of its own; and an accepted
 * result is recorded through {@link Execution#succeedNanos}, small enough to inline, leaving one call into
 * the engine per failed attempt.
 */
final class SyncLoop {
  static final int CALLABLE = 0;
  static final int RUNNABLE = 1;
  static final int HOOK = 2;

  private SyncLoop() {}

  /** A hedging policy reached the synchronous loop, which runs one attempt at a time. */
  static IllegalArgumentException hedgingRejected(RetryPolicy<?> policy) {
    return new IllegalArgumentException("policy '" + policy.name + "' hedges (" + policy.hedging + "), which needs "
        + "attempts side by side: a synchronous call cannot hedge; use AsyncRetryExecutor (or a driver's "
        + "asynchronous call), or a policy without hedging");
  }

  /**
   * Runs the call. A policy without a breaker, a concurrency or rate limiter, or hedging goes straight to the first
   * attempt, through two small methods the JIT inlines into the executor (a first-try success is then a
   * handful of instructions over the call itself).
   */
  static <R, T extends R> T call(RetryExecutor<R> executor, Object target, int kind, OutcomeJudge<R> judge,
      Recovery<T> recovery) throws Exception {
    RetryPolicy<R> policy = executor.policy;
    if (policy.gatesFirstAttempt) {
      return gatedCall(executor, target, kind, judge, recovery);
    }
    return firstAttempt(executor, target, kind, judge, recovery, CallMachine.startNanos(policy, executor.clock),
        null);
  }

  /**
   * A call under a policy that hedges (refused), or whose breaker, concurrency limiter or rate limiter must
   * let the first attempt in: the machine's gate, with this thread carrying out its waits for the limiter's token.
   */
  private static <R, T extends R> T gatedCall(RetryExecutor<R> executor, Object target, int kind,
      OutcomeJudge<R> judge, Recovery<T> recovery) throws Exception {
    RetryPolicy<R> policy = executor.policy;
    if (policy.hedging != null) {
      throw hedgingRejected(policy);
    }
    NanoClock clock = executor.clock;
    CircuitBreaker.Permit permit = CallMachine.admit(policy);
    if (CallMachine.isRefusal(permit)) {
      return refused(policy, permit, recovery);
    }
    long start = CallMachine.startNanos(policy, clock);
    long effect = CallMachine.meter(policy, null, start, clock, permit);
    long wait;
    while ((wait = CallMachine.waitNanos(effect)) >= 0) {
      // A firm wait holds the limiter's token (then only the breaker and concurrency limiter are asked
      // again); a re-check holds nothing, and the whole gate is asked again after it.
      boolean tokenHeld = effect >= 0;
      boolean goOn;
      try {
        goOn = sleep(executor, target, kind, wait);
      } catch (InterruptedException | RuntimeException | Error stopped) {
        firstWaitAbandoned(policy, tokenHeld);
        if (stopped instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw stopped;
      }
      if (!goOn) {
        firstWaitAbandoned(policy, tokenHeld);
        throw new CancellationException("the call was cancelled while waiting for the rate limiter");
      }
      // An interrupt that lands after the wait (or a sleeper that ignores it) must not start the attempt.
      if (Thread.currentThread().isInterrupted()) {
        firstWaitAbandoned(policy, tokenHeld);
        throw new InterruptedException("interrupted while waiting for the rate limiter's token");
      }
      permit = CallMachine.admit(policy);
      effect = tokenHeld ? CallMachine.firstTokenWaited(policy, permit)
          : CallMachine.firstGate(policy, start, clock, permit);
    }
    if (effect == CallMachine.REFUSED_CIRCUIT_OPEN || effect == CallMachine.REFUSED_CONCURRENCY_LIMITED) {
      return refused(policy, effect == CallMachine.REFUSED_CIRCUIT_OPEN ? CallMachine.OPEN : CallMachine.LIMITED,
          recovery);
    }
    if (effect != CallMachine.START) {
      return RateGate.refusedFirst(policy, CallMachine.refusal(effect), recovery);
    }
    return firstAttempt(executor, target, kind, judge, recovery, start, permit);
  }

  /** The first attempt's wait for the rate limiter was cut short: a token it held goes back. */
  private static void firstWaitAbandoned(RetryPolicy<?> policy, boolean tokenHeld) {
    if (tokenHeld) {
      CallMachine.firstTokenAbandoned(policy);
    }
  }

  /** The first attempt, started at {@code start} (0 if nothing needs the time) with the breaker's permit or null. */
  @SuppressWarnings("unchecked")
  private static <R, T extends R> T firstAttempt(RetryExecutor<R> executor, Object target, int kind,
      OutcomeJudge<R> judge, Recovery<T> recovery, long start, CircuitBreaker.Permit permit) throws Exception {
    RetryPolicy<R> policy = executor.policy;
    NanoClock clock = executor.clock;
    // Only a driver's hook reads the context: the executors' targets get none, and allocate none.
    Context context = kind == HOOK ? new Context(policy, clock, start) : null;
    // The call's identity in listener events, only for listeners of attempt events (RetryEvent.call()).
    Object call = policy.attemptListeners.length == 0 ? null : new Object();
    T result = null;
    Throwable failure = null;
    if (policy.attemptListeners.length == 0 && !policy.interruptOnAttemptTimeout) {
      try {
        result = (T) invoke(target, kind, context);
      } catch (Throwable t) {
        failure = t;
      }
    } else {
      Watchdog watched = watched(executor, target, kind, context, 1, start, call);
      result = (T) watched.result;
      failure = watched.failure;
    }
    Verdict verdict = judged(policy, judge, target, kind, result, failure, permit);
    if (verdict == Verdict.ACCEPT) {
      CallMachine.firstAccepted(policy, result, failure, start, clock, permit, call);
      return result;
    }
    return retry(executor, target, kind, judge, context, start, result, failure, verdict, recovery, call, permit);
  }

  @SuppressWarnings("unchecked")
  private static <R, T extends R> T retry(RetryExecutor<R> executor, Object target, int kind,
      OutcomeJudge<R> judge, Context context, long start, T firstResult, Throwable firstFailure,
      Verdict firstVerdict, Recovery<T> recovery, Object call, CircuitBreaker.Permit firstPermit)
      throws Exception {
    RetryPolicy<R> policy = executor.policy;
    NanoClock clock = executor.clock;
    long now = clock.nanoTime();
    Execution<R> execution;
    try {
      execution = CallMachine.firstFailed(policy, start, now, executor.random, call, firstPermit);
    } catch (RuntimeException | Error unexpected) { // the budget's onCall threw
      discard(target, kind, firstResult);
      throw unexpected;
    }
    // The machine's effect as a number: a wait before the next attempt, START, SUCCEEDED or STOPPED.
    long effect = record(execution, target, kind, firstResult, firstFailure, firstVerdict, now, firstPermit);
    long wait;
    while ((wait = CallMachine.waitNanos(effect)) >= 0) { // a backoff, the limiter's firm wait or a re-check
      CircuitBreaker.Permit permit;
      try {
        waitToRetry(executor, target, kind, execution, wait);
        permit = CallMachine.admit(execution);
        effect = CallMachine.timerFired(execution, permit, clock);
      } catch (InterruptedException | RuntimeException | Error stopped) {
        CallMachine.waitFailed(execution);
        discard(target, kind, execution.takeHeldResult()); // interrupted or cancelled: nobody reads it
        throw stopped;
      }
      if (effect != CallMachine.START) {
        continue; // a wait for the limiter's token, a re-check, or a gate refused the retry: the call ends with the held result
      }
      // The retry starts: a retried result it replaces goes back to a driver's hook (Execution.takeHeldResult).
      discard(target, kind, execution.takeHeldResult());
      if (context != null) {
        context.attempt++;
      }
      T result = null;
      Throwable failure = null;
      if (policy.attemptListeners.length == 0 && !policy.interruptOnAttemptTimeout) {
        try {
          result = (T) invoke(target, kind, context);
        } catch (Throwable t) {
          failure = t;
        }
      } else {
        Watchdog watched = watched(executor, target, kind, context, execution.attempts() + 1,
            execution.startNanos(), call);
        result = (T) watched.result;
        failure = watched.failure;
      }
      Verdict verdict = judged(policy, judge, target, kind, result, failure, permit);
      now = CallMachine.outcomeNanos(execution, clock);
      effect = kind != HOOK ? CallMachine.record(execution, result, failure, verdict, now, permit)
          : record(execution, target, kind, result, failure, verdict, now, permit);
    }
    if (effect == CallMachine.SUCCEEDED) {
      return (T) execution.lastResult();
    }
    return stopped(executor, execution, recovery);
  }

  /**
   * Carries out a wait the machine asked for, {@code delayNanos}, on the executor's sleeper (the driver's
   * hook waits for a driver's call). Throws, having stopped the call, if interrupted while waiting or before
   * the next attempt could start, or if the driver's wait says the call was cancelled.
   */
  private static void waitToRetry(RetryExecutor<?> executor, Object target, int kind, Execution<?> execution,
      long delayNanos) throws InterruptedException {
    boolean goOn;
    try {
      goOn = sleep(executor, target, kind, delayNanos);
    } catch (InterruptedException interrupted) {
      throw stopInterrupted(execution, executor.clock, interrupted);
    }
    if (!goOn) {
      throw stopCancelled(execution, executor.clock);
    }
    // An interrupt that lands after the sleep returned (or a sleeper that returns without honouring it)
    // must not start the next attempt on an interrupted thread. isInterrupted leaves the flag for the caller.
    if (Thread.currentThread().isInterrupted()) {
      throw stopInterrupted(execution, executor.clock,
          new InterruptedException("interrupted before retry " + execution.retries() + " could start"));
    }
  }

  /** Sleeps {@code nanos} on the executor's sleeper, or a driver's wait; false if the driver's wait was cancelled. */
  private static boolean sleep(RetryExecutor<?> executor, Object target, int kind, long nanos)
      throws InterruptedException {
    if (kind == HOOK) {
      return ((SyncAttempt<?>) target).waitToRetry(nanos, executor.sleeper);
    }
    executor.sleeper.sleep(nanos);
    return true;
  }

  /**
   * The call stopped without success: returns the last (retryable) result, held until now whether the engine
   * stopped the call or a gate refused the retry after its wait, or the recovery's value; or throws the last
   * failure with its history.
   */
  @SuppressWarnings("unchecked")
  private static <R, T extends R> T stopped(RetryExecutor<R> executor, Execution<R> execution,
      Recovery<T> recovery) throws Exception {
    RetryPolicy<R> policy = executor.policy;
    if (execution.stopReason() == StopReason.INTERRUPTED) {
      // The attempt may have caught the InterruptedException (clearing the flag) and thrown it wrapped, or a
      // driver's judge saw it: the caller must still see the interrupt.
      Thread.currentThread().interrupt();
    }
    boolean recovering = recovery != null && recovers(execution.stopReason());
    if (execution.lastFailure() == null && !recovering) {
      return (T) execution.lastResult();
    }
    if (!policy.needsStartTime) {
      execution.markEnd(executor.clock.nanoTime()); // for the RetryHistory's elapsed time
    }
    if (recovering) {
      return recover(recovery, execution);
    }
    throw SyncLoop.<Exception>rethrowUnchecked(execution.finalFailure());
  }

  /**
   * The policy's breaker refused the first attempt: the call fails with a {@link CircuitOpenException}, or
   * its recovery's value (a fallback is what a caller with a recovery wants while a dependency is down).
   */
  static <T> T refused(RetryPolicy<?> policy, Recovery<T> recovery) throws Exception {
    return refused(policy, CallMachine.OPEN, recovery);
  }

  /**
   * The gate refused the first attempt ({@code refusal} is {@link CallMachine#OPEN} or
   * {@link CallMachine#LIMITED}): the call fails with a {@link CircuitOpenException} or a
   * {@link ConcurrencyLimitedException}, or gets its recovery's value.
   */
  static <T> T refused(RetryPolicy<?> policy, CircuitBreaker.Permit refusal, Recovery<T> recovery) throws Exception {
    boolean open = refusal == CallMachine.OPEN;
    RuntimeException refused = open ? policy.breaker.openException() : policy.concurrencyLimiter.refusal();
    if (recovery == null) {
      throw refused;
    }
    return recovery.recover(null, refused, new RetryHistory(policy.name, 0, 0,
        open ? StopReason.CIRCUIT_OPEN : StopReason.CONCURRENCY_LIMITED));
  }

  /** Whether a call that stopped for this reason is recovered: not when the caller interrupted or cancelled it. */
  static boolean recovers(StopReason reason) {
    return reason != StopReason.INTERRUPTED && reason != StopReason.CANCELLED;
  }

  /**
   * Runs the recovery of a call that stopped: its value is the call's, what it throws the call's failure
   * (with the last failure attached).
   */
  @SuppressWarnings("unchecked")
  static <T> T recover(Recovery<T> recovery, Execution<?> execution) throws Exception {
    Throwable last = execution.finalFailure();
    RetryHistory history = last != null ? RetryHistory.of(last) : null;
    if (history == null) {
      history = new RetryHistory(execution.policy().name, execution.attempts(), execution.elapsedNanos(),
          execution.stopReason());
    }
    try {
      return recovery.recover(last == null ? (T) execution.lastResult() : null, last, history);
    } catch (Exception | Error thrown) {
      if (last != null && thrown != last) {
        thrown.addSuppressed(last);
      }
      throw thrown;
    }
  }

  /**
   * Runs one attempt on the watched path: tells the attempt listeners, and times the attempt with a
   * watchdog when the policy interrupts attempts that outlive their timeout.
   */
  @SuppressWarnings("unchecked")
  private static <R> Watchdog watched(RetryExecutor<R> executor, Object target, int kind, Context context,
      int attempt, long callStart, Object call) {
    RetryPolicy<R> policy = executor.policy;
    NanoClock clock = executor.clock;
    RetryListener<R>[] listeners = policy.attemptListeners;
    long began = 0;
    if (listeners.length > 0) {
      began = clock.nanoTime();
      Listeners.tell(listeners, Listeners.ATTEMPT_STARTED,
          new RetryEvent<>(policy.name, attempt, began - callStart, null, null, null, 0, null, 0, call));
    }
    Watchdog run = new Watchdog(Thread.currentThread());
    long timeoutNanos = -1;
    boolean armed = false;
    if (policy.interruptOnAttemptTimeout) {
      timeoutNanos = policy.attemptTimeoutNanos(timeLeft(policy.maxElapsedNanos, callStart, clock));
      try {
        run.task = executor.scheduler.schedule(run, timeoutNanos);
        armed = true;
      } catch (RuntimeException rejected) {
        // Without its watchdog the attempt could run past its timeout unnoticed: it fails instead, and the
        // policy decides whether to retry (a scheduler that was shut down will refuse the retry's too).
        run.failure = rejected;
      }
    }
    if (armed || timeoutNanos < 0) {
      try {
        run.result = invoke(target, kind, context);
      } catch (Throwable t) {
        run.failure = t;
      }
    }
    if (armed && run.disarm()) {
      TimeoutException timeout = new TimeoutException("attempt " + attempt + " took longer than its timeout, "
          + Duration.ofNanos(timeoutNanos).truncatedTo(ChronoUnit.MILLIS) + ", and was interrupted");
      if (run.failure != null) {
        timeout.addSuppressed(run.failure);
      }
      discard(target, kind, run.result);
      run.result = null;
      run.failure = timeout;
    }
    if (listeners.length > 0) {
      long ended = clock.nanoTime();
      Listeners.tell(listeners, Listeners.ATTEMPT_FINISHED, new RetryEvent<>(policy.name, attempt,
          ended - callStart, (R) run.result, run.failure, null, 0, null, ended - began, call));
    }
    return run;
  }

  /**
   * One watched attempt's outcome, and the watchdog that interrupts its thread when its time is up. The
   * watchdog and the loop agree through {@link #state} on who acts: the watchdog interrupts only if it
   * moves the state out of {@link #ARMED} first, and the loop, finding it moved, waits until the interrupt
   * has landed before clearing it, so that it never clears an interrupt that arrives after the attempt.
   */
  static final class Watchdog implements Runnable {
    private static final int ARMED = 0;
    private static final int DISARMED = 1;
    private static final int FIRING = 2;
    private static final int FIRED = 3;
    private static final int STOOD_DOWN = 4; // the thread was interrupted already: that interrupt wins
    private static final AtomicIntegerFieldUpdater<Watchdog> STATE =
        AtomicIntegerFieldUpdater.newUpdater(Watchdog.class, "state");

    private final Thread thread;
    private volatile int state = ARMED;
    volatile Future<?> task;
    Object result;
    Throwable failure;

    Watchdog(Thread thread) {
      this.thread = thread;
    }

    /** The attempt's time is up. */
    @Override
    public void run() {
      if (!STATE.compareAndSet(this, ARMED, FIRING)) {
        return; // the attempt has ended
      }
      if (thread.isInterrupted()) {
        state = STOOD_DOWN; // someone else interrupted the caller: leave that interrupt to stop the call
        return;
      }
      thread.interrupt();
      state = FIRED;
    }

    /**
     * The attempt has ended (on its own thread): stops the watchdog. Returns true if it fired, after
     * clearing the interrupt it caused.
     */
    boolean disarm() {
      if (STATE.compareAndSet(this, ARMED, DISARMED)) {
        Future<?> pending = task;
        if (pending != null) {
          pending.cancel(false);
        }
        return false;
      }
      for (int spins = 0; state == FIRING; spins++) {
        if (spins < 64) {
          Thread.onSpinWait();
        } else {
          Thread.yield();
        }
      }
      if (state == FIRED) {
        Thread.interrupted(); // ours: clear it (an outside interrupt after ours is indistinguishable)
        return true;
      }
      return false;
    }
  }

  /** Stops the call for an interrupt while waiting to retry: the flag set again, the last failure attached. */
  private static InterruptedException stopInterrupted(Execution<?> execution, NanoClock clock,
      InterruptedException interrupted) {
    Thread.currentThread().interrupt();
    execution.stopNanos(StopReason.INTERRUPTED, clock.nanoTime());
    Throwable last = execution.finalFailure();
    if (last != null && last != interrupted) {
      interrupted.addSuppressed(last);
    }
    return interrupted;
  }

  /** Stops the call a driver's wait said was cancelled: no further attempt, the last failure as the cause. */
  private static CancellationException stopCancelled(Execution<?> execution, NanoClock clock) {
    execution.stopNanos(StopReason.CANCELLED, clock.nanoTime());
    CancellationException cancelled = new CancellationException(
        "the call was cancelled while waiting to retry (after " + execution.attempts() + " attempts)");
    Throwable last = execution.finalFailure();
    if (last != null) {
      cancelled.initCause(last);
    }
    return cancelled;
  }

  /**
   * Records the outcome with the attempt's breaker permit (or null), as a number (see
   * {@link Execution#recordNanos}); a result whose recording threw goes back to a driver's hook (a retried
   * one stays held until its retry starts).
   */
  private static <R> long record(Execution<R> execution, Object target, int kind, R result, Throwable failure,
      Verdict verdict, long now, CircuitBreaker.Permit permit) {
    try {
      return CallMachine.record(execution, result, failure, verdict, now, permit);
    } catch (RuntimeException | Error unexpected) {
      discard(target, kind, result);
      throw unexpected;
    }
  }

  /**
   * Judges the outcome (the machine's judge, with this thread's interrupt flag); a result whose judging throws
   * goes back to a driver's hook, and the attempt's breaker permit (or null) is given back.
   */
  private static <R> Verdict judged(RetryPolicy<R> policy, OutcomeJudge<R> judge, Object target, int kind, R result,
      Throwable failure, CircuitBreaker.Permit permit) {
    try {
      return CallMachine.judge(policy, judge, result, failure,
          failure != null && Thread.currentThread().isInterrupted());
    } catch (RuntimeException | Error unexpected) {
      CallMachine.release(permit);
      discard(target, kind, result);
      throw unexpected;
    }
  }

  @SuppressWarnings("unchecked")
  private static void discard(Object target, int kind, Object result) {
    if (kind == HOOK && result != null) {
      try {
        ((SyncAttempt<Object>) target).discard(result);
      } catch (RuntimeException ignored) {
        // Releasing an unwanted result is best effort; the call's outcome stands.
      }
    }
  }

  private static Object invoke(Object target, int kind, Context context) throws Exception {
    switch (kind) {
      case CALLABLE:
        return ((Callable<?>) target).call();
      case RUNNABLE:
        ((RetryExecutor.CheckedRunnable) target).run();
        return null;
      default:
        return ((SyncAttempt<?>) target).run(context);
    }
  }

  /** A driver's attempt context: the attempt's number, and the time left read lazily. */
  static final class Context implements AttemptContext {
    private final NanoClock clock;
    private final long start;
    private final long maxElapsedNanos;
    int attempt = 1;

    Context(RetryPolicy<?> policy, NanoClock clock, long start) {
      this.clock = clock;
      this.start = start;
      this.maxElapsedNanos = policy.maxElapsedNanos;
    }

    @Override
    public int attempt() {
      return attempt;
    }

    @Override
    public long nanosLeft() {
      return timeLeft(maxElapsedNanos, start, clock);
    }
  }

  /** Nanoseconds left before the deadline (a policy with one reads the clock at its start). */
  static long timeLeft(long maxElapsedNanos, long start, NanoClock clock) {
    if (maxElapsedNanos == Long.MAX_VALUE) {
      return AttemptContext.NO_DEADLINE;
    }
    return maxElapsedNanos - (clock.nanoTime() - start);
  }

  /** Rethrows any throwable without wrapping it, so a checked failure reaches the caller unchanged. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E rethrowUnchecked(Throwable failure) throws E {
    throw (E) failure;
  }
}
