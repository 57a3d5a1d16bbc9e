package dev.backoff;

import dev.backoff.driver.Effect;
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
 * {@link #REFUSED_CONCURRENCY_LIMITED}, {@link #REFUSED_RATE_LIMITED}, {@link #REFUSED_DEADLINE}). Its state is the call's {@link Execution},
 * created at the first failure (a first-try success creates none), whose decisions are the engine's; the
 * machine adds the gate (circuit breaker, then concurrency limiter, then rate limiter), the judge and result custody around them. It
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
  /** Effect: the concurrency limiter refused the first attempt (after a wait for the rate limiter's token). */
  static final long REFUSED_CONCURRENCY_LIMITED = -8;
  /**
   * Effects below this one are re-checks ({@link #meter}): wait {@code RECHECK - effect} nanoseconds
   * ({@link #waitNanos}) holding no token and no permit, then ask the whole gate again.
   */
  static final long RECHECK = -9;

  /**
   * The breaker's answer when it refuses the attempt (null is its answer when the policy has no breaker); the
   * driver SPI's {@code Engine.CIRCUIT_OPEN}, so that a driver outside the core reads the same answer.
   */
  static final CircuitBreaker.Permit OPEN = RefusedPermit.CIRCUIT_OPEN;
  /** The gate's answer when the concurrency limiter refuses the attempt (the breaker's permit given back). */
  static final CircuitBreaker.Permit LIMITED = RefusedPermit.CONCURRENCY_LIMITED;

  /**
   * Hedging's effect: no further hedge may start (cancel a planned one's timer); the attempts in flight go
   * on, and the call ends when the last of them answers. {@link #noMoreHedges} says why.
   */
  static final long NO_MORE_HEDGES = -7;

  private CallMachine() {}

  // ---- input: start ------------------------------------------------------------------------------------

  /** The first-attempt rule: the reading to keep as the call's start, or 0 when no decision needs it. */
  static long startNanos(RetryPolicy<?> policy, NanoClock clock) {
    return FirstAttempt.start(policy, clock);
  }

  // ---- the gate, in front of every attempt -------------------------------------------------------------

  /**
   * The gate's first half for a call's first attempt: the circuit breaker, then the concurrency limiter. The
   * permit for the attempt (the limiter's slot, wrapping the breaker's permit, when the policy has a limiter),
   * null without either, or a refusal: {@link #OPEN} or {@link #LIMITED} (see {@link #isRefusal}).
   */
  static CircuitBreaker.Permit admit(RetryPolicy<?> policy) {
    return admit(policy, null);
  }

  /**
   * {@link #admit(RetryPolicy)} for the attempt that follows a wait of {@code execution}'s: a retry, or still
   * the first attempt when none has run (it waited for the rate limiter's token).
   */
  static CircuitBreaker.Permit admit(Execution<?> execution) {
    return admit(execution.policy(), execution);
  }

  /**
   * {@link #admit(RetryPolicy)} for a hedge of {@code execution}'s call (sent beside an attempt in flight, or
   * after a failure with none): a concurrency limiter admits it only as it admits a retry.
   */
  static CircuitBreaker.Permit admitHedge(Execution<?> execution) {
    return gate(execution.policy(), ConcurrencyLimiter.AttemptKind.HEDGE);
  }

  private static CircuitBreaker.Permit admit(RetryPolicy<?> policy, Execution<?> execution) {
    return gate(policy, execution == null || execution.attempts() == 0
        ? ConcurrencyLimiter.AttemptKind.FIRST : ConcurrencyLimiter.AttemptKind.RETRY);
  }

  private static CircuitBreaker.Permit gate(RetryPolicy<?> policy, ConcurrencyLimiter.AttemptKind kind) {
    CircuitBreaker.Permit permit = null;
    if (policy.breaker != null) {
      permit = policy.breaker.tryAcquire();
      if (permit == null) {
        return OPEN;
      }
    }
    ConcurrencyLimiter limiter = policy.concurrencyLimiter;
    if (limiter == null) {
      return permit;
    }
    CircuitBreaker.Permit slot = limiter.acquire(kind, permit);
    if (slot == null) {
      release(permit);
      return LIMITED;
    }
    return slot;
  }

  /** Whether the gate's answer is a refusal ({@link #OPEN} or {@link #LIMITED}) rather than a permit or null. */
  static boolean isRefusal(CircuitBreaker.Permit permit) {
    return permit == OPEN || permit == LIMITED;
  }

  /**
   * The gate's second half, the rate limiter, for the attempt that {@code permit} admitted. Answers
   * {@link #START}; a wait {@code >= 0} with the limiter's token held by the call and the permit given back
   * (a waiting call holds none: {@link #timerFired} asks the breaker again); a re-check (below
   * {@link #RECHECK}, see {@link #waitNanos}) when the wait is beyond the limiter's horizon
   * ({@link AdaptiveRateLimiter#reserveOrRecheck()}): no token taken and the permit given back, the driver
   * waits and asks the whole gate again, priced at the rate of that moment; or a completion: for a retry
   * ({@code execution} not null) {@link #STOPPED}, with the execution stopped; for the first attempt
   * {@link #REFUSED_RATE_LIMITED} or {@link #REFUSED_DEADLINE}. A re-check whose next ask would fall past the
   * deadline stops the call as a firm wait past it does.
   *
   * @param execution the call's execution, or null before its first attempt (a first attempt that must wait
   *     gets its execution here, read back with {@link Execution} from the driver's field)
   */
  static long meter(RetryPolicy<?> policy, Execution<?> execution, long callStart, NanoClock clock,
      CircuitBreaker.Permit permit) {
    return meter(policy, execution, callStart, clock, permit, true);
  }

  /**
   * {@link #meter}, for a driver that can ask again after a wait ({@code mayRecheck}) or one that cannot (the
   * AWS SDK sleeps the wait it is handed and then sends): the latter is given a firm reservation at today's
   * price, never a re-check.
   */
  static long meter(RetryPolicy<?> policy, Execution<?> execution, long callStart, NanoClock clock,
      CircuitBreaker.Permit permit, boolean mayRecheck) {
    AdaptiveRateLimiter limiter = policy.rateLimiter;
    if (limiter == null) {
      return START;
    }
    long wait = mayRecheck ? limiter.reserveOrRecheck() : limiter.reserve();
    if (wait == 0) {
      return START;
    }
    release(permit);
    if (AdaptiveRateLimiter.isRecheck(wait)) {
      long recheck = AdaptiveRateLimiter.recheckNanos(wait);
      if (policy.maxElapsedNanos != Long.MAX_VALUE
          && Nanos.add(clock.nanoTime() - callStart, recheck) > policy.maxElapsedNanos) {
        return refused(execution, StopReason.DEADLINE_EXCEEDED, clock); // no token to give back
      }
      return RECHECK - Math.min(recheck, Long.MAX_VALUE + RECHECK);
    }
    StopReason refusal = RateGate.refusal(policy, wait, callStart, clock);
    if (refusal == null) {
      if (execution != null) {
        execution.rateTokenHeld(true);
      }
      return wait;
    }
    return refused(execution, refusal, clock);
  }

  /** The rate gate stopped the call: the first attempt's {@code REFUSED_*}, or a retry's {@link #STOPPED}. */
  private static long refused(Execution<?> execution, StopReason refusal, NanoClock clock) {
    if (execution == null) {
      return refusal == StopReason.RATE_LIMITED ? REFUSED_RATE_LIMITED : REFUSED_DEADLINE;
    }
    execution.stopNanos(refusal, clock.nanoTime());
    return STOPPED;
  }

  /** Whether {@code effect} is a re-check of the rate limiter: wait {@link #waitNanos}, holding nothing. */
  static boolean isRecheck(long effect) {
    return effect < RECHECK;
  }

  /**
   * The nanoseconds a driver waits for {@code effect} before its next input: the effect itself for a wait
   * ({@code >= 0}), the re-check's wait for a re-check, or -1 when the effect is not a wait.
   */
  static long waitNanos(long effect) {
    return effect >= 0 ? effect : effect < RECHECK ? RECHECK - effect : -1;
  }

  /**
   * The first attempt's wait for the limiter's token is over (no execution yet: the driver holds the token):
   * {@link #START} with {@code permit}, the gate's answer asked again, or {@link #REFUSED_CIRCUIT_OPEN} or
   * {@link #REFUSED_CONCURRENCY_LIMITED} with the token given back.
   */
  static long firstTokenWaited(RetryPolicy<?> policy, CircuitBreaker.Permit permit) {
    if (isRefusal(permit)) {
      policy.rateLimiter.unreserve();
      return permit == OPEN ? REFUSED_CIRCUIT_OPEN : REFUSED_CONCURRENCY_LIMITED;
    }
    return START;
  }

  /** The first attempt's wait for the limiter's token was cut short (cancelled, interrupted): the token goes back. */
  static void firstTokenAbandoned(RetryPolicy<?> policy) {
    policy.rateLimiter.unreserve();
  }

  /** The reason a first attempt was refused by a gate, for a {@code REFUSED_*} effect. */
  static StopReason refusal(long effect) {
    return Effect.refusal(effect); // the SPI's numbers are the machine's (DriverCallInputsTest)
  }

  /**
   * The failure of a call whose first attempt the gate refused with {@code effect} ({@link #refusal}): the
   * breaker's {@link CircuitOpenException}, the concurrency limiter's {@link ConcurrencyLimitedException} or the
   * rate limiter's {@link RateLimitedException}, as the loops build them.
   */
  static RuntimeException refusedFirst(RetryPolicy<?> policy, long effect) {
    StopReason reason = refusal(effect);
    Object gate = reason == StopReason.CIRCUIT_OPEN ? policy.breaker
        : reason == StopReason.CONCURRENCY_LIMITED ? policy.concurrencyLimiter : policy.rateLimiter;
    if (gate == null) {
      throw new IllegalArgumentException("the policy has no gate that refuses with " + reason);
    }
    return reason == StopReason.CIRCUIT_OPEN ? policy.breaker.openException()
        : reason == StopReason.CONCURRENCY_LIMITED ? policy.concurrencyLimiter.refusal()
        : RateGate.refusal(policy, reason);
  }

  /**
   * The whole gate in front of the first attempt, for the breaker's answer {@code permit} from
   * {@link #admit}: {@link #REFUSED_CIRCUIT_OPEN} or {@link #REFUSED_CONCURRENCY_LIMITED}, or the rate
   * limiter's answer ({@link #meter}). A driver asks it again after a re-check.
   */
  static long firstGate(RetryPolicy<?> policy, long callStart, NanoClock clock, CircuitBreaker.Permit permit) {
    return firstGate(policy, callStart, clock, permit, true);
  }

  /** {@link #firstGate}, for a driver that may or may not ask again after a wait (see {@link #meter}). */
  static long firstGate(RetryPolicy<?> policy, long callStart, NanoClock clock, CircuitBreaker.Permit permit,
      boolean mayRecheck) {
    if (isRefusal(permit)) {
      return permit == OPEN ? REFUSED_CIRCUIT_OPEN : REFUSED_CONCURRENCY_LIMITED;
    }
    return meter(policy, null, callStart, clock, permit, mayRecheck);
  }

  /**
   * {@link #timerFired(Execution, CircuitBreaker.Permit, NanoClock)}, asked first of {@code policy}
   * (the call's policy, or one with the same gates and budget, which a driver keeps at hand): without a
   * breaker, concurrency limiter, rate limiter or budget nothing is asked or told and the answer is {@link #START}, without reading the
   * execution (with 100 000 simulated clients, a cache miss per retry).
   */
  static long timerFired(RetryPolicy<?> policy, Execution<?> execution, CircuitBreaker.Permit permit,
      NanoClock clock) {
    return timerFired(policy, execution, permit, clock, true);
  }

  /** {@link #timerFired(RetryPolicy, Execution, CircuitBreaker.Permit, NanoClock)}, see {@link #meter}'s flag. */
  static long timerFired(RetryPolicy<?> policy, Execution<?> execution, CircuitBreaker.Permit permit,
      NanoClock clock, boolean mayRecheck) {
    if (policy.breaker == null && policy.rateLimiter == null && policy.budget == null
        && policy.concurrencyLimiter == null) {
      return START;
    }
    return timerFired(execution, permit, clock, mayRecheck);
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
   * A wait the machine asked for is over. After a backoff wait the gate is asked again; after a rate limiter's
   * wait (its token held) only the breaker and the concurrency limiter are. Answers {@link #START} (the permit
   * for it from {@link #admit(Execution)}, passed in; the driver then discards
   * {@link Execution#takeHeldResult()}), another wait for the limiter's token, or {@link #STOPPED} (a gate refused the
   * retry: the call ends with the held result or last failure, exactly as when its attempts run out).
   */
  static long timerFired(Execution<?> execution, CircuitBreaker.Permit permit, NanoClock clock) {
    return timerFired(execution, permit, clock, true);
  }

  private static long timerFired(Execution<?> execution, CircuitBreaker.Permit permit, NanoClock clock,
      boolean mayRecheck) {
    RetryPolicy<?> policy = execution.policy();
    if (isRefusal(permit)) { // the breaker opened (or ran out of trials), or the concurrency limit filled up
      execution.stopNanos(permit == OPEN ? StopReason.CIRCUIT_OPEN : StopReason.CONCURRENCY_LIMITED, clock.nanoTime());
      return STOPPED;
    }
    if (execution.rateTokenHeld()) {
      execution.rateTokenHeld(false); // the token is this attempt's
    } else {
      long effect = meter(policy, execution, execution.startNanos(), clock, permit, mayRecheck);
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
   * started and a held limiter token are given back. A hedged call's attempts are those it started, the
   * ones in flight (which the driver cancels) included. Returns the result the call held, which the driver
   * discards (nobody reads it), or null. No effect on a call that has already ended.
   */
  static <R> R stop(Execution<R> execution, StopReason reason, NanoClock clock) {
    if (execution.isDone()) {
      return null;
    }
    Hedges hedges = execution.policy().hedging == null ? null : hedges(execution);
    if (hedges != null) {
      execution.countStarted(hedges.started); // before the stop, which the listeners hear with the count
    }
    execution.stopNanos(reason, clock.nanoTime());
    if (hedges != null) {
      ended(hedges); // the attempts in flight are cancelled
    }
    return execution.takeHeldResult();
  }

  /**
   * {@link #stop}, for a call whose first attempt has not started (it waits for the rate limiter's token; the
   * driver gives that token back): no attempt counts, none is in flight. The execution is the one the driver
   * created for the stop.
   */
  static void stopBeforeFirstAttempt(Execution<?> execution, StopReason reason, NanoClock clock) {
    execution.stopNanos(reason, clock.nanoTime());
  }

  /**
   * The caller stopped an unhedged call while its attempt was in flight (the driver cancelled it; its outcome,
   * if one still arrives, is not recorded): that attempt counts, as it does when a hedged call is stopped.
   * No effect on a call that has already ended.
   */
  static <R> R stopInFlight(Execution<R> execution, StopReason reason, long nowNanos) {
    if (execution.isDone()) {
      return null;
    }
    execution.countStarted(execution.attempts() + 1);
    execution.stopNanos(reason, nowNanos);
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

  // ---- hedging: more than one attempt in flight -------------------------------------------------------
  //
  // A policy with Hedging starts another attempt alongside those in flight when a planned hedge falls due
  // (the hedging delay after the last start, at once after a retryable failure, or after a server's
  // pushback). The machine decides each of those steps; the driver keeps the attempts (their futures, events
  // or permits) and the hedge's timer. Its state is the execution's Hedges; before the call has an execution
  // (created at the first failure or when the first hedge falls due) exactly its first attempt is in flight.

  /**
   * The next hedge after an attempt started (the first, or a hedge {@link #hedgeDue} answered {@link #START}
   * for): its delay {@code >= 0} (the driver plans it: a timer whose firing is {@link #hedgeDue}), or
   * {@link #NO_MORE_HEDGES} when the policy's attempts are all started or the hedge would fall due past the
   * deadline.
   *
   * @param execution the call's execution, or null if only the first attempt has started
   */
  static long nextHedge(RetryPolicy<?> policy, Execution<?> execution, long nowNanos) {
    if (execution == null) {
      if (policy.hedging.adaptive != null) {
        policy.hedging.adaptive.firstAttemptStarted(); // the extra-load cap earns its share of a hedge
      }
      return firstHedgeRefusal(policy) == null ? policy.hedging.delayNanos() : NO_MORE_HEDGES;
    }
    return plan(execution, hedges(execution), policy.hedging.delayNanos(), nowNanos);
  }

  /** Why the first attempt plans no hedge (its start is the call's), or null if it does. */
  private static StopReason firstHedgeRefusal(RetryPolicy<?> policy) {
    if (policy.hedging.maxStarted(policy.maxAttempts) <= 1) {
      return StopReason.ATTEMPTS_EXHAUSTED;
    }
    return policy.hedging.delayNanos() > policy.maxElapsedNanos ? StopReason.DEADLINE_EXCEEDED : null;
  }

  /** The execution's hedge state, filled in the first time the machine sees it (one attempt in flight). */
  private static Hedges hedges(Execution<?> execution) {
    Hedges hedges = execution.hedges();
    if (hedges.started == 0) {
      hedges.started = 1;
      hedges.inFlight = 1;
      hedges.noMore = firstHedgeRefusal(execution.policy());
      hedges.planned = hedges.noMore == null;
    }
    return hedges;
  }

  /** The attempts the call has started (the one {@link #hedgeDue} just answered {@link #START} for is the last). */
  static int hedgesStarted(Execution<?> execution) {
    return hedges(execution).started;
  }

  /** The attempts of the call in flight. */
  static int hedgesInFlight(Execution<?> execution) {
    return hedges(execution).inFlight;
  }

  /** Why no further hedge may start, or null while one may. */
  static StopReason noMoreHedges(Execution<?> execution) {
    return hedges(execution).noMore;
  }

  /**
   * Input: the planned hedge fell due, with the gate's answer from {@link #admitHedge} (asked by the driver,
   * as before every attempt). The gate is the same as before a retry: the breaker, the rate limiter, then the
   * engine ({@link Execution#tryHedge}: the attempt bound, the deadline, the budget, which is charged).
   * An adaptive delay's extra-load cap is asked before the engine for a hedge the delay brought (not one a
   * failure brought, which is a retry): without its token the hedge is not sent ({@link #NO_MORE_HEDGES},
   * though a later failure still starts the next attempt).
   * Answers {@link #START} (start attempt {@link #hedgesStarted} with {@code permit}, then plan
   * {@link #nextHedge}); a wait {@code >= 0} for the limiter's token (the token held by the execution, the
   * permit given back: the hedge falls due again after it), or for a re-check when the wait is beyond the
   * limiter's horizon (no token held: the hedge falls due again after it and asks the limiter anew; one whose
   * next ask would fall past the deadline is {@code DEADLINE_EXCEEDED}'s "no more hedges"); {@link #NO_MORE_HEDGES} (the permit given back;
   * the attempts in flight go on); or {@link #STOPPED} when no attempt is in flight either: the call ends,
   * with the held result or the last failure.
   *
   * @throws IllegalStateException if the call has already ended or no hedge was planned
   */
  static long hedgeDue(Execution<?> execution, CircuitBreaker.Permit permit, long nowNanos) {
    Hedges hedges = hedges(execution);
    if (execution.isDone() || !hedges.planned) {
      release(permit);
      throw new IllegalStateException("no hedge is planned: " + (execution.isDone() ? "the call has ended"
          : hedges.noMore != null ? "no further hedge may start (" + hedges.noMore + ")" : "it started already"));
    }
    hedges.planned = false;
    if (permit == OPEN) { // the breaker refuses (a token held for this hedge goes back)
      return noMore(execution, hedges, StopReason.CIRCUIT_OPEN, nowNanos);
    }
    if (permit == LIMITED) { // the concurrency limiter refuses, as it refuses a retry (the breaker's permit back)
      return noMore(execution, hedges, StopReason.CONCURRENCY_LIMITED, nowNanos);
    }
    RetryPolicy<?> policy = execution.policy();
    boolean tokenHeld = execution.rateTokenHeld();
    if (tokenHeld) {
      execution.rateTokenHeld(false); // the token is this hedge's
    } else if (policy.rateLimiter != null) {
      long wait = policy.rateLimiter.reserveOrRecheck();
      if (AdaptiveRateLimiter.isRecheck(wait)) { // no token taken: the hedge falls due again, asking anew
        release(permit);
        long recheck = AdaptiveRateLimiter.recheckNanos(wait);
        if (policy.maxElapsedNanos != Long.MAX_VALUE
            && Nanos.add(nowNanos - execution.startNanos(), recheck) > policy.maxElapsedNanos) {
          return noMore(execution, hedges, StopReason.DEADLINE_EXCEEDED, nowNanos);
        }
        hedges.planned = true;
        return recheck;
      }
      if (wait != 0) {
        release(permit);
        StopReason refusal = RateGate.refusalAt(policy, wait, execution.startNanos(), nowNanos);
        if (refusal != null) {
          return noMore(execution, hedges, refusal, nowNanos);
        }
        execution.rateTokenHeld(true);
        hedges.planned = true;
        return wait;
      }
      tokenHeld = true;
    }
    AdaptiveHedgeDelay cap = hedges.triggered ? null : policy.hedging.adaptive; // a failure's hedge is a retry
    if (cap != null && hedges.inFlight > 0 && !cap.tryHedge()) { // over the extra-load cap: this hedge only
      release(permit);
      if (tokenHeld) {
        policy.rateLimiter.unreserve();
      }
      return NO_MORE_HEDGES; // not noMore: a failure still starts the next attempt
    }
    StopReason refusal;
    try {
      refusal = execution.tryHedge(hedges.started, hedges.triggered ? execution.lastFailureClass() : null,
          hedges.triggered ? execution.lastFailure() : null, nowNanos);
    } catch (RuntimeException | Error unexpected) { // a budget's callback threw: the attempt is not sent
      release(permit);
      if (tokenHeld) {
        policy.rateLimiter.unreserve();
      }
      if (cap != null) {
        cap.hedgeNotSent();
      }
      throw unexpected;
    }
    if (refusal != null) {
      release(permit);
      if (tokenHeld) {
        policy.rateLimiter.unreserve();
      }
      if (cap != null) {
        cap.hedgeNotSent();
      }
      return noMore(execution, hedges, refusal, nowNanos);
    }
    hedges.triggered = false;
    hedges.started++;
    hedges.inFlight++;
    return START;
  }

  /**
   * Input: a hedged attempt's outcome that the judge did not accept, with that attempt's breaker permit
   * (which hears it). The engine records it ({@link Execution#recordHedged}); a retried result becomes the
   * call's held result (the driver discards the one {@link Execution#takeHeldResult()} gave it before).
   * Answers a wait {@code >= 0} (the next hedge falls due after it, replacing a planned one: at once, or
   * after the server's pushback); {@link #NO_MORE_HEDGES} (cancel a planned hedge; the others in flight go
   * on); or {@link #STOPPED}: the call ends now, because the failure was fatal (cancel the attempts still in
   * flight, whose outcomes are then discarded) or because no attempt is in flight and none may start.
   */
  static <R> long hedgedOutcome(Execution<R> execution, R result, Throwable failure, Verdict verdict,
      CircuitBreaker.Permit permit, long nowNanos) {
    Hedges hedges = hedges(execution);
    hedges.inFlight--; // answered, whatever the engine makes of it
    Decision decision = execution.recordHedged(result, failure, verdict, permit, nowNanos);
    if (execution.isDone()) { // fatal: the others are cancelled
      giveBackToken(execution);
      ended(hedges);
      return STOPPED;
    }
    if (decision.isStop()) {
      return noMore(execution, hedges, decision.stopReason(), nowNanos);
    }
    long next = plan(execution, hedges, decision.delayNanos(), nowNanos);
    hedges.triggered = next >= 0;
    return next;
  }

  /**
   * Input: attempt number {@code attempt} returned {@code result} and the judge accepted it: the call
   * succeeds with it (the breaker's permit for that attempt hears the success; with no execution, the first
   * attempt won before any hedge fell due or failed: the first-attempt rule). The effect is
   * {@link #SUCCEEDED}: every other attempt in flight is cancelled (the driver gives back their permits, and
   * discards an outcome that still arrives), a planned hedge is cancelled, and the result the call held (the
   * return value, or null) is discarded.
   *
   * @throws IllegalArgumentException if a failure was accepted (the permit given back first)
   */
  static <R> R hedgeWon(RetryPolicy<R> policy, Execution<R> execution, R result, Throwable failure, int attempt,
      CircuitBreaker.Permit permit, long startNanos, long nowNanos, Object call) {
    if (failure != null) {
      release(permit);
      throw new IllegalArgumentException("the judge accepted a failure: " + failure, failure);
    }
    if (permit != null) {
      permit.onSuccess();
    }
    AdaptiveHedgeDelay adaptive = policy.hedging.adaptive;
    if (execution == null) {
      if (adaptive != null) {
        adaptive.record(nowNanos - startNanos);
      }
      FirstAttempt.succeeded(policy, result, startNanos, nowNanos, call);
      return null;
    }
    Hedges hedges = hedges(execution);
    hedges.inFlight--;
    giveBackToken(execution);
    R held = execution.takeHeldResult(); // before the success, which makes this result the execution's last
    if (adaptive != null && held == null && execution.lastFailure() == null) { // no attempt failed: a latency
      adaptive.record(nowNanos - startNanos);
    }
    execution.succeedHedged(result, attempt, nowNanos);
    ended(hedges);
    return held;
  }

  /**
   * Input: the driver could not plan the hedge the machine asked for (its scheduler refused the timer): no
   * further hedge may start ({@code CANCELLED}). Answers {@link #NO_MORE_HEDGES}, or {@link #STOPPED} if no
   * attempt is in flight.
   */
  static long hedgeNotPlanned(Execution<?> execution, long nowNanos) {
    Hedges hedges = hedges(execution);
    hedges.planned = false;
    return noMore(execution, hedges, StopReason.CANCELLED, nowNanos);
  }

  /** Plans a hedge {@code delayNanos} from now, replacing a planned one, if another may still start. */
  private static long plan(Execution<?> execution, Hedges hedges, long delayNanos, long nowNanos) {
    giveBackToken(execution); // a token held for the replaced hedge: it is not sent
    hedges.planned = false;
    if (hedges.noMore != null) {
      return noMore(execution, hedges, hedges.noMore, nowNanos);
    }
    RetryPolicy<?> policy = execution.policy();
    if (hedges.started >= policy.hedging.maxStarted(policy.maxAttempts)) {
      return noMore(execution, hedges, StopReason.ATTEMPTS_EXHAUSTED, nowNanos);
    }
    if (policy.maxElapsedNanos != Long.MAX_VALUE
        && Nanos.add(nowNanos - execution.startNanos(), delayNanos) > policy.maxElapsedNanos) {
      return noMore(execution, hedges, StopReason.DEADLINE_EXCEEDED, nowNanos); // it would fall due too late
    }
    hedges.planned = true;
    return delayNanos;
  }

  /**
   * The "no more hedges" rule: none may start (the first reason stays the call's), and the call ends when
   * the last attempt in flight has answered: now, if none is.
   */
  private static long noMore(Execution<?> execution, Hedges hedges, StopReason reason, long nowNanos) {
    if (hedges.noMore == null) {
      hedges.noMore = reason;
    }
    hedges.planned = false;
    giveBackToken(execution);
    if (hedges.inFlight > 0) {
      return NO_MORE_HEDGES;
    }
    execution.stopNanos(hedges.noMore, nowNanos);
    return STOPPED;
  }

  private static void giveBackToken(Execution<?> execution) {
    if (execution.rateTokenHeld()) {
      execution.rateTokenHeld(false);
      execution.policy().rateLimiter.unreserve();
    }
  }

  /** The call ended: no attempt counts as in flight (the driver cancels them) and no hedge is planned. */
  private static void ended(Hedges hedges) {
    hedges.inFlight = 0;
    hedges.planned = false;
  }
}
