package dev.backoff;

import java.util.random.RandomGenerator;

/**
 * The first-attempt rule, in one place for every driver: the clock is read before the first attempt only
 * when a deadline or listeners need the start time (otherwise elapsed time runs from the end of the first
 * failed attempt), and a call that succeeds at once creates no {@link Execution} but still tells the budget
 * and listeners, as an execution would.
 */
final class FirstAttempt {
  private FirstAttempt() {}

  /** The reading to keep as the call's start: the clock's, or 0 if nothing needs it. */
  static long start(RetryPolicy<?> policy, NanoClock clock) {
    return policy.needsStartTime ? clock.nanoTime() : 0;
  }

  /**
   * The first attempt succeeded: tells the rate limiter, the budget and listeners, reading the clock only if
   * they need it.
   */
  static <R> void succeeded(RetryPolicy<R> policy, R result, long start, NanoClock clock, Object call) {
    if (policy.rateLimiter != null) {
      policy.rateLimiter.onResponse(false);
    }
    if (policy.budget != null || policy.listeners.length > 0) {
      tell(policy, result, start, policy.needsStartTime ? clock.nanoTime() : 0, call);
    }
  }

  /** The first attempt succeeded at {@code nowNanos} (a driver's own reading). */
  static <R> void succeeded(RetryPolicy<R> policy, R result, long startNanos, long nowNanos) {
    succeeded(policy, result, startNanos, nowNanos, null);
  }

  /**
   * The first attempt of {@code call} (its identity for attempt listeners, or null) succeeded at
   * {@code nowNanos} (a driver's own reading): tells the rate limiter, the budget and listeners.
   */
  static <R> void succeeded(RetryPolicy<R> policy, R result, long startNanos, long nowNanos, Object call) {
    if (policy.rateLimiter != null) {
      policy.rateLimiter.onResponse(false);
    }
    tell(policy, result, startNanos, nowNanos, call);
  }

  /**
   * The first attempt of {@code call} (its identity for attempt listeners, or null) succeeded at
   * {@code nowNanos}: tells the budget and listeners (the rate limiter has been told).
   */
  private static <R> void tell(RetryPolicy<R> policy, R result, long startNanos, long nowNanos, Object call) {
    RetryBudget budget = policy.budget;
    if (budget != null) {
      budget.onCall();
      budget.onSuccess(0, null);
    }
    if (policy.listeners.length > 0) {
      Listeners.tell(policy.listeners, Listeners.SUCCESS,
          new RetryEvent<>(policy.name, 1, nowNanos - startNanos, result, null, null, 0, null, 0, call));
    }
  }

  /** The first attempt failed (or was judged retryable) at {@code nowNanos}: the call's execution. */
  static <R> Execution<R> failed(RetryPolicy<R> policy, long start, long nowNanos, RandomGenerator random) {
    return new Execution<>(policy, policy.needsStartTime ? start : nowNanos, random);
  }

  /** As {@link #failed(RetryPolicy, long, long, RandomGenerator)}, for {@code call} (its identity, or null). */
  static <R> Execution<R> failed(RetryPolicy<R> policy, long start, long nowNanos, RandomGenerator random,
      Object call) {
    Execution<R> execution = failed(policy, start, nowNanos, random);
    execution.call(call);
    return execution;
  }
}
