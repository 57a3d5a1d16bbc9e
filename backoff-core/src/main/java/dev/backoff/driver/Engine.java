package dev.backoff.driver;

import dev.backoff.Decision;
import dev.backoff.Execution;
import dev.backoff.RetryPolicy;
import java.util.random.RandomGenerator;

/**
 * The decision engine's entry points for drivers that cannot use a {@link RetryLoops loop} because they
 * own time themselves: the simulator, which runs attempts as events in virtual time. Such a driver still
 * follows the first-attempt rule through these methods: {@link #succeeded} for every success (it records a
 * first-try success without an execution), {@link #newExecution} at the first failure, and
 * {@link #record} for every later outcome. Stateless and thread-safe; an {@link Execution} is not.
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
