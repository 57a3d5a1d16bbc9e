package dev.backoff.driver;

import dev.backoff.CircuitBreaker;
import dev.backoff.Decision;
import dev.backoff.NanoClock;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.util.random.RandomGenerator;

/**
 * The decision engine's entry points for drivers that cannot use a {@link RetryLoops loop} because they
 * own time or a loop themselves: the simulator, which runs attempts as events in virtual time, and the AWS SDK
 * strategy, whose SDK runs the request loop and sleeps between attempts. Such a driver still
 * follows the first-attempt rule through these methods: {@link #succeeded} for every success (it records a
 * first-try success without an execution), {@link #newExecution} at the first failure, and
 * {@link #record} for every later outcome. Stateless and thread-safe; an {@link CallState} is not.
 *
 * <h2>The call state machine</h2>
 * A driver that owns time feeds the core's call state machine its inputs and carries out the
 * {@link Effect effects} they answer with, deciding nothing itself (the simulator's event queue waits):
 * <ol>
 *   <li>Start: {@link #startNanos} (or the driver's own reading, when reading its clock costs nothing).
 *   <li>Gate, before the first attempt: {@link #admit}, then {@link #gate}; after a wait for the limiter's
 *       token, {@link #admit} then {@link #tokenWaited}. {@link Effect#START} starts the attempt with the
 *       breaker's answer, which goes with its outcome.
 *   <li>Outcome: {@link #judge} (or the driver's translation of its client's answer into a
 *       {@link Verdict}); without an execution, {@link #firstAccepted} or {@link #firstFailed} then
 *       {@link #outcome}; with one, {@link #outcome}. A wait effect is followed by the timer.
 *   <li>Timer fired: {@link #admit}, then {@link #timerFired}: {@link Effect#START}, another wait, or a
 *       completion.
 *   <li>Cancel, interrupt, deadline: {@link #stop}.
 * </ol>
 *
 * <h2>Hedging</h2>
 * For a policy with {@link RetryPolicy#hedging() hedging}, several attempts of one call may be in flight. The
 * core's call state machine decides every step; a driver that owns time keeps the attempts and one timer for
 * the planned hedge, and feeds these inputs (the core's asynchronous hedged loop does the same):
 * <ol>
 *   <li>The first attempt starts as any first attempt does (its gate, then {@link #succeeded} if it wins
 *       alone); {@link #nextHedge} with no execution says when the first hedge falls due.
 *   <li>A planned hedge falls due: create the call's execution if it has none ({@link #newExecution}, with
 *       the call's start), then {@link #hedgeDue} with the breaker's answer ({@link #admit}). {@link #HEDGE_START}:
 *       start attempt number {@link #hedgesStarted} with that permit and plan {@link #nextHedge}; a wait
 *       {@code >= 0}: the hedge falls due again after it (the rate limiter's token is held);
 *       {@link #NO_MORE_HEDGES}: the attempts in flight go on; {@link #CALL_ENDED}: nothing is in flight and
 *       no hedge may start, so the call ends ({@link CallState#stopReason()} says why).
 *   <li>An attempt's outcome is not accepted: {@link #hedgedOutcome} (creating the execution first if
 *       needed). A wait {@code >= 0} replaces the planned hedge by one after it; {@link #NO_MORE_HEDGES}
 *       cancels the planned hedge; {@link #CALL_ENDED} ends the call now (cancel the attempts in flight).
 *   <li>An attempt's result is accepted: {@link #hedgeWon}; cancel the others (give back their permits),
 *       whose outcomes are then not recorded.
 * </ol>
 */
public final class Engine {
  /** The breaker's answer from {@link #admit} when it refuses the attempt. */
  public static final CircuitBreaker.Permit CIRCUIT_OPEN = Bridge.initialisedCore().circuitOpen();

  /** Hedging's effect: start the hedged attempt now (see {@link #hedgeDue}). */
  public static final long HEDGE_START = -3;
  /** Hedging's effect: no further hedge may start; the attempts in flight go on. */
  public static final long NO_MORE_HEDGES = -7;
  /** Hedging's effect: the call has ended without success ({@link CallState#stopReason()} says why). */
  public static final long CALL_ENDED = -2;

  private Engine() {}

  /**
   * The gate's first half, asked before every attempt: the policy's circuit breaker's permit for it, null if
   * the policy has no breaker, or {@link #CIRCUIT_OPEN} if the breaker refuses.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static CircuitBreaker.Permit admit(RetryPolicy<?> policy) {
    RetryLoops.requireNonNull("policy", policy);
    return Bridge.core().admit(policy);
  }

  /**
   * {@link #admit(RetryPolicy)} for the attempt after a wait of {@code execution}'s call: a retry (a
   * concurrency limiter admits it only within its retry share), or still the first attempt if none has run.
   * The answer may also be the concurrency limiter's refusal, which {@link #timerFired} turns into a stop.
   *
   * @throws NullPointerException if {@code execution} is null
   */
  public static CircuitBreaker.Permit admit(CallState<?> execution) {
    RetryLoops.requireNonNull("execution", execution);
    return Bridge.core().admitRetry(execution);
  }

  /**
   * {@link #admit(RetryPolicy)} for a hedge of {@code execution}'s call, before {@link #hedgeDue}: a
   * concurrency limiter admits it as it admits a retry.
   *
   * @throws NullPointerException if {@code execution} is null
   */
  public static CircuitBreaker.Permit admitHedge(CallState<?> execution) {
    RetryLoops.requireNonNull("execution", execution);
    return Bridge.core().admitHedge(execution);
  }

  /**
   * Hedging: after an attempt started (the first, or one {@link #hedgeDue} answered {@link #HEDGE_START} for),
   * the delay until the next hedge falls due, or {@link #NO_MORE_HEDGES} if none may (the policy's attempts
   * are all started, or it would fall due past the deadline).
   *
   * @param execution the call's execution, or null if only the first attempt has started
   * @throws NullPointerException if {@code policy} is null
   * @throws IllegalArgumentException if the policy does not hedge
   */
  public static long nextHedge(RetryPolicy<?> policy, CallState<?> execution, long nowNanos) {
    RetryLoops.requireNonNull("policy", policy);
    if (policy.hedging() == null) {
      throw new IllegalArgumentException("policy '" + policy.name() + "' does not hedge");
    }
    return Bridge.core().nextHedge(policy, execution, nowNanos);
  }

  /**
   * Hedging: the planned hedge fell due. Asks the gate as before any attempt (the breaker's answer
   * {@code permit}, from {@link #admitHedge}; then the rate limiter; then the engine's bounds: the hedging's
   * attempt bound, the deadline, then the budget, which is charged for a granted hedge, and the listeners
   * hear of it) and answers {@link #HEDGE_START}, a wait {@code >= 0} for the limiter's token
   * (the hedge falls due again after it), {@link #NO_MORE_HEDGES} or {@link #CALL_ENDED}. A permit not used
   * is given back.
   *
   * @throws NullPointerException if {@code execution} is null
   * @throws IllegalArgumentException if the policy does not hedge
   * @throws IllegalStateException if the call has ended or no hedge is planned
   */
  public static long hedgeDue(CallState<?> execution, CircuitBreaker.Permit permit, long nowNanos) {
    requireHedging(execution);
    return Bridge.core().hedgeDue(execution, permit, nowNanos);
  }

  /**
   * Hedging: one attempt's outcome that was not accepted, with that attempt's breaker permit (or null),
   * which hears it. Answers a wait {@code >= 0} (the next hedge falls due after it, replacing the planned
   * one), {@link #NO_MORE_HEDGES} or {@link #CALL_ENDED} (a fatal failure, or nothing in flight and no hedge
   * may start: cancel the attempts still in flight).
   *
   * @throws NullPointerException if {@code execution} or {@code verdict} is null
   * @throws IllegalArgumentException if the policy does not hedge, or the verdict is {@link Verdict#ACCEPT}
   * @throws IllegalStateException if the call has already ended
   */
  public static <R> long hedgedOutcome(CallState<R> execution, R result, Throwable failure, Verdict verdict,
      CircuitBreaker.Permit permit, long nowNanos) {
    requireHedging(execution);
    RetryLoops.requireNonNull("verdict", verdict);
    if (verdict.isAccept()) { // before the machine counts the attempt as answered
      throw new IllegalArgumentException("an accepted outcome is a win (hedgeWon), not a hedged outcome: " + verdict);
    }
    return Bridge.core().hedgedOutcome(execution, result, failure, verdict, permit, nowNanos);
  }

  /**
   * Hedging: attempt number {@code attempt} returned the accepted {@code result} and wins the call; its
   * breaker permit (or null) hears the success. With no execution, the first attempt won alone (recorded as
   * a first-try success, from {@code startNanos}). The driver cancels every other attempt in flight and gives
   * back their permits. Returns the retried result the call held, for the driver to discard, or null.
   *
   * @throws NullPointerException if {@code policy} is null
   * @throws IllegalArgumentException if the policy does not hedge, or {@code attempt} is below 1
   * @throws IllegalStateException if the call has already ended
   */
  public static <R> R hedgeWon(RetryPolicy<R> policy, CallState<R> execution, R result, int attempt,
      CircuitBreaker.Permit permit, long startNanos, long nowNanos) {
    RetryLoops.requireNonNull("policy", policy);
    if (execution != null) {
      requireHedging(execution);
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
    }
    return Bridge.core().hedgeWon(policy, execution, result, attempt, permit, startNanos, nowNanos);
  }

  /**
   * Hedging: how many attempts the call has started (after {@link #HEDGE_START}, the new attempt's number).
   *
   * @throws NullPointerException if {@code execution} is null
   * @throws IllegalArgumentException if the policy does not hedge
   */
  public static int hedgesStarted(CallState<?> execution) {
    requireHedging(execution);
    return Bridge.core().hedgesStarted(execution);
  }

  /**
   * Whether the policy needs the clock read before a call's first attempt (it has a deadline or listeners).
   * When it does not, a driver may pass any reading as the start: no decision depends on it.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static boolean needsStartTime(RetryPolicy<?> policy) {
    RetryLoops.requireNonNull("policy", policy);
    return Bridge.core().needsStartTime(policy);
  }

  /**
   * Starts the engine for one call whose first attempt started at {@code startNanos} and failed (or was
   * judged retryable). Tells the policy's budget of the call.
   *
   * @param random the jitter source (a simulator's seeded stream)
   * @throws NullPointerException if {@code policy} or {@code random} is null
   */
  public static <R> CallState<R> newExecution(RetryPolicy<R> policy, long startNanos, RandomGenerator random) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("random", random);
    return Bridge.core().newExecution(policy, startNanos, random);
  }

  /**
   * Records an attempt's outcome as judged and returns the engine's decision.
   *
   * @param result the attempt's result (null if it failed)
   * @param failure the attempt's failure, or null
   * @throws NullPointerException if {@code execution} or {@code verdict} is null
   * @throws IllegalArgumentException if a failure is accepted
   * @throws IllegalStateException if the call has already ended
   */
  public static <R> Decision record(CallState<R> execution, R result, Throwable failure, Verdict verdict,
      long nowNanos) {
    RetryLoops.requireNonNull("execution", execution);
    RetryLoops.requireNonNull("verdict", verdict);
    return Bridge.core().record(execution, result, failure, verdict, nowNanos);
  }

  /**
   * The failure a caller gets when the gate refused its call's first attempt with {@code effect} (one of
   * {@link Effect#REFUSED_CIRCUIT_OPEN}, {@link Effect#REFUSED_CONCURRENCY_LIMITED},
   * {@link Effect#REFUSED_RATE_LIMITED} or {@link Effect#REFUSED_DEADLINE}, answered by {@link #gate} before the
   * call had an execution): the same exception, with the same message, as the core's own drivers give, for a
   * driver to deliver or hand to the call's recovery.
   *
   * @throws NullPointerException if {@code policy} is null
   * @throws IllegalArgumentException if {@code effect} is not a first attempt's refusal, or names a gate the
   *     policy does not have
   */
  public static RuntimeException refusedFirst(RetryPolicy<?> policy, long effect) {
    RetryLoops.requireNonNull("policy", policy);
    return Bridge.core().refusedFirst(policy, effect);
  }

  // ---- the call state machine's inputs (see Effect for their answers) ---------------------------------

  /**
   * Input: start. The first-attempt rule: the reading to keep as the call's start ({@code clock} read only
   * when a deadline or listeners need it), or 0.
   *
   * @throws NullPointerException if {@code policy} or {@code clock} is null
   */
  public static long startNanos(RetryPolicy<?> policy, NanoClock clock) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("clock", clock);
    return Bridge.core().startNanos(policy, clock);
  }

  /**
   * The gate in front of the first attempt, for the breaker's answer {@code permit} from {@link #admit}:
   * {@link Effect#START}; {@link Effect#REFUSED_CIRCUIT_OPEN}; the rate limiter's wait ({@code >= 0}: the
   * driver holds its token and no permit, and calls {@link #tokenWaited} with a fresh {@link #admit} after
   * it); {@link Effect#REFUSED_RATE_LIMITED} or {@link Effect#REFUSED_DEADLINE} (also when a re-check's next
   * ask would fall past the deadline); or a re-check ({@link Effect#isRecheck}: the wait is beyond the
   * limiter's horizon; holding nothing, wait {@link Effect#recheckNanos} and ask this gate again, with a
   * fresh {@link #admit}). Every driver, the core's own loops included, waits for the limiter so.
   *
   * @throws NullPointerException if {@code policy} or {@code clock} is null
   */
  public static long gate(RetryPolicy<?> policy, long startNanos, NanoClock clock, CircuitBreaker.Permit permit) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("clock", clock);
    return Bridge.core().gate(policy, startNanos, clock, permit);
  }

  /**
   * {@link #gate}, for a driver that cannot ask again after a wait it is handed (the AWS SDK sleeps the delay
   * of the token it is given, then sends the attempt without asking): the rate limiter's answer is a firm
   * reservation at today's price (its token held through the wait), never a re-check.
   *
   * @throws NullPointerException if {@code policy} or {@code clock} is null
   */
  public static long gateFirm(RetryPolicy<?> policy, long startNanos, NanoClock clock,
      CircuitBreaker.Permit permit) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("clock", clock);
    return Bridge.core().gateFirm(policy, startNanos, clock, permit);
  }

  /**
   * The first attempt's wait for the rate limiter's token is over: {@link Effect#START} with the breaker's
   * answer {@code permit} from a fresh {@link #admit}, or {@link Effect#REFUSED_CIRCUIT_OPEN} with the token
   * given back.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static long tokenWaited(RetryPolicy<?> policy, CircuitBreaker.Permit permit) {
    RetryLoops.requireNonNull("policy", policy);
    return Bridge.core().tokenWaited(policy, permit);
  }

  /**
   * The judge: {@code judge}'s verdict on an attempt's outcome, or the policy's rules when it is null.
   *
   * @param result the attempt's result (null if it failed)
   * @param failure the attempt's failure, or null
   * @throws NullPointerException if {@code policy} is null, or the judge returns null
   */
  public static <R> Verdict judge(RetryPolicy<R> policy, OutcomeJudge<R> judge, R result, Throwable failure) {
    RetryLoops.requireNonNull("policy", policy);
    return Bridge.core().judge(policy, judge, result, failure);
  }

  /**
   * Input: the first attempt's outcome was accepted. The first-attempt rule: no execution; the rate limiter,
   * the attempt's breaker {@code permit}, the budget and the listeners are told as an execution would tell
   * them ({@code clock} read only if listeners or a deadline need it). The effect is {@link Effect#SUCCEEDED}.
   *
   * @param startNanos the call's start, from {@link #startNanos} (or the driver's own reading)
   * @throws NullPointerException if {@code policy} or {@code clock} is null
   */
  public static <R> long firstAccepted(RetryPolicy<R> policy, R result, long startNanos, NanoClock clock,
      CircuitBreaker.Permit permit) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("clock", clock);
    return Bridge.core().firstAccepted(policy, result, startNanos, clock, permit);
  }

  /**
   * Input: the first attempt's outcome was not accepted, at {@code nowNanos}: the call's execution, created
   * now (the budget hears of the call). Record that outcome with {@link #outcome} next, with the same
   * {@code permit}; if creating the execution throws (a budget's callback), the permit is given back first.
   *
   * @param random the jitter source (a simulator's seeded stream)
   * @throws NullPointerException if {@code policy} or {@code random} is null
   */
  public static <R> CallState<R> firstFailed(RetryPolicy<R> policy, long startNanos, long nowNanos,
      RandomGenerator random, CircuitBreaker.Permit permit) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("random", random);
    return Bridge.core().firstFailed(policy, startNanos, nowNanos, random, permit);
  }

  /**
   * Input: an attempt's judged outcome, for a call with an execution; the attempt's breaker {@code permit}
   * hears it. The effect: {@link Effect#SUCCEEDED}, {@link Effect#STOPPED} (the execution says why), or a
   * wait ({@code >= 0}) before the timer's input, {@link #timerFired} (a retried result stays held).
   *
   * @throws NullPointerException if {@code execution} or {@code verdict} is null
   * @throws IllegalArgumentException if a failure is accepted
   * @throws IllegalStateException if the call has already ended
   */
  public static <R> long outcome(CallState<R> execution, R result, Throwable failure, Verdict verdict,
      long nowNanos, CircuitBreaker.Permit permit) {
    RetryLoops.requireNonNull("execution", execution);
    RetryLoops.requireNonNull("verdict", verdict);
    return Bridge.core().outcome(execution, result, failure, verdict, nowNanos, permit);
  }

  /**
   * Input: a wait that {@link #outcome} or this method asked for is over, with the breaker's answer
   * {@code permit} from a fresh {@link #admit}. The gate is asked again (only the breaker after a wait for
   * the limiter's token): {@link Effect#START} (the retry starts: discard
   * {@code execution}'s held result, if the driver keeps results), another wait, a re-check (see
   * {@link #gate}; a retry's re-check holds nothing, and the next timer asks the whole gate again), or {@link Effect#STOPPED} (a gate refused the retry: the call ends
   * with its held result or last failure).
   *
   * @param policy the call's policy, or one with the same circuit breaker, rate limiter and budget (the
   *     driver's own, at hand): asked first, so that a call whose policy has none of them is not read
   * @throws NullPointerException if {@code policy}, {@code execution} or {@code clock} is null
   */
  public static long timerFired(RetryPolicy<?> policy, CallState<?> execution, CircuitBreaker.Permit permit,
      NanoClock clock) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("execution", execution);
    RetryLoops.requireNonNull("clock", clock);
    return Bridge.core().timerFired(policy, execution, permit, clock);
  }

  /**
   * {@link #timerFired(RetryPolicy, CallState, CircuitBreaker.Permit, NanoClock)}, for a driver that cannot ask
   * again after a wait (see {@link #gateFirm}): the rate limiter's answer is a firm reservation.
   *
   * @throws NullPointerException if {@code policy}, {@code execution} or {@code clock} is null
   */
  public static long timerFiredFirm(RetryPolicy<?> policy, CallState<?> execution, CircuitBreaker.Permit permit,
      NanoClock clock) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("execution", execution);
    RetryLoops.requireNonNull("clock", clock);
    return Bridge.core().timerFiredFirm(policy, execution, permit, clock);
  }

  /**
   * Input: the caller stopped the call ({@code CANCELLED}, {@code INTERRUPTED}) or its deadline passed: no
   * attempt starts after this, the budget's grant for a retry that never started and a held limiter token
   * go back. Returns the result the call held (for the driver to discard), or null. No effect on a call
   * that has ended.
   *
   * @throws NullPointerException if an argument is null
   */
  public static <R> R stop(CallState<R> execution, StopReason reason, NanoClock clock) {
    RetryLoops.requireNonNull("execution", execution);
    RetryLoops.requireNonNull("reason", reason);
    RetryLoops.requireNonNull("clock", clock);
    return Bridge.core().stop(execution, reason, clock);
  }

  private static void requireHedging(CallState<?> execution) {
    RetryLoops.requireNonNull("execution", execution);
    if (execution.policy().hedging() == null) {
      throw new IllegalArgumentException("policy '" + execution.policy().name() + "' does not hedge");
    }
  }

  /**
   * Records a successful attempt with {@code result}: with {@code execution} when the call has one, else as
   * a first-try success (the budget and listeners hear of the call; nothing is allocated when there are
   * neither).
   *
   * @param execution the call's execution, or null if its first attempt is the one that succeeded
   * @param startNanos the call's start (used only without an execution)
   * @throws NullPointerException if {@code policy} is null
   */
  public static <R> void succeeded(RetryPolicy<R> policy, CallState<R> execution, R result, long startNanos,
      long nowNanos) {
    RetryLoops.requireNonNull("policy", policy);
    if (execution == null) {
      Bridge.core().firstTrySucceeded(policy, result, startNanos, nowNanos);
    } else {
      Bridge.core().record(execution, result, null, Verdict.ACCEPT, nowNanos);
    }
  }
}
