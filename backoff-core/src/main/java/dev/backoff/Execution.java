package dev.backoff;

import dev.backoff.driver.CallState;
import dev.backoff.driver.Verdict;
import java.util.ArrayDeque;
import java.util.random.RandomGenerator;

/**
 * The decision engine for one call: given the outcome of each attempt, it says "success", "retry after D"
 * or "stop, because R", and tells the policy's budget and listeners. The call state machine
 * ({@link CallMachine}) keeps it as the call's state; drivers outside the core hold it as a
 * {@link CallState} (this class is that handle, so the handle costs nothing) and feed it only through
 * {@code dev.backoff.driver.Engine}'s inputs.
 *
 * <p>Not thread-safe: one execution belongs to one call, whose attempts happen one after another.
 * Times are readings of the driver's clock; only differences are used, so they may wrap.
 *
 * @param <R> the result type
 */
final class Execution<R> implements CallState<R> {
  /** Histories one exception instance may carry: nested retries need a few; a reused instance no more. */
  static final int MAX_HISTORIES = 8;
  /** The loops' allocation-free decisions ({@link #recordNanos}): the call succeeded. A retry is its delay, {@code >= 0}. */
  static final long SUCCEEDED = -1;
  /** The loops' allocation-free decisions: the call stopped, for {@link #stopReason()}. */
  static final long STOPPED = -2;

  // State flags, in one byte: an execution is a retrying call's only per-call object, so its size is the
  // retry path's allocation (a test holds it to 72 bytes). New boolean state belongs here, not in a field.
  private static final int DONE = 1;
  private static final int LAST_IS_FAILURE = 2; // last holds the last attempt's failure, else its result
  private static final int HISTORY_ATTACHED = 4;
  // The budget granted the scheduled retry (for lastFailureClass) and that retry has not started: a retry that
  // never starts (interrupted or cancelled while waiting, refused by the scheduler) gives it back on stop.
  private static final int RETRY_GRANTED = 8;
  // The breaker permit passed in with the outcome being recorded has not been reported yet: if a policy
  // callback throws before it is, the permit is released, so the breaker never waits for it.
  private static final int PERMIT_OPEN = 16;
  // The async loop holds a token from the policy's rate limiter while it waits to start the next attempt.
  private static final int RATE_TOKEN_HELD = 32;
  // The last outcome is a retried result still in the call's custody: not handed back to the driver, so that
  // the call can end with it if the retry is refused before it starts (see takeHeldResult).
  private static final int RESULT_HELD = 64;
  private static final StopReason[] STOP_REASONS = StopReason.values();

  private final RetryPolicy<R> policy;
  private final long startNanos;
  private long lastNanos;
  private long previousDelayNanos;
  private long totalDelayNanos;
  private int attempts;
  private int retriesScheduled;
  private FailureClass lastFailureClass;
  private Object last; // the last attempt's failure (LAST_IS_FAILURE) or result
  // Rarely used state: null; the one earlier failure (a Throwable), so that a call failing twice and then
  // succeeding allocates nothing more; or a Rare, from the third failure on, with attempt listeners, or with
  // a random source other than the policy's.
  private Object rare;
  private byte flags;
  private byte stop; // the stop reason's ordinal + 1; 0 until the call stops

  /** The state few calls need, in a side object created only for those that do. */
  private static final class Rare {
    RandomGenerator random; // null: the policy's
    Object call; // the call's identity for listeners of attempt events (RetryEvent.call()), or null
    Throwable earlierFailure; // the first earlier failure, until a second one arrives
    ArrayDeque<Throwable> earlierFailures; // the most recent earlier failures, bounded by maxSuppressed
    Hedges hedges; // a hedged call's state for the call machine, or null
  }

  Execution(RetryPolicy<R> policy, long startNanos, RandomGenerator random) {
    this.policy = policy;
    this.startNanos = startNanos;
    this.lastNanos = startNanos;
    if (random != policy.random) {
      rare().random = random;
    }
    if (policy.budget != null) {
      policy.budget.onCall();
    }
  }

  /**
   * Records a failed attempt (its exception) and decides by the policy's rules, with the policy's pushback
   * extractor if any.
   *
   * @throws NullPointerException if {@code failure} is null
   * @throws IllegalStateException if the call has already ended
   */
  Decision onFailure(Throwable failure, long nowNanos) {
    Nanos.requireNonNull("failure", failure);
    return decision(recordFailure(failure, policyHint(null, failure), nowNanos, null));
  }

  /**
   * Records an attempt that returned {@code result} and decides: a success unless the policy retries that
   * result, with the policy's pushback extractor if any.
   *
   * @throws IllegalStateException if the call has already ended
   */
  Decision onResult(R result, long nowNanos) {
    if (policy.retryOnResult == null || !policy.retryOnResult.test(result)) {
      return decision(succeed(result, nowNanos, null));
    }
    return decision(recordRetryableResult(result, policyHint(result, null), nowNanos, null));
  }

  /**
   * Stops the call from outside the engine (the thread was interrupted, the caller cancelled) and tells the
   * listeners it was aborted. Has no effect on a call that has already ended.
   *
   * <p>If the last decision was a retry that has not started (its outcome not recorded, and no loop said it
   * started), the budget gets that retry's permission back ({@link RetryBudget#release}): a budget is
   * charged only for retries that go ahead.
   *
   * @throws NullPointerException if {@code reason} is null
   */
  Decision stop(StopReason reason, long nowNanos) {
    Nanos.requireNonNull("reason", reason);
    if ((flags & DONE) != 0) {
      StopReason stopped = stopReason();
      return Decision.stop(stopped == null ? reason : stopped);
    }
    stopNanos(reason, nowNanos);
    return Decision.stop(reason);
  }

  /** {@link #stop}, for the loops: no decision object. */
  void stopNanos(StopReason reason, long nowNanos) {
    if ((flags & DONE) != 0) {
      return;
    }
    lastNanos = nowNanos;
    if ((flags & RATE_TOKEN_HELD) != 0) {
      flags &= ~RATE_TOKEN_HELD;
      policy.rateLimiter.unreserve();
    }
    if ((flags & RETRY_GRANTED) != 0) {
      flags &= ~RETRY_GRANTED;
      policy.budget.release(lastFailureClass);
    }
    end(reason);
  }

  /** The public decision for an allocation-free one: only retries allocate. */
  private Decision decision(long decided) {
    if (decided >= 0) {
      return Decision.retryAfter(decided);
    }
    return decided == SUCCEEDED ? Decision.success() : Decision.stop(stopReason());
  }

  /**
   * The drivers' way in (through {@code dev.backoff.driver}): records an outcome as the driver's judge saw
   * it. The result predicate is not tested again: the judge already did.
   */
  Decision record(R result, Throwable failure, Verdict verdict, long nowNanos) {
    return decision(recordNanos(result, failure, verdict, nowNanos, null));
  }

  /**
   * The loops' way in: {@link #record}, with the circuit breaker's permit for the attempt (or null), and
   * the decision as a number: the retry's delay ({@code >= 0}), {@link #SUCCEEDED} or {@link #STOPPED}. The
   * permit hears the outcome: a success, a failure the rules would retry (by its class), or a release for
   * anything else (a refused failure, a policy callback that threw).
   */
  long recordNanos(R result, Throwable failure, Verdict verdict, long nowNanos, CircuitBreaker.Permit permit) {
    if (permit != null) {
      flags |= PERMIT_OPEN;
    }
    try {
      return recordJudged(result, failure, verdict, nowNanos, permit);
    } catch (RuntimeException | Error unexpected) {
      if ((flags & PERMIT_OPEN) != 0) {
        flags &= ~PERMIT_OPEN;
        permit.release(); // a policy callback threw: the breaker must not wait for this attempt forever
      }
      throw unexpected;
    }
  }

  /**
   * The loops' way in for an accepted result when the attempt had no breaker permit: {@link #recordNanos}
   * with {@link Verdict#ACCEPT}, returning {@link #SUCCEEDED}. Small, so that the loops inline it.
   */
  long succeedNanos(R result, long nowNanos) {
    return succeed(result, nowNanos, null);
  }

  private long recordJudged(R result, Throwable failure, Verdict verdict, long nowNanos,
      CircuitBreaker.Permit permit) {
    StopReason reason = verdict.stopReason();
    if (reason != null) {
      beginAttemptOutcome(nowNanos);
      if (failure != null) {
        rememberFailure(failure);
        return decide(FailureClass.TRANSIENT, reason, Pushback.NONE, nowNanos, permit);
      }
      rememberResult(result);
      return decide(resultClass(result), reason, Pushback.NONE, nowNanos, permit);
    }
    if (verdict.isAccept()) {
      if (failure != null) {
        throw new IllegalArgumentException("a failure cannot be accepted: " + failure);
      }
      return succeed(result, nowNanos, permit);
    }
    long hint = verdict.usesPolicyPushback() ? policyHint(result, failure) : verdict.pushbackHintNanos();
    return failure != null ? recordFailure(failure, hint, nowNanos, permit)
        : recordRetryableResult(result, hint, nowNanos, permit);
  }

  private long policyHint(R result, Throwable failure) {
    return policy.pushback == null ? Pushback.NONE : policy.pushback.hintNanos(result, failure);
  }

  private long recordFailure(Throwable failure, long hint, long nowNanos, CircuitBreaker.Permit permit) {
    beginAttemptOutcome(nowNanos);
    rememberFailure(failure);
    int inspected = Classification.inspect(policy, failure);
    StopReason refusal = Classification.refusal(policy, failure, inspected);
    return decide(failureClass(failure, inspected, refusal), refusal, hint, nowNanos, permit);
  }

  private FailureClass failureClass(Throwable failure, int inspected, StopReason refusal) {
    if (refusal != null) {
      return FailureClass.TRANSIENT;
    }
    if (policy.failureClassifier == Classification.DEFAULT_CLASSIFIER) {
      return (inspected & Classification.TIMEOUT) != 0 ? FailureClass.TIMEOUT : FailureClass.TRANSIENT;
    }
    FailureClass failureClass = policy.failureClassifier.apply(failure);
    return failureClass == null ? FailureClass.TRANSIENT : failureClass;
  }

  // Hedging (HedgedCall, and the simulator through Engine): several attempts of one call may be in flight,
  // so an attempt's failure does not by itself end the call, and the next attempt needs no backoff.

  /**
   * Hedging: asks for one more attempt alongside those in flight. Refuses it once {@code started} attempts
   * reach the hedging's bound, once the deadline has passed, or when the budget refuses it (asked for the
   * class {@code triggerClass}, that of the failure that triggered the hedge, or {@link FailureClass#TRANSIENT}
   * when the hedging delay did). A granted hedge is charged to the budget and counted among the retries, and
   * the listeners hear of it. Does not end the call.
   *
   * @return null if the hedge may start now, else why not
   */
  StopReason tryHedge(int started, FailureClass triggerClass, Throwable trigger, long nowNanos) {
    if ((flags & DONE) != 0) {
      StopReason stopped = stopReason();
      throw new IllegalStateException("the call has already ended: " + (stopped == null ? "success" : stopped));
    }
    if (started >= policy.hedging.maxStarted(policy.maxAttempts)) {
      return StopReason.ATTEMPTS_EXHAUSTED;
    }
    if (policy.maxElapsedNanos != Long.MAX_VALUE && nowNanos - startNanos > policy.maxElapsedNanos) {
      return StopReason.DEADLINE_EXCEEDED;
    }
    FailureClass failureClass = triggerClass == null ? FailureClass.TRANSIENT : triggerClass;
    if (policy.budget != null && !policy.budget.tryAcquire(failureClass)) {
      return StopReason.BUDGET_EXHAUSTED;
    }
    retriesScheduled++;
    attempts = Math.max(attempts, started + 1); // a hedged call's attempts are those it started
    if (lastFailureClass == null) {
      lastFailureClass = failureClass; // what the budget refunds on success
    }
    if (policy.listeners.length > 0) {
      Listeners.tell(policy.listeners, Listeners.HEDGE_SENT, new RetryEvent<>(policy.name, started + 1,
          nowNanos - startNanos, null, trigger, triggerClass, 0, null, 0, call()));
    }
    return null;
  }

  /**
   * Hedging: records a failed (or retryable) attempt's outcome, judged, with the circuit breaker's
   * {@code attemptPermit} for it (or null). Returns:
   * <ul>
   *   <li>a retry decision: the next hedge may start after its delay (zero: at once; a pushback hint
   *       otherwise);
   *   <li>a stop decision with the call still running ({@link #isDone()} false): no further hedge may start
   *       (the server said stop, or asked for longer than the maximum pushback); the attempts in flight go on;
   *   <li>a stop decision with the call ended ({@link #isDone()} true): the failure was fatal (not retryable,
   *       aborted, or the driver's stop verdict); the listeners have heard.
   * </ul>
   */
  Decision recordHedged(R result, Throwable failure, Verdict verdict, CircuitBreaker.Permit attemptPermit,
      long nowNanos) {
    if (verdict.isAccept()) {
      throw new IllegalArgumentException("an accepted outcome is a success, not a hedged failure: " + verdict);
    }
    try {
      if ((flags & DONE) != 0) {
        StopReason stopped = stopReason();
        throw new IllegalStateException("the call has already ended: " + (stopped == null ? "success" : stopped));
      }
      attempts = Math.max(attempts, 1); // counted when started (tryHedge), not when they end
      lastNanos = nowNanos;
      StopReason refusal = verdict.stopReason();
      FailureClass failureClass;
      if (failure != null) {
        rememberFailure(failure);
        if (refusal == null) {
          int inspected = Classification.inspect(policy, failure);
          refusal = Classification.refusal(policy, failure, inspected);
          failureClass = failureClass(failure, inspected, refusal);
        } else {
          failureClass = FailureClass.TRANSIENT;
        }
      } else {
        rememberResult(result);
        failureClass = resultClass(result);
      }
      lastFailureClass = failureClass;
      // Every attempt's outcome is a response to the limiter, except one the caller cut short.
      if (policy.rateLimiter != null && refusal != StopReason.INTERRUPTED && refusal != StopReason.CANCELLED) {
        policy.rateLimiter.onResponse(failureClass == FailureClass.THROTTLED);
      }
      if (attemptPermit != null) {
        if (refusal == null) {
          attemptPermit.onFailure(failureClass);
        } else {
          attemptPermit.release();
        }
        attemptPermit = null;
      }
      if (refusal != null) {
        return decision(end(refusal));
      }
      if (policy.budget != null) {
        policy.budget.onFailure(failureClass);
      }
      long hint = verdict.usesPolicyPushback() ? policyHint(result, failure) : verdict.pushbackHintNanos();
      if (hint == Pushback.STOP) {
        return Decision.stop(StopReason.PUSHBACK);
      }
      if (hint > policy.maxPushbackNanos) {
        return Decision.stop(StopReason.PUSHBACK_TOO_LONG);
      }
      return Decision.retryAfter(Math.max(0, hint));
    } finally {
      if (attemptPermit != null) {
        attemptPermit.release(); // a policy callback threw before the outcome reached the breaker
      }
    }
  }

  /**
   * Hedging: attempt {@code attempt} returned the accepted {@code result}; the listeners hear which one won
   * ({@link RetryListener#onHedgeWon} when it was a hedge), then of the success.
   */
  Decision succeedHedged(R result, int attempt, long nowNanos) {
    if (attempt > 1 && policy.listeners.length > 0 && (flags & DONE) == 0) {
      Listeners.tell(policy.listeners, Listeners.HEDGE_WON, new RetryEvent<>(policy.name, attempt,
          nowNanos - startNanos, result, null, null, 0, null, 0, call()));
    }
    // The winner was counted when it started; succeed counts it again, so it starts from one fewer.
    attempts = Math.max(attempts, 1) - 1;
    return decision(succeed(result, nowNanos, null));
  }

  private long recordRetryableResult(R result, long hint, long nowNanos, CircuitBreaker.Permit permit) {
    beginAttemptOutcome(nowNanos);
    rememberResult(result);
    return decide(resultClass(result), null, hint, nowNanos, permit);
  }

  private FailureClass resultClass(R result) {
    FailureClass failureClass = policy.resultClassifier.apply(result);
    return failureClass == null ? FailureClass.TRANSIENT : failureClass;
  }

  private long succeed(R result, long nowNanos, CircuitBreaker.Permit permit) {
    beginAttemptOutcome(nowNanos);
    flags |= DONE;
    // The last attempt returned a result: no event may report an old failure (nor is it kept as an earlier one).
    last = result;
    flags &= ~(LAST_IS_FAILURE | RESULT_HELD);
    if (policy.rateLimiter != null) {
      policy.rateLimiter.onResponse(false);
    }
    if (permit != null) {
      flags &= ~PERMIT_OPEN;
      permit.onSuccess();
    }
    if (policy.budget != null) {
      policy.budget.onSuccess(retriesScheduled, lastFailureClass);
    }
    if (policy.listeners.length > 0) {
      Listeners.tell(policy.listeners, Listeners.SUCCESS, event(null, 0, null));
    }
    return SUCCEEDED;
  }

  /**
   * The call is stopping with attempts in flight, {@code started} in all (the first included): each was made,
   * so each counts among its attempts although its outcome is never recorded (as an attempt cut short by an
   * interrupt is counted when its failure is recorded). No effect on a call that has ended.
   */
  void countStarted(int started) {
    if ((flags & DONE) == 0 && started > attempts) {
      attempts = started;
    }
  }

  /**
   * The retry the engine decided on is starting now: for the loops, whose attempt can be cut short before its
   * outcome is recorded (an asynchronous call cancelled while its attempt is in flight). A {@link #stop}
   * after this keeps the budget's charge, as the retry did go ahead; recording the outcome implies it.
   */
  void onRetryStart() {
    flags &= ~RETRY_GRANTED;
  }

  private void beginAttemptOutcome(long nowNanos) {
    if ((flags & DONE) != 0) {
      StopReason stopped = stopReason();
      throw new IllegalStateException("the call has already ended: " + (stopped == null ? "success" : stopped));
    }
    flags &= ~RETRY_GRANTED;
    attempts++;
    lastNanos = nowNanos;
  }

  private Rare rare() {
    Object slot = rare;
    if (slot instanceof Rare r) {
      return r;
    }
    Rare r = new Rare();
    r.earlierFailure = (Throwable) slot;
    rare = r;
    return r;
  }

  private RandomGenerator random() {
    return rare instanceof Rare r && r.random != null ? r.random : policy.random;
  }

  private void rememberFailure(Throwable failure) {
    Throwable previous = lastFailure();
    last = failure;
    flags = (byte) ((flags | LAST_IS_FAILURE) & ~RESULT_HELD);
    keepEarlierFailure(previous, failure);
  }

  /** A retryable result replaced the last failure: keep that failure among the earlier ones. */
  private void rememberResult(R result) {
    Throwable previous = lastFailure();
    last = result;
    flags = (byte) ((flags & ~LAST_IS_FAILURE) | RESULT_HELD);
    keepEarlierFailure(previous, null);
  }

  private void keepEarlierFailure(Throwable previous, Throwable failure) {
    if (previous == null || previous == failure || policy.maxSuppressed <= 0) {
      return;
    }
    Object slot = rare;
    if (slot == null) {
      rare = previous; // the first earlier failure needs no side object
      return;
    }
    Rare r = rare();
    if (r.earlierFailures == null) {
      if (r.earlierFailure == null) {
        r.earlierFailure = previous;
        return;
      }
      r.earlierFailures = new ArrayDeque<>(Math.min(policy.maxSuppressed, 16));
      r.earlierFailures.addLast(r.earlierFailure);
      r.earlierFailure = null;
    }
    if (r.earlierFailures.size() == policy.maxSuppressed) {
      r.earlierFailures.removeFirst();
    }
    r.earlierFailures.addLast(previous);
  }

  /**
   * Decides after an outcome the rules would retry unless {@code refusal} says otherwise. Kept small enough
   * for the JIT to inline into the loops (under 325 bytecodes): what only some policies have (a rate limiter,
   * a breaker, a budget, a deadline, listeners) is behind one test each, in the cold methods below.
   */
  private long decide(FailureClass failureClass, StopReason refusal, long hint, long nowNanos,
      CircuitBreaker.Permit permit) {
    lastFailureClass = failureClass;
    if (permit != null || policy.hearsOutcomes) {
      reportOutcome(failureClass, refusal, permit);
    }
    if (refusal != null) {
      return end(refusal);
    }
    if (hint == Pushback.STOP) {
      return end(StopReason.PUSHBACK);
    }
    if (attempts >= policy.maxAttempts) {
      return end(StopReason.ATTEMPTS_EXHAUSTED);
    }
    Backoff backoff = policy.classesWithBackoff.length == 0 ? policy.backoff : policy.backoff(failureClass);
    int retry = retriesScheduled + 1;
    long backoffNanos = Math.max(0, backoff.delayNanos(retry, previousDelayNanos, totalDelayNanos, random()));
    long delay = backoffNanos;
    if (hint >= 0) {
      if (hint > policy.maxPushbackNanos) {
        return end(StopReason.PUSHBACK_TOO_LONG);
      }
      delay = Math.min(Math.max(hint, backoffNanos), Nanos.add(backoffNanos, policy.pushbackAboveBackoffNanos));
    }
    if (policy.gatesRetries) {
      StopReason refused = refuseRetry(failureClass, delay, nowNanos);
      if (refused != null) {
        return end(refused);
      }
    }
    retriesScheduled = retry;
    previousDelayNanos = backoffNanos;
    totalDelayNanos = Nanos.add(totalDelayNanos, backoffNanos);
    if (policy.listeners.length > 0) {
      Listeners.tell(policy.listeners, Listeners.RETRY_SCHEDULED, event(failureClass, delay, null));
    }
    return delay;
  }

  /**
   * Tells the rate limiter, the attempt's breaker permit and the budget of an outcome the rules would retry
   * unless {@code refusal} says otherwise (for policies with any of them, or a permit).
   */
  private void reportOutcome(FailureClass failureClass, StopReason refusal, CircuitBreaker.Permit permit) {
    // Every attempt's outcome is a response to the limiter, except one the caller cut short.
    if (policy.rateLimiter != null && refusal != StopReason.INTERRUPTED && refusal != StopReason.CANCELLED) {
      policy.rateLimiter.onResponse(failureClass == FailureClass.THROTTLED);
    }
    if (permit != null) {
      flags &= ~PERMIT_OPEN;
      // As with the budget, only failures the rules would retry say something about the dependency.
      if (refusal == null) {
        permit.onFailure(failureClass);
      } else {
        permit.release();
      }
    }
    // Only failures the rules would retry count against a budget: gRPC charges retryable statuses only, and
    // a programming error or an interruption says nothing about the server's health.
    if (policy.budget != null && refusal == null) {
      policy.budget.onFailure(failureClass);
    }
  }

  /**
   * For policies with a deadline, a breaker or a budget: why a retry after {@code delay} may not be
   * scheduled, or null if it may (the budget's grant then taken, to be given back if it never starts).
   */
  private StopReason refuseRetry(FailureClass failureClass, long delay, long nowNanos) {
    if (policy.maxElapsedNanos != Long.MAX_VALUE
        && Nanos.add(nowNanos - startNanos, delay) > policy.maxElapsedNanos) {
      return StopReason.DEADLINE_EXCEEDED;
    }
    // A retry the breaker would refuse when it falls due stops the call now, without the sleep.
    if (policy.breaker != null && !policy.breaker.mayPermitIn(delay)) {
      return StopReason.CIRCUIT_OPEN;
    }
    RetryBudget budget = policy.budget;
    if (budget != null) {
      if (!budget.tryAcquire(failureClass)) {
        return StopReason.BUDGET_EXHAUSTED;
      }
      flags |= RETRY_GRANTED;
    }
    return null;
  }

  private long end(StopReason reason) {
    flags |= DONE;
    stop = (byte) (reason.ordinal() + 1);
    if (policy.listeners.length > 0) {
      Listeners.tell(policy.listeners, Listeners.stop(reason), event(lastFailureClass, 0, reason));
    }
    return STOPPED;
  }

  private RetryEvent<R> event(FailureClass failureClass, long delayNanos, StopReason reason) {
    return new RetryEvent<>(policy.name, attempts, lastNanos - startNanos, lastResult(), lastFailure(),
        failureClass, delayNanos, reason, 0, call());
  }

  private Object call() {
    return rare instanceof Rare r ? r.call : null;
  }

  /**
   * Result custody, the one rule for every loop: a retried result stays in the call's custody while the call
   * waits to retry, because the call may still end with it. It is handed back to the driver (to discard: an
   * HTTP body's connection released) only when the next attempt is about to start, or when the caller cancels
   * or interrupts the call; a retry refused before it starts (by the breaker, the rate limiter or its wait past
   * the deadline) ends the call with it, exactly as when the attempts run out, the deadline passes or the
   * budget refuses (the engine decides those with the result in hand). Returns the held result and gives up
   * custody of it, or null if none is held (the last outcome was a failure, or custody was given up before):
   * so no result is handed back twice, and the one handed back is never the call's outcome.
   */
  @SuppressWarnings("unchecked")
  R takeHeldResult() {
    if ((flags & RESULT_HELD) == 0) {
      return null;
    }
    flags &= ~RESULT_HELD;
    return (R) last;
  }

  /**
   * The async loop: whether it holds a rate limiter's token for the next attempt while waiting for it (a
   * {@link #stop} then gives the token back).
   */
  void rateTokenHeld(boolean held) {
    flags = (byte) (held ? flags | RATE_TOKEN_HELD : flags & ~RATE_TOKEN_HELD);
  }

  /** Whether the async loop holds a rate limiter's token for the next attempt (see {@link #rateTokenHeld(boolean)}). */
  boolean rateTokenHeld() {
    return (flags & RATE_TOKEN_HELD) != 0;
  }

  /**
   * The call machine's hedge state for this call (see {@link Hedges}), created the first time: referenced from
   * the side object, so that the calls that do not hedge (a simulator's storm has many) keep a small one.
   */
  Hedges hedges() {
    Rare r = rare();
    Hedges hedges = r.hedges;
    if (hedges == null) {
      hedges = new Hedges();
      r.hedges = hedges;
    }
    return hedges;
  }

  /** The class of the last retryable failure (or of the budget's charge for a hedge), or null. */
  FailureClass lastFailureClass() {
    return lastFailureClass;
  }

  /** The loops: the call's identity in the events this execution sends (see {@link RetryEvent#call()}). */
  void call(Object identity) {
    if (identity != null || rare instanceof Rare) {
      rare().call = identity;
    }
  }

  /**
   * Prepares the failure the caller should get when the call stopped: the last failure, with the earlier
   * failures (at most the policy's {@code maxSuppressed}, the most recent) and a {@link RetryHistory}
   * attached as suppressed exceptions. Returns null if the last attempt returned a result instead.
   *
   * <p>Nothing is attached twice: an earlier failure the exception already carries (the same instance
   * thrown again, in this call or an earlier one) is skipped. An exception instance thrown again by many
   * calls (a shared constant) therefore stays bounded: earlier failures are attached only while it carries
   * fewer than {@code maxSuppressed} suppressed exceptions besides histories, and histories only while it
   * carries fewer than 8 (after that, {@link RetryHistory#of} reports an older call's).
   */
  @Override
  public Throwable finalFailure() {
    Throwable failure = lastFailure();
    if (failure == null) {
      return null;
    }
    Throwable[] earlier = takeEarlierFailures();
    if (earlier == null && (flags & HISTORY_ATTACHED) != 0) {
      return failure;
    }
    Throwable[] attached = failure.getSuppressed(); // a shared empty array when there are none
    int histories = 0;
    for (Throwable suppressed : attached) {
      if (suppressed instanceof RetryHistory) {
        histories++;
      }
    }
    if (earlier != null) {
      attachEarlierFailures(failure, attached, attached.length - histories, earlier);
    }
    // Always this call's own history, even if the failure already carries one (an inner retrying call's, or
    // an earlier call's when an exception instance is reused): RetryHistory.of reads the last one attached.
    if ((flags & HISTORY_ATTACHED) == 0) {
      flags |= HISTORY_ATTACHED;
      if (histories < MAX_HISTORIES) {
        failure.addSuppressed(new RetryHistory(policy.name, attempts, lastNanos - startNanos, stopReason()));
      }
    }
    return failure;
  }

  /** The earlier failures kept so far, oldest first, or null if none; they are attached once only. */
  private Throwable[] takeEarlierFailures() {
    Object slot = rare;
    if (slot instanceof Throwable one) {
      rare = null;
      return new Throwable[] {one};
    }
    if (slot instanceof Rare r) {
      Throwable[] earlier = null;
      if (r.earlierFailures != null) {
        earlier = r.earlierFailures.toArray(new Throwable[0]);
      } else if (r.earlierFailure != null) {
        earlier = new Throwable[] {r.earlierFailure};
      }
      r.earlierFailures = null;
      r.earlierFailure = null;
      return earlier;
    }
    return null;
  }

  private void attachEarlierFailures(Throwable failure, Throwable[] attached, int alreadyAttached,
      Throwable[] earlierFailures) {
    Throwable[] fresh = new Throwable[earlierFailures.length];
    int count = 0;
    for (Throwable earlier : earlierFailures) {
      // By identity: an exception type may override equals.
      if (earlier != failure && !containsInstance(attached, attached.length, earlier)
          && !containsInstance(fresh, count, earlier)) {
        fresh[count++] = earlier;
      }
    }
    // Keep the most recent ones when there is not room for all.
    int first = Math.max(0, count - Math.max(0, policy.maxSuppressed - alreadyAttached));
    for (int i = first; i < count; i++) {
      failure.addSuppressed(fresh[i]);
    }
  }

  private static boolean containsInstance(Throwable[] throwables, int length, Throwable wanted) {
    for (int i = 0; i < length; i++) {
      if (throwables[i] == wanted) {
        return true;
      }
    }
    return false;
  }

  /**
   * For drivers that skip clock reads while no decision needs the time (no deadline, no listeners): records
   * when the call ended, so that the {@link RetryHistory} reports the elapsed time truly.
   */
  void markEnd(long nowNanos) {
    lastNanos = nowNanos;
  }

  /** Attempts recorded so far. */
  @Override
  public int attempts() {
    return attempts;
  }

  /** Retries scheduled so far. */
  @Override
  public int retries() {
    return retriesScheduled;
  }

  /** The time from the call's start to the last recorded outcome, in nanoseconds. */
  @Override
  public long elapsedNanos() {
    return lastNanos - startNanos;
  }

  /** The clock reading at which the call started. */
  @Override
  public long startNanos() {
    return startNanos;
  }

  /** The last attempt's failure, or null if it returned a result. */
  @Override
  public Throwable lastFailure() {
    return (flags & LAST_IS_FAILURE) != 0 ? (Throwable) last : null;
  }

  /** The last attempt's result (null if it failed). */
  @SuppressWarnings("unchecked")
  @Override
  public R lastResult() {
    return (flags & LAST_IS_FAILURE) != 0 ? null : (R) last;
  }

  /** Why the call stopped, or null if it has not stopped (or succeeded). */
  @Override
  public StopReason stopReason() {
    return stop == 0 ? null : STOP_REASONS[stop - 1];
  }

  /** True once the call has succeeded or stopped. */
  @Override
  public boolean isDone() {
    return (flags & DONE) != 0;
  }

  /** The policy this execution follows. */
  @Override
  public RetryPolicy<R> policy() {
    return policy;
  }
}
