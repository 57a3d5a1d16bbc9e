package dev.backoff;

import java.time.Duration;

/**
 * Hedged requests for asynchronous calls: when an attempt has not answered within the hedging delay, start
 * another one alongside it, and take whichever acceptable result comes first. Hedging cuts tail latency at
 * the cost of extra load; set it on a policy with {@link RetryPolicy.Builder#hedging(Hedging)}. Immutable
 * and thread-safe.
 *
 * <pre>{@code
 * RetryPolicy<Response> policy = RetryPolicy.<Response>builder()
 *     .maxAttempts(3)                                          // the original and at most two hedges
 *     .hedging(Hedging.after(Duration.ofMillis(50)))
 *     .build();
 * }</pre>
 *
 * <h2>What a hedged call does</h2>
 * <ul>
 *   <li>The first attempt starts at once. While no attempt has answered, another one starts each
 *       {@linkplain #delay() delay}, until the policy's {@code maxAttempts} attempts have started (or
 *       {@link #maxHedges()} hedges, if set).
 *   <li>The first acceptable result completes the call; every other attempt still in flight is cancelled
 *       (its stage's {@code cancel(true)}), and a result that still arrives is discarded.
 *   <li>A retryable failure starts the next hedge at once, without waiting for the delay and without a
 *       backoff (as gRPC's hedging policy does). A failure the policy does not retry (an abort rule, a
 *       non-retryable exception, a driver's stop verdict) ends the call with that failure at once and
 *       cancels the other attempts.
 *   <li>A server's pushback on a failed attempt delays the next hedge by the hint (the hedging delay
 *       resumes after it); a "do not retry" hint, or one longer than the policy's maximum pushback, stops
 *       further hedges. The attempts already in flight go on.
 *   <li>Every hedge is an attempt: it counts towards {@code maxAttempts}, asks the retry budget (a hedge the
 *       budget refuses is not sent, and no further hedge is), and asks the circuit breaker for a permit. No
 *       hedge starts once the deadline has passed, and each attempt has the policy's attempt timeout.
 *   <li>When every attempt has failed and no further hedge may start, the call fails with the last failure,
 *       the earlier ones attached as suppressed exceptions (or completes with the last retried result).
 *   <li>Cancelling the call's future cancels every attempt in flight; no attempt starts after it.
 * </ul>
 *
 * <p>Hedging is for asynchronous calls only ({@link AsyncRetryExecutor} and the asynchronous drivers): the
 * synchronous executor has one thread and cannot run attempts side by side, so a synchronous call under a
 * hedging policy throws an {@link IllegalArgumentException} before its first attempt. Hedge only idempotent
 * requests.
 */
public final class Hedging {
  /** {@link #maxHedges()} when the policy's {@code maxAttempts} alone bounds the hedges. */
  public static final int UNBOUNDED = Integer.MAX_VALUE;

  private final long delayNanos;
  private final int maxHedges;
  /** The live delay and extra-load cap, or null for a fixed delay. */
  final AdaptiveHedgeDelay adaptive;

  private Hedging(long delayNanos, int maxHedges, AdaptiveHedgeDelay adaptive) {
    this.delayNanos = delayNanos;
    this.maxHedges = maxHedges;
    this.adaptive = adaptive;
  }

  /**
   * Hedging with this delay between an attempt's start and the next hedge's, bounded by the policy's
   * {@code maxAttempts} (the original attempt included).
   *
   * @param delay the hedging delay; zero starts every allowed attempt at once
   * @throws NullPointerException if {@code delay} is null
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public static Hedging after(Duration delay) {
    return new Hedging(Nanos.nonNegative("hedging delay", delay), UNBOUNDED, null);
  }

  /**
   * Hedging whose delay follows a quantile of recent call latencies, with a cap on the extra load its hedges
   * add (see {@link AdaptiveHedgeDelay}). {@code delay} holds the live state: build it once per dependency
   * and share it between the calls that reach it (a fresh one per call would never leave its warm-up).
   *
   * @throws NullPointerException if {@code delay} is null
   */
  public static Hedging adaptive(AdaptiveHedgeDelay delay) {
    if (delay == null) {
      throw new NullPointerException("delay must not be null");
    }
    return new Hedging(0, UNBOUNDED, delay);
  }

  /**
   * Hedging at this quantile of recent call latencies with {@link AdaptiveHedgeDelay}'s other defaults (its
   * bounds, 1 ms and 10 s, an initial delay of 10 s until 100 latencies are known, at most 5 hedges per 100
   * calls). The state lives in the returned object: build the policy once and share it.
   *
   * @throws IllegalArgumentException if {@code quantile} is not in (0, 1)
   */
  public static Hedging atQuantile(double quantile) {
    return adaptive(AdaptiveHedgeDelay.builder().quantile(quantile).build());
  }

  /**
   * A copy that sends at most {@code maxHedges} hedges besides the original attempt. The policy's
   * {@code maxAttempts} must allow them: building a policy whose {@code maxAttempts} is below
   * {@code maxHedges + 1} fails rather than sending fewer hedges than asked.
   *
   * @throws IllegalArgumentException if {@code maxHedges} is below 1
   */
  public Hedging maxHedges(int maxHedges) {
    if (maxHedges < 1) {
      throw new IllegalArgumentException("maxHedges must be at least 1, was " + maxHedges);
    }
    return new Hedging(delayNanos, maxHedges, adaptive);
  }

  /** The hedging delay (an adaptive one's delay now). */
  public Duration delay() {
    return Duration.ofNanos(delayNanos());
  }

  /** The hedging delay in nanoseconds (an adaptive one's delay now). */
  public long delayNanos() {
    return adaptive == null ? delayNanos : adaptive.delayNanos();
  }

  /** The adaptive delay's live state, or null if the delay is fixed. */
  public AdaptiveHedgeDelay adaptiveDelay() {
    return adaptive;
  }

  /** The most hedges besides the original attempt, or {@link #UNBOUNDED} if {@code maxAttempts} alone bounds them. */
  public int maxHedges() {
    return maxHedges;
  }

  /** The most attempts a call may start under a policy allowing {@code maxAttempts}. */
  int maxStarted(int maxAttempts) {
    return maxHedges == UNBOUNDED ? maxAttempts : Math.min(maxAttempts, maxHedges + 1);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Hedging h && h.delayNanos == delayNanos && h.maxHedges == maxHedges
        && h.adaptive == adaptive;
  }

  @Override
  public int hashCode() {
    return (Long.hashCode(delayNanos) * 31 + maxHedges) * 31 + System.identityHashCode(adaptive);
  }

  @Override
  public String toString() {
    return (adaptive == null ? "hedging after " + Nanos.format(delayNanos) : "hedging at " + adaptive)
        + (maxHedges == UNBOUNDED ? "" : ", at most " + maxHedges + " hedges");
  }

  /** A quantile as a percentile's digits: 0.95 is "95", 0.999 is "99.9". */
  static String percentile(double quantile) {
    return java.math.BigDecimal.valueOf(quantile).movePointRight(2).stripTrailingZeros().toPlainString();
  }
}
