package dev.backoff.lab;

import java.util.concurrent.TimeUnit;

/**
 * The latencies of a fleet's logical requests that succeeded (from the request's start to its success,
 * every attempt and hedge included), for percentiles: log-linear buckets of microseconds, 128 per power of
 * two, so a percentile is within 0.4% of a recorded value (exact below 256 µs), in a fixed 58 KiB
 * whatever the run's length. Thread-safe (records come from the HTTP client's threads).
 */
final class LatencyHistogram {
  private static final int SUB_BITS = 7;
  private static final int SUB = 1 << SUB_BITS;
  private static final int BUCKETS = (64 - SUB_BITS) * SUB + SUB;

  private final long[] counts = new long[BUCKETS];
  private long total;

  /**
   * Records one latency; a negative one counts as 0.
   *
   * @param nanos the latency in nanoseconds
   */
  synchronized void record(long nanos) {
    counts[index(Math.max(0, nanos) / 1000)]++;
    total++;
  }

  /** The number of latencies recorded. */
  synchronized long count() {
    return total;
  }

  /**
   * The {@code q} quantile in seconds: the smallest bucket holding at least {@code q} of the records, as
   * its midpoint; NaN if nothing was recorded.
   *
   * @throws IllegalArgumentException if {@code q} is not in (0, 1]
   */
  synchronized double quantileSeconds(double q) {
    if (!(q > 0 && q <= 1)) {
      throw new IllegalArgumentException("q must be in (0, 1], was " + q);
    }
    if (total == 0) {
      return Double.NaN;
    }
    long rank = Math.max(1, (long) Math.ceil(q * total));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        long low = lowerBound(i);
        long high = i + 1 < BUCKETS ? lowerBound(i + 1) : low + 1;
        return (low + (high - low - 1) / 2.0) / TimeUnit.SECONDS.toMicros(1);
      }
    }
    throw new AssertionError("unreachable: " + seen + " of " + total);
  }

  /** The bucket of a latency in microseconds. */
  static int index(long micros) {
    if (micros < 2 * SUB) {
      return (int) micros;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(micros); // at least SUB_BITS + 1
    int sub = (int) ((micros >>> (exponent - SUB_BITS)) & (SUB - 1));
    return (exponent - SUB_BITS) * SUB + sub + SUB;
  }

  /** The smallest latency in microseconds that falls in bucket {@code index}. */
  static long lowerBound(int index) {
    if (index < 2 * SUB) {
      return index;
    }
    int shifted = index - SUB;
    int exponent = shifted / SUB + SUB_BITS;
    int sub = shifted % SUB;
    return (long) (SUB + sub) << (exponent - SUB_BITS);
  }
}
