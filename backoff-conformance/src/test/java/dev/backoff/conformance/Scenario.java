package dev.backoff.conformance;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.CircuitBreaker;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.NanoClock;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One row of the {@link ConformanceTable}: a policy, a script of attempt outcomes, maybe a caller who stops
 * the call, and what every driver must do with them.
 *
 * @param name the row's name
 * @param policy the policy (each trial adds its clock, a fresh scripted random source, a recording listener)
 * @param budget a fresh budget per trial, or null for the policy's
 * @param script what attempt 1, 2, ... do; the last step repeats
 * @param cancelAfter when the caller stops the call, or null
 * @param attempts how many attempts every driver makes
 * @param waits the time between consecutive attempts, in the driver's time
 * @param scheduled the delays the engine schedules (listeners' {@code onRetryScheduled}); longer than
 *     {@code waits} when a scheduled retry never runs
 * @param stop why the call stops (null: it succeeds; {@link #CALLER} for the driver's caller-stop reason)
 * @param result the caller's result, or null
 * @param failure the message of the failure the caller sees (that of the last attempt), or null
 * @param retriesResults whether the row needs the policy's result rules (drivers of streams, which have no
 *     single result, skip it: {@link DriverRunner#judgesResults()})
 * @param budgetLog what the budget must have heard ({@code ScriptedBudget.log()}, so the failure class each
 *     failure was charged as), or null not to check it; needs a {@code ScriptedBudget} from {@code budget}
 * @param cancelledAttempts how many attempts that never complete ({@link ConformanceTable#hang()}) the
 *     driver must cancel (its client, subscription or coroutine told to stop)
 * @param breaker a fresh circuit breaker per trial on the driver's clock, or null for none
 * @param mechanism the mechanism the row exercises: its column of the matrix
 * @param limiter a fresh rate limiter per trial on the driver's clock, or null for none
 * @param firstAttemptAt when the first attempt starts, measured from the call's start (a wait for the rate
 *     limiter's token delays it)
 * @param recoveries null: the call has no recovery; else how many times its recovery must run (the
 *     {@linkplain Trial#recovery() trial's recovery} answers {@code "recovered from <stop reason>"})
 * @param concurrency a fresh concurrency limiter per trial on the driver's clock, or null for none
 * @param heldSlots how many of its slots another call holds (first attempts) while the row's call runs; the
 *     trial gives them back after the call, and then the limiter must have no attempt in flight
 */
record Scenario(String name, RetryPolicy<String> policy, Supplier<RetryBudget> budget, List<Step> script,
    Duration cancelAfter, int attempts, List<Duration> waits, List<Duration> scheduled, StopReason stop,
    String result, String failure, boolean retriesResults, List<String> budgetLog, int cancelledAttempts,
    Function<NanoClock, CircuitBreaker> breaker, Mechanism mechanism, Function<NanoClock, AdaptiveRateLimiter> limiter,
    Duration firstAttemptAt, Integer recoveries, Function<NanoClock, ConcurrencyLimiter> concurrency,
    int heldSlots) {

  /** A row of the basic retries (no other mechanism), without a rate limiter or recovery. */
  Scenario(String name, RetryPolicy<String> policy, Supplier<RetryBudget> budget, List<Step> script,
      Duration cancelAfter, int attempts, List<Duration> waits, List<Duration> scheduled, StopReason stop,
      String result, String failure, boolean retriesResults, List<String> budgetLog, int cancelledAttempts,
      Function<NanoClock, CircuitBreaker> breaker) {
    this(name, policy, budget, script, cancelAfter, attempts, waits, scheduled, stop, result, failure,
        retriesResults, budgetLog, cancelledAttempts, breaker, Mechanism.RETRIES, null, Duration.ZERO, null, null, 0);
  }

  /** A row without a circuit breaker. */
  Scenario(String name, RetryPolicy<String> policy, Supplier<RetryBudget> budget, List<Step> script,
      Duration cancelAfter, int attempts, List<Duration> waits, List<Duration> scheduled, StopReason stop,
      String result, String failure, boolean retriesResults, List<String> budgetLog, int cancelledAttempts) {
    this(name, policy, budget, script, cancelAfter, attempts, waits, scheduled, stop, result, failure,
        retriesResults, budgetLog, cancelledAttempts, null);
  }

  /** A row that checks neither the budget's log nor cancelled attempts (it has no attempt that hangs). */
  Scenario(String name, RetryPolicy<String> policy, Supplier<RetryBudget> budget, List<Step> script,
      Duration cancelAfter, int attempts, List<Duration> waits, List<Duration> scheduled, StopReason stop,
      String result, String failure, boolean retriesResults) {
    this(name, policy, budget, script, cancelAfter, attempts, waits, scheduled, stop, result, failure,
        retriesResults, null, 0, null);
  }

  /** This row, in {@code mechanism}'s column of the matrix. */
  Scenario in(Mechanism column) {
    return new Scenario(name, policy, budget, script, cancelAfter, attempts, waits, scheduled, stop, result,
        failure, retriesResults, budgetLog, cancelledAttempts, breaker, column, limiter, firstAttemptAt, recoveries,
        concurrency, heldSlots);
  }

  /** This row with a fresh {@code limiter} per trial, whose first attempt starts {@code firstAt} after the call. */
  Scenario limitedBy(Function<NanoClock, AdaptiveRateLimiter> rateLimiter, Duration firstAt) {
    return new Scenario(name, policy, budget, script, cancelAfter, attempts, waits, scheduled, stop, result,
        failure, retriesResults, budgetLog, cancelledAttempts, breaker, Mechanism.LIMITER, rateLimiter, firstAt,
        recoveries, concurrency, heldSlots);
  }

  /** This row with the trial's recovery, which must run {@code calls} times. */
  Scenario recovering(int calls) {
    return new Scenario(name, policy, budget, script, cancelAfter, attempts, waits, scheduled, stop, result,
        failure, retriesResults, budgetLog, cancelledAttempts, breaker, Mechanism.RECOVERY, limiter,
        firstAttemptAt, calls, concurrency, heldSlots);
  }

  /**
   * This row with a fresh concurrency limiter per trial, {@code held} of whose slots another call holds while
   * the row's call runs.
   */
  Scenario concurrencyLimitedBy(Function<NanoClock, ConcurrencyLimiter> limiter, int held) {
    return new Scenario(name, policy, budget, script, cancelAfter, attempts, waits, scheduled, stop, result,
        failure, retriesResults, budgetLog, cancelledAttempts, breaker, Mechanism.CONCURRENCY, this.limiter,
        firstAttemptAt, recoveries, limiter, held);
  }

  /** Whether the row's policy hedges (a driver refusing hedging refuses the row, whatever its column). */
  boolean hedges() {
    return policy.hedging() != null;
  }

  /** Stands for {@link DriverRunner#callerStop()} in {@link #stop}. */
  static final StopReason CALLER = StopReason.CANCELLED;

  @Override
  public String toString() {
    return name;
  }

  /** What one attempt does. */
  @FunctionalInterface
  interface Step {
    /** Returns the attempt's result or throws its failure; {@code attempt} is its number, from 1. */
    String answer(int attempt) throws Exception;
  }
}
