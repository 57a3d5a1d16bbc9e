package dev.backoff.driver;

import dev.backoff.CircuitBreaker;
import dev.backoff.Decision;
import dev.backoff.Execution;
import dev.backoff.FailureClass;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.util.random.RandomGenerator;

/**
 * The decision engine's entry points for drivers that cannot use a {@link RetryLoops loop} because they
 * own time themselves: the simulator, which runs attempts as events in virtual time. Such a driver still
 * follows the first-attempt rule through these methods: {@link #succeeded} for every success (it records a
 * first-try success without an execution), {@link #newExecution} at the first failure, and
 * {@link #record} for every later outcome. Stateless and thread-safe; an {@link Execution} is not.
 *
 * <h2>Hedging</h2>
 * For a policy with {@link RetryPolicy#hedging() hedging}, several attempts of one call may be in flight, and
 * a driver that owns time runs the hedged loop itself with these steps (the core's asynchronous loop does the
 * same):
 * <ol>
 *   <li>Start the first attempt at {@code startNanos} (ask the policy's circuit breaker first, if any), and
 *       plan the next hedge at {@code startNanos + Hedging.delayNanos()}.
 *   <li>When a planned hedge falls due and no attempt has won: create the call's execution if it has none yet
 *       ({@link #newExecution}, with the call's real start), ask the breaker for a permit, then
 *       {@link #tryHedge}. If it returns null, start the attempt (it is charged to the budget) and plan the
 *       next hedge one hedging delay later; otherwise no further hedge may start (release the permit), and
 *       if no attempt is in flight the call ends with {@link Execution#stop} for the returned reason.
 *   <li>When an attempt fails: {@link #recordHedged} (creating the execution first if needed). A retry
 *       decision replaces the planned hedge by one after {@link Decision#delayNanos()} (zero: now; a pushback
 *       hint otherwise), a stop decision with {@link Execution#isDone()} false means no further hedge, and
 *       one with {@link Execution#isDone()} true ended the call (a fatal failure): cancel the others. When
 *       no attempt is in flight and no hedge is planned, end the call with {@link Execution#stop}
 *       ({@code ATTEMPTS_EXHAUSTED} if nothing else stopped the hedges).
 *   <li>When an attempt's result is accepted: {@link #hedgeSucceeded} (or {@link #succeeded} without an
 *       execution, if the first attempt won before any hedge or failure); cancel the others, whose outcomes
 *       are then not recorded.
 * </ol>
 */
public final class Engine {
  private Engine() {}

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
  public static <R> Execution<R> newExecution(RetryPolicy<R> policy, long startNanos, RandomGenerator random) {
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
  public static <R> Decision record(Execution<R> execution, R result, Throwable failure, Verdict verdict,
      long nowNanos) {
    RetryLoops.requireNonNull("execution", execution);
    RetryLoops.requireNonNull("verdict", verdict);
    return Bridge.core().record(execution, result, failure, verdict, nowNanos);
  }

  /**
   * Hedging: may one more attempt start now, alongside the {@code started} attempts the call has started?
   * Applies the policy's bounds in order (the hedging's attempt bound, the deadline, then the budget, which
   * is charged for a granted hedge) and tells the listeners of a granted hedge ({@code onHedgeSent}). The
   * circuit breaker and the rate limiter are the driver's to ask, before this (the outcomes reach the
   * limiter through {@link #recordHedged}). Does not end the call.
   *
   * @param triggerClass the class of the failure that triggered this hedge (the budget is asked for it), or
   *     null when the hedging delay did ({@link dev.backoff.FailureClass#TRANSIENT} is asked)
   * @param trigger that failure, or null (for the listeners)
   * @return null if the hedge may start, else why no further hedge may: {@code ATTEMPTS_EXHAUSTED},
   *     {@code DEADLINE_EXCEEDED} or {@code BUDGET_EXHAUSTED}
   * @throws NullPointerException if {@code execution} is null
   * @throws IllegalArgumentException if the execution's policy does not hedge
   * @throws IllegalStateException if the call has already ended
   */
  public static <R> StopReason tryHedge(Execution<R> execution, int started, FailureClass triggerClass,
      Throwable trigger, long nowNanos) {
    requireHedging(execution);
    return Bridge.core().tryHedge(execution, started, triggerClass, trigger, nowNanos);
  }

  /**
   * Hedging: records the outcome of one of the attempts in flight that was not accepted (a failure, or a
   * result the judge retries), with the breaker's permit for that attempt, which it reports. Returns a retry
   * decision (the next hedge may start after its delay: zero, or the server's pushback), a stop decision
   * with the call still running (no further hedge: the server said stop, or asked for longer than the
   * policy's maximum pushback), or a stop decision that ended the call ({@link Execution#isDone()}: the
   * failure was fatal). The budget hears of a retryable failure as after any attempt.
   *
   * @param result the attempt's result (null if it failed)
   * @param failure the attempt's failure, or null
   * @param permit the breaker's permit for this attempt, or null
   * @throws NullPointerException if {@code execution} or {@code verdict} is null
   * @throws IllegalArgumentException if the policy does not hedge, or the verdict is {@link Verdict#ACCEPT}
   * @throws IllegalStateException if the call has already ended
   */
  public static <R> Decision recordHedged(Execution<R> execution, R result, Throwable failure, Verdict verdict,
      CircuitBreaker.Permit permit, long nowNanos) {
    requireHedging(execution);
    RetryLoops.requireNonNull("verdict", verdict);
    return Bridge.core().recordHedged(execution, result, failure, verdict, permit, nowNanos);
  }

  /**
   * Hedging: attempt number {@code attempt} (1 for the first) returned the accepted {@code result}: the call
   * succeeds, and the listeners hear which attempt won ({@code onHedgeWon} when it was a hedge). The driver
   * reports the success to that attempt's breaker permit itself.
   *
   * @throws NullPointerException if {@code execution} is null
   * @throws IllegalArgumentException if the policy does not hedge, or {@code attempt} is below 1
   * @throws IllegalStateException if the call has already ended
   */
  public static <R> void hedgeSucceeded(Execution<R> execution, R result, int attempt, long nowNanos) {
    requireHedging(execution);
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
    }
    Bridge.core().hedgeSucceeded(execution, result, attempt, nowNanos);
  }

  private static void requireHedging(Execution<?> execution) {
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
  public static <R> void succeeded(RetryPolicy<R> policy, Execution<R> execution, R result, long startNanos,
      long nowNanos) {
    RetryLoops.requireNonNull("policy", policy);
    if (execution == null) {
      Bridge.core().firstTrySucceeded(policy, result, startNanos, nowNanos);
    } else {
      Bridge.core().record(execution, result, null, Verdict.ACCEPT, nowNanos);
    }
  }
}
