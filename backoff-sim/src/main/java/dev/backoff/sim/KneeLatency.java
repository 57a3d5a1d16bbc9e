package dev.backoff.sim;

import java.time.Duration;
import java.util.Locale;

/**
 * The retry-storm experiment's server latency model: {@code D(c) = base} while the concurrency {@code c} is at most
 * {@code limit}, else {@code base · factor^((c − limit) / k)}. With the original experiment's defaults (100 ms, 30, 1.05,
 * 15) latency doubles every ~213 extra concurrent requests: D(951) ≈ 2 s, D(1040) ≈ 2.7 s, D(1599) ≈ 16.5 s.
 * The limit is only the knee of the curve, not an admission cap. The one knee model: the simulator's knee
 * server and the lab's live server both compute latency here ({@link StrictMath#pow}, so every JDK gives
 * the same bits).
 *
 * <p>Immutable and thread-safe.
 */
public final class KneeLatency {
  private final long baseNanos;
  private final int limit;
  private final double factor;
  private final double k;

  KneeLatency(long baseNanos, int limit, double factor, double k) {
    this.baseNanos = baseNanos;
    this.limit = limit;
    this.factor = factor;
    this.k = k;
  }

  /** The retry-storm experiment's server model: base 100 ms, limit 30, factor 1.05, K 15. */
  public static KneeLatency stormExperiment() {
    return of(Duration.ofMillis(100), 30, 1.05, 15);
  }

  /**
   * A knee model with these parameters.
   *
   * @param base the latency at or below the knee
   * @param limit the concurrency at the knee
   * @param factor the growth per {@code k} requests above the knee
   * @param k how many extra concurrent requests multiply the latency by {@code factor}
   * @throws IllegalArgumentException if {@code base} is not positive or longer than a day, {@code limit} is
   *     negative, {@code factor} is below 1 or not finite, or {@code k} is not positive and finite
   */
  public static KneeLatency of(Duration base, int limit, double factor, double k) {
    if (base == null) {
      throw new NullPointerException("base must not be null");
    }
    if (base.isZero() || base.isNegative() || base.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException("base must be positive and at most a day, was " + base);
    }
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, was " + limit);
    }
    if (!(factor >= 1) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException("factor must be a finite number >= 1, was " + factor);
    }
    if (!(k > 0) || Double.isInfinite(k)) {
      throw new IllegalArgumentException("k must be a finite number > 0, was " + k);
    }
    return new KneeLatency(base.toNanos(), limit, factor, k);
  }

  /**
   * The latency at this concurrency, in nanoseconds, saturating at {@link Long#MAX_VALUE}.
   *
   * @throws IllegalArgumentException if {@code concurrency} is negative
   */
  public long delayNanos(int concurrency) {
    if (concurrency < 0) {
      throw new IllegalArgumentException("concurrency must not be negative, was " + concurrency);
    }
    double nanos = latencyNanos(concurrency);
    return nanos >= 0x1p63 ? Long.MAX_VALUE : (long) nanos;
  }

  /**
   * The latency at a concurrency that may be fractional (a server at reduced capacity behaves at {@code c}
   * as the full one at {@code c / capacity}), unrounded and unsaturated.
   */
  double latencyNanos(double concurrency) {
    return concurrency <= limit ? baseNanos : baseNanos * StrictMath.pow(factor, (concurrency - limit) / k);
  }

  /**
   * The latency at this concurrency.
   *
   * @throws IllegalArgumentException if {@code concurrency} is negative
   */
  public Duration delay(int concurrency) {
    return Duration.ofNanos(delayNanos(concurrency));
  }

  /** The latency at or below the knee. */
  public Duration base() {
    return Duration.ofNanos(baseNanos);
  }

  /** The concurrency at the knee. */
  public int limit() {
    return limit;
  }

  /** The growth per {@link #k()} extra requests. */
  public double factor() {
    return factor;
  }

  /** How many extra requests multiply the latency by {@link #factor()}. */
  public double k() {
    return k;
  }

  /**
   * The smallest concurrency at which the latency exceeds {@code latency} (the knee's tipping point for a
   * client timeout), or {@link Integer#MAX_VALUE} if it never does.
   */
  public int concurrencyAbove(Duration latency) {
    long target = latency.toNanos();
    if (baseNanos > target) {
      return 0;
    }
    if (factor == 1) {
      return Integer.MAX_VALUE;
    }
    double exact = limit + k * Math.log((double) target / baseNanos) / Math.log(factor);
    long candidate = Math.max(limit, (long) Math.floor(exact) - 1);
    while (candidate < Integer.MAX_VALUE && delayNanos((int) candidate) <= target) {
      candidate++;
    }
    return (int) candidate;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "knee(base %s, limit %d, factor %s, k %s)",
        dev.backoff.spec.Durations.format(baseNanos), limit, plain(factor), plain(k));
  }

  private static String plain(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
  }
}
