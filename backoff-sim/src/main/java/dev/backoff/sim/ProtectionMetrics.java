package dev.backoff.sim;

import dev.backoff.CircuitBreaker;
import dev.backoff.ConcurrencyLimiter;
import java.util.Arrays;

/**
 * Per-second counters and samples of a run's storm-protection mechanisms (see {@link Protection}), kept
 * apart from {@link Metrics} so that a run without them carries nothing. Breaker time is integrated over
 * the second from the breakers' state transitions, so a breaker shared by the run that opened for 300 ms
 * reads 0.3. Mutable, single-threaded.
 */
final class ProtectionMetrics {
  private static final double SECOND = 1e9;
  final long[] refused;
  final double[] breakerOpen;
  final double[] breakerHalfOpen;
  final double[] limiterFillRate;
  final long[] limiterWaits;
  final long[] limiterRefused;
  final long[] hedgesSent;
  final int[] hedgesInFlight;
  final long[] hedgesWon;
  final int[] concurrencyLimit;
  final long[] concurrencyRefusedFirst;
  final long[] concurrencyRefusedRetries;
  private long refusedFirstBefore;
  private long refusedRetriesBefore;
  private int breakers;
  private int open;
  private int halfOpen;
  private long lastChangeNanos;
  private double openNanos;
  private double halfOpenNanos;
  private long secondStartNanos;

  ProtectionMetrics(int seconds) {
    refused = new long[seconds];
    breakerOpen = new double[seconds];
    breakerHalfOpen = new double[seconds];
    limiterFillRate = new double[seconds];
    limiterWaits = new long[seconds];
    limiterRefused = new long[seconds];
    hedgesSent = new long[seconds];
    hedgesInFlight = new int[seconds];
    hedgesWon = new long[seconds];
    concurrencyLimit = new int[seconds];
    concurrencyRefusedFirst = new long[seconds];
    concurrencyRefusedRetries = new long[seconds];
    Arrays.fill(limiterFillRate, Double.NaN);
  }

  /** A breaker was built (closed). */
  void breakerAdded() {
    breakers++;
  }

  /** A breaker moved from {@code from} to {@code to} at {@code now}. */
  void transition(CircuitBreaker.State from, CircuitBreaker.State to, long now) {
    accumulate(now);
    open += (to == CircuitBreaker.State.OPEN ? 1 : 0) - (from == CircuitBreaker.State.OPEN ? 1 : 0);
    halfOpen += (to == CircuitBreaker.State.HALF_OPEN ? 1 : 0) - (from == CircuitBreaker.State.HALF_OPEN ? 1 : 0);
  }

  private void accumulate(long now) {
    long elapsed = now - lastChangeNanos;
    openNanos += (double) open * elapsed;
    halfOpenNanos += (double) halfOpen * elapsed;
    lastChangeNanos = now;
  }

  /**
   * Closes second {@code index} at {@code now} (its end, or the end of the run); {@code limiter} is the run's
   * concurrency limiter, or null: its limit now and the refusals its counters grew by since the last sample.
   */
  void sample(int index, long now, double fillRate, int hedgesInFlightNow, ConcurrencyLimiter limiter) {
    if (limiter != null) {
      concurrencyLimit[index] = limiter.limit();
      long first = limiter.refusedFirstAttempts();
      long later = limiter.refusedRetriesAndHedges();
      concurrencyRefusedFirst[index] = first - refusedFirstBefore;
      concurrencyRefusedRetries[index] = later - refusedRetriesBefore;
      refusedFirstBefore = first;
      refusedRetriesBefore = later;
    }
    accumulate(now);
    double span = Math.max(1, now - secondStartNanos) * (double) Math.max(1, breakers);
    breakerOpen[index] = breakers == 0 ? 0 : openNanos / span;
    breakerHalfOpen[index] = breakers == 0 ? 0 : halfOpenNanos / span;
    openNanos = 0;
    halfOpenNanos = 0;
    secondStartNanos = now;
    limiterFillRate[index] = fillRate;
    hedgesInFlight[index] = hedgesInFlightNow;
  }

  static int second(long now) {
    return (int) (now / (long) SECOND);
  }
}
