package dev.backoff.sim;

import dev.backoff.CircuitBreaker;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.CallState;

/**
 * A closed-loop client (which loops forever: think, call, retry per policy) or one open-loop logical
 * request; it is also the client's own random stream (its think times and its policy's jitter), which keeps
 * that state in the caller's cache lines: with 100 000 clients and more, each client's state is a cache miss
 * at almost every event, so one object per client rather than two matters. Mutable, owned by a
 * single-threaded run.
 */
final class Caller extends SplitMix64 {
  final boolean closedLoop;
  long callStartNanos;
  long thinkNanos;
  boolean newCall = true;
  CallState<Object> execution;
  /** This client's own policy (with its own breaker), or null to use the run's. */
  RetryPolicy<Object> policy;
  /** The breaker's permit for the attempt in flight, until its outcome is known; null without a breaker. */
  CircuitBreaker.Permit permit;
  /** The first attempt waits for the rate limiter's token, which it holds (and no breaker permit). */
  boolean tokenHeld;
  /** The current call's hedged attempts ({@code +hedge} policies), or null. */
  HedgeState hedge;
  /** An open-loop caller whose call has ended, or whose caller stopped it: events addressed to it do nothing. */
  boolean stopped;

  /** A caller drawing {@code random}'s sequence from where it is (the stream is not used afterwards). */
  Caller(SplitMix64 random, boolean closedLoop) {
    super(random);
    this.closedLoop = closedLoop;
  }
}
