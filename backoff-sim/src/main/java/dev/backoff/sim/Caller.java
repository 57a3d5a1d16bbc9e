package dev.backoff.sim;

import dev.backoff.CircuitBreaker;
import dev.backoff.Execution;
import dev.backoff.RetryPolicy;

/**
 * A closed-loop client (which loops forever: think, call, retry per policy) or one open-loop logical
 * request. Mutable, owned by a single-threaded run.
 */
final class Caller {
  final SplitMix64 random;
  final boolean closedLoop;
  long callStartNanos;
  long thinkNanos;
  boolean newCall = true;
  Execution<Object> execution;
  /** This client's own policy (with its own breaker), or null to use the run's. */
  RetryPolicy<Object> policy;
  /** The breaker's permit for the attempt in flight, until its outcome is known; null without a breaker. */
  CircuitBreaker.Permit permit;
  /** The next send already holds its breaker permit and rate limiter token (it waited for the token). */
  boolean admitted;
  /** The current call's hedged attempts ({@code +hedge} policies), or null. */
  HedgeState hedge;

  Caller(SplitMix64 random, boolean closedLoop) {
    this.random = random;
    this.closedLoop = closedLoop;
  }
}
