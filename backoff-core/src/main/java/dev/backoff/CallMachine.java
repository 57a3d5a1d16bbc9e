package dev.backoff;

import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.Verdict;
import java.util.random.RandomGenerator;

/**
 * The call state machine: every decision a driver needs between "start the call" and "the call is complete",
 * written once. A driver feeds it inputs and carries out the effects it answers with; it decides nothing
 * itself.
 *
 * <pre>
 *  input                         machine                               effect (the answer)
 *  start ───────────────────────► first-attempt rule: startNanos ──────► (the reading to keep)
 *  gate (before every attempt) ─► admit: breaker ─┬─ OPEN ─────────────► complete (refused)
 *                                                 └─ permit ─► meter: rate limiter
 *                                                      ├─ START ───────► start attempt (with the permit)
 *                                                      ├─ n &gt;= 0 ───────► schedule wait n (token held, permit given back)
 *                                                      └─ STOPPED / REFUSED_* ► complete
 *  attempt outcome ─────────────► judge, then first / record:
 *                                      ├─ SUCCEEDED ───────────────────► complete (result delivered)
 *                                      ├─ n &gt;= 0 (retried result held) ─► schedule wait n
 *                                      └─ STOPPED ─────────────────────► complete (held result / failure)
 *  timer fired ─────────────────► gate again; START hands back the held result ► discard it, start attempt
 *  cancel / interrupt / deadline ► stop: budget and limiter token given back ──► discard held result, complete
 * </pre>
 *
 * <p>Effects are numbers, so the machine allocates nothing on any path: a wait ({@code >= 0}, its length
 * in nanoseconds), {@link #START}, or one of the completions ({@link #SUCCEEDED}, {@link #STOPPED} and, for a
 * first attempt refused by a gate before the call has an {@link Execution}, {@link #REFUSED_CIRCUIT_OPEN},
 * {@link #REFUSED_RATE_LIMITED}, {@link #REFUSED_DEADLINE}). Its state is the call's {@link Execution},
 * created at the first failure (a first-try success creates none), whose decisions are the engine's; the
 * machine adds the gate (circuit breaker, then rate limiter), the judge and result custody around them. It
 * never waits, runs an attempt or completes a future: that is what a driver is (a thread that sleeps, a
 * scheduler, an event queue). It reads the driver's clock only where a decision needs it: at the start when
 * a deadline or listeners need the start time, after the first failure, after a later outcome only when a
 * deadline or listeners need it, and at a stop.
 *
 * <p>Stateless and thread-safe itself; an {@link Execution} is not (a driver hands it between threads only
 * with a happens-before edge, as the asynchronous loop does with its state word).
 */
final class CallMachine {
  /** Effect: the call completed with the accepted result (an execution's last result, or the first one's). */
  static final long SUCCEEDED = Execution.SUCCEEDED;
  /** Effect: the call completed without success; the execution says why and holds its last outcome. */
  static final long STOPPED = Execution.STOPPED;
  /** Effect: start the next attempt now (after handing back the result {@link #timerFired} released). */
  static final long START = -3;
  /** Effect: the breaker refused the first attempt; the call completes with no execution. */
  static final long REFUSED_CIRCUIT_OPEN = -4;
  /** Effect: the rate limiter refused the first attempt (its wait would exceed the limiter's maximum). */
  static final long REFUSED_RATE_LIMITED = -5;
  /** Effect: the rate limiter's wait for the first attempt would end past the deadline. */
  static final long REFUSED_DEADLINE = -6;
  /**
   * Effects below this one are re-checks ({@link #meterOrRecheck}): wait {@code RECHECK - effect} nanoseconds
   * holding no token and no permit, then ask the whole gate again.
   */
  static final long RECHECK = -7;

  /** The breaker's answer when it refuses the attempt (null is its answer when the policy has no breaker). */
  static final CircuitBreaker.Permit OPEN = new Sentinel("open");

  private CallMachine() {}

  /** A gate's answer that is not a permit. */
  private static final class Sentinel implements CircuitBreaker.Permit {
    private final String name;

    Sentinel(String name) {
      this.name = name;
    }

    @Override
    public void onSuccess() {}

    @Override
    public void onFailure(FailureClass failureClass) {}

    @Override
    public void release() {}

    @Override
    public String toString() {
      return name;
    }
  }

  // ---- input: start ------------------------------------------------------------------------------------

  /** The first-attempt rule: the reading to keep as the call's start, or 0 when no decision needs it. */
  static long startNanos(RetryPolicy<?> policy, NanoClock clock) {
    return FirstAttempt.start(policy, clock);
  }

  // ---- the gate, in front of every attempt -------------------------------------------------------------

  /**
   * The gate's first half, the circuit breaker: its permit for the attempt, null without a breaker, or
   * {@link #OPEN} if it refuses.
   */
  static CircuitBreaker.Permit admit(RetryPolicy<?> policy) {
    if (policy.breaker == null) {
      return null;
    }
    CircuitBreaker.Permit permit = policy.breaker.tryAcquire();
    return permit == null ? OPEN : permit;
  }

  /**
   * The gate's second half, the rate limiter, for the attempt that {@code permit} admitted. Answers
   * {@link #START}; a wait {@code >= 0} with the limiter's token held by the call and the permit given back
   * (a waiting call holds none: {@link #timerFired} asks the breaker again); or a completion: for a retry
   * ({@code execution} not null) {@link #STOPPED}, with the execution stopped; for the first attempt
   * {@link #REFUSED_RATE_LIMITED} or {@link #REFUSED_DEADLINE}.
   *
   * @param execution the call's execution, or null before its first attempt (a first attempt that must wait
   *     gets its execution here, read back with {@link Execution} from the driver's field)
   */
  static long meter(RetryPolicy<?> policy, Execution<?> execution, long callStart, NanoClock clock,
      CircuitBreaker.Permit permit) {
    AdaptiveRateLimiter limiter = policy.rateLimiter;
    if (limiter == null) {
      return START;
    }
    return reserved(policy, execution, callStart, clock, permit, limiter.reserve());
  }

  /** The gate's answer for a firm reservation: its {@code wait} (0: at once) or refusal. */
  private static long reserved(RetryPolicy<?> policy, Execution<?> execution, long callStart, NanoClock clock,
      CircuitBreaker.Permit permit, long wait) {
    if (wait == 0) {
      return START;
    }
    release(permit);
    StopReason refusal = RateGate.refusal(policy, wait, callStart, clock);
    if (refusal == null) {
      if (execution != null) {
        execution.rateTokenHeld(true);
      }
      return wait;
    }
    if (execution == null) {
      return refusal == StopReason.RATE_LIMITED ? REFUSED_RATE_LIMITED : REFUSED_DEADLINE;
    }
    execution.stopNanos(refusal, clock.nanoTime());
    return STOPPED;
  }

  /**
   * The first attempt's wait for the limiter's token is over (no execution yet: the driver holds the token):
   * {@link #START} with {@code permit}, the breaker's answer asked again, or {@link #REFUSED_CIRCUIT_OPEN}
   * with the token given back.
   */
  static long firstTokenWaited(RetryPolicy<?> policy, CircuitBreaker.Permit permit) {
    if (permit == OPEN) {
      policy.rateLimiter.unreserve();
      return REFUSED_CIRCUIT_OPEN;
    }
    return START;
  }

  /** The first attempt's wait for the limiter's token was cut short (cancelled, interrupted): the token goes back. */
  static void firstTokenAbandoned(RetryPolicy<?> policy) {
    policy.rateLimiter.unreserve();
  }

  /** The reason a first attempt was refused by a gate, for a {@code REFUSED_*} effect. */
  static StopReason refusal(long effect) {
    if (effect == REFUSED_CIRCUIT_OPEN) {
      return StopReason.CIRCUIT_OPEN;
    }
    if (effect == REFUSED_RATE_LIMITED) {
      return StopReason.RATE_LIMITED;
    }
    if (effect == REFUSED_DEADLINE) {
      return StopReason.DEADLINE_EXCEEDED;
    }
    throw new IllegalArgumentException("not a refusal: " + effect);
  }

  // ---- the gate for drivers that re-check the rate limiter (the simulator) ------------------------------

  /**
   * The whole gate in front of the first attempt, for the breaker's answer {@code permit} from
   * {@link #admit}: {@link #REFUSED_CIRCUIT_OPEN}, or the rate limiter's answer ({@link #meter}, or
   * {@link #meterOrRecheck} when {@code recheck}).
   */
  static long firstGate(RetryPolicy<?> policy, long callStart, NanoClock clock, CircuitBreaker.Permit permit,
      boolean recheck) {
    if (permit == OPEN) {
      return REFUSED_CIRCUIT_OPEN;
    }
    return recheck ? meterOrRecheck(policy, null, callStart, clock, permit)
        : meter(policy, null, callStart, clock, permit);
  }

  /**
   * {@link #meter}, reserving with {@link AdaptiveRateLimiter#reserveOrRecheck()}: a wait beyond the
   * limiter's horizon takes no token, and the effect is then a re-check (below {@link #RECHECK}), the
   * permit given back: the driver waits {@code RECHECK - effect} nanoseconds and asks the whole gate again, priced at the rate of
   * that moment. Every other answer is {@link #meter}'s.
   */
  static long meterOrRecheck(RetryPolicy<?> policy, Execution<?> execution, long callStart, NanoClock clock,
      CircuitBreaker.Permit permit) {
    AdaptiveRateLimiter limiter = policy.rateLimiter;
    if (limiter == null) {
      return START;
    }
    long wait = limiter.reserveOrRecheck();
    if (AdaptiveRateLimiter.isRecheck(wait)) {
      release(permit);
      return RECHECK - Math.min(AdaptiveRateLimiter.recheckNanos(wait), Long.MAX_VALUE + RECHECK);
    }
    return reserved(policy, execution, callStart, clock, permit, wait);
  }

  /**
   * {@link #timerFired}, for a driver that re-checks the rate limiter ({@code recheck}): a retry's gate then
   * meters with {@link #meterOrRecheck}, and a re-check holds nothing, so the next timer asks the whole gate
   * again.
   */
  static long timerFired(Execution<?> execution, CircuitBreaker.Permit permit, NanoClock clock, boolean recheck) {
    if (!recheck || permit == OPEN || execution.rateTokenHeld()) {
      return timerFired(execution, permit, clock);
    }
    long effect = meterOrRecheck(execution.policy(), execution, execution.startNanos(), clock, permit);
    if (effect == START) {
      execution.onRetryStart();
    }
    return effect;
  }

  /**
   * {@link #timerFired(Execution, CircuitBreaker.Permit, NanoClock, boolean)}, asked first of {@code policy}
   * (the call's policy, or one with the same breaker, rate limiter and budget, which a driver keeps at hand):
   * without any of them nothing is asked or told and the answer is {@link #START}, without reading the
   * execution (with 100 000 simulated clients, a cache miss per retry).
   */
  static long timerFired(RetryPolicy<?> policy, Execution<?> execution, CircuitBreaker.Permit permit,
      NanoClock clock, boolean recheck) {
    if (policy.breaker == null && policy.rateLimiter == null && policy.budget == null) {
      return START;
    }
    return timerFired(execution, permit, clock, recheck);
  }

  // ---- input: attempt outcome --------------------------------------------------------------------------

  /**
   * The judge: the driver's verdict on an outcome, or the policy's rules when {@code judge} is null. A
   * failure seen while the caller's thread was {@code interrupted} (perhaps because of it) is never retried.
   *
   * @throws NullPointerException if the driver's judge returns null
   */
  static <R> Verdict judge(RetryPolicy<R> policy, OutcomeJudge<R> judge, R result, Throwable failure,
      boolean interrupted) {
    if (failure != null && interrupted) {
      return Verdict.stop(StopReason.INTERRUPTED);
    }
    if (judge == null) {
      if (failure != null) {
        return Verdict.RETRYABLE;
      }
      return policy.retryOnResult == null || !policy.retryOnResult.test(result) ? Verdict.ACCEPT : Verdict.RETRYABLE;
    }
    Verdict verdict = judge.judge(policy, result, failure);
    if (verdict == null) {
      throw new NullPointerException("the outcome judge " + judge + " returned null");
    }
    return verdict;
  }

  /**
   * The first attempt was accepted: the first-attempt rule (no execution; the limiter, breaker permit,
   * budget and listeners told as an execution would tell them). The effect is {@link #SUCCEEDED}.
   *
   * @throws IllegalArgumentException if a failure was accepted (the permit given back first)
   */
  static <R> long firstAccepted(RetryPolicy<R> policy, R result, Throwable failure, long start, NanoClock clock,
      CircuitBreaker.Permit permit, Object call) {
    if (failure != null) {
      release(permit);
      throw new IllegalArgumentException("the judge accepted a failure: " + failure, failure);
    }
    if (permit != null) {
      permit.onSuccess();
    }
    FirstAttempt.succeeded(policy, result, start, clock, call);
    return SUCCEEDED;
  }

  /**
   * The first attempt was not accepted: the call's execution, created now (the clock read once), with
   * {@code call} as its identity in listener events. If creating it throws (a budget's callback), the permit
   * is given back first.
   */
  static <R> Execution<R> firstFailed(RetryPolicy<R> policy, long start, long now, RandomGenerator random,
      Object call, CircuitBreaker.Permit permit) {
    try {
      return FirstAttempt.failed(policy, start, now, random, call);
    } catch (RuntimeException | Error unexpected) {
      release(permit);
      throw unexpected;
    }
  }

  /** Gives the breaker back the permit (or null) of an attempt whose outcome will not reach it. */
  static void release(CircuitBreaker.Permit permit) {
    if (permit != null) {
      permit.release();
    }
  }

  /**
   * The clock reading for a later outcome: a fresh one when a decision depends on the time (a deadline or
   * listeners), else the last one kept (a stop reads the clock again for the history).
   */
  static long outcomeNanos(Execution<?> execution, NanoClock clock) {
    return execution.policy().needsStartTime ? clock.nanoTime() : execution.startNanos() + execution.elapsedNanos();
  }

  /**
   * Records a judged outcome: {@link #SUCCEEDED}, {@link #STOPPED} (the execution keeps a retried result in
   * its custody: the call ends with it) or a wait {@code >= 0} before the next attempt (the retried result
   * still held, handed back only when that attempt starts).
   */
  static <R> long record(Execution<R> execution, R result, Throwable failure, Verdict verdict, long now,
      CircuitBreaker.Permit permit) {
    if (verdict == Verdict.ACCEPT && failure == null && permit == null) {
      return execution.succeedNanos(result, now); // small: the JIT inlines it into the driver
    }
    return execution.recordNanos(result, failure, verdict, now, permit);
  }

  // ---- input: timer fired ------------------------------------------------------------------------------

  /**
   * A wait the machine asked for is over. After a backoff wait the gate is asked again; after a rate
   * limiter's wait (its token held) only the breaker is. Answers {@link #START} (the permit for it from
   * {@link #admit}, passed in; the driver then discards {@link Execution#takeHeldResult()}), another wait
   * for the limiter's token, or {@link #STOPPED} (a gate refused the retry: the call ends with the held
   * result or last failure, exactly as when its attempts run out).
   */
  static long timerFired(Execution<?> execution, CircuitBreaker.Permit permit, NanoClock clock) {
    RetryPolicy<?> policy = execution.policy();
    if (permit == OPEN) { // the breaker opened (or ran out of trials) during the wait
      execution.stopNanos(StopReason.CIRCUIT_OPEN, clock.nanoTime());
      return STOPPED;
    }
    if (execution.rateTokenHeld()) {
      execution.rateTokenHeld(false); // the token is this attempt's
    } else {
      long effect = meter(policy, execution, execution.startNanos(), clock, permit);
      if (effect != START) {
        return effect;
      }
    }
    execution.onRetryStart();
    return START;
  }

  // ---- input: cancel, interrupt, deadline --------------------------------------------------------------

  /**
   * The caller stopped the call ({@code CANCELLED}, {@code INTERRUPTED}) or its own deadline passed
   * ({@code DEADLINE_EXCEEDED}): no attempt starts after this; the budget's grant for a retry that never
   * started and a held limiter token are given back. Returns the result the call held, which the driver
   * discards (nobody reads it), or null. No effect on a call that has already ended.
   */
  static <R> R stop(Execution<R> execution, StopReason reason, NanoClock clock) {
    if (execution.isDone()) {
      return null;
    }
    execution.stopNanos(reason, clock.nanoTime());
    return execution.takeHeldResult();
  }

  /**
   * A driver's wait failed unexpectedly (its sleeper threw): the call does not stop (the failure reaches the
   * caller as it is), but a limiter token it held for the next attempt goes back.
   */
  static void waitFailed(Execution<?> execution) {
    if (execution.rateTokenHeld()) {
      execution.rateTokenHeld(false);
      execution.policy().rateLimiter.unreserve();
    }
  }
}
