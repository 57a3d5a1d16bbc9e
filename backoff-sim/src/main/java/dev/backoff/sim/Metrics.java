package dev.backoff.sim;

import java.util.Arrays;

/**
 * Per-second counters and samples of one run, and a latency histogram for percentiles. Counters are
 * indexed by the second an event happened in; samples (concurrency, server latency, budget level) are
 * taken at the end of each second, as the original experiment's server prints once per second. Mutable, single-threaded.
 */
final class Metrics {
  final int seconds;
  final long[] newRequests;
  final long[] attempts;
  final long[] successes;
  final long[] errors;
  final long[] timeouts;
  final long[] retries;
  final long[] gaveUp;
  final int[] concurrency;
  final int[] peakConcurrency;
  final long[] latencyNanos;
  final double[] budgetLevel;
  /** In {@link #clientP50Nanos} and {@link #clientP99Nanos}: no request succeeded in the second. */
  static final long NO_SUCCESS = -1;
  final long[] clientP50Nanos;
  final long[] clientP99Nanos;
  private final LatencyHistogram secondHistogram = new LatencyHistogram();
  final LatencyHistogram runHistogram = new LatencyHistogram();
  private int currentPeak;

  Metrics(int seconds) {
    this.seconds = seconds;
    newRequests = new long[seconds];
    attempts = new long[seconds];
    successes = new long[seconds];
    errors = new long[seconds];
    timeouts = new long[seconds];
    retries = new long[seconds];
    gaveUp = new long[seconds];
    concurrency = new int[seconds];
    peakConcurrency = new int[seconds];
    latencyNanos = new long[seconds];
    budgetLevel = new double[seconds];
    clientP50Nanos = new long[seconds];
    clientP99Nanos = new long[seconds];
    Arrays.fill(budgetLevel, Double.NaN);
  }

  static int second(long now) {
    return (int) (now / 1_000_000_000L);
  }

  void concurrency(int c) {
    if (c > currentPeak) {
      currentPeak = c;
    }
  }

  void success(long now, long callLatencyNanos) {
    successes[second(now)]++;
    secondHistogram.record(callLatencyNanos);
    runHistogram.record(callLatencyNanos);
  }

  /** Closes second {@code index}: takes the samples and starts the next second. */
  void sample(int index, int serverConcurrency, long serverLatencyNanos, double budget) {
    concurrency[index] = serverConcurrency;
    peakConcurrency[index] = Math.max(currentPeak, serverConcurrency);
    latencyNanos[index] = serverLatencyNanos;
    budgetLevel[index] = budget;
    boolean none = secondHistogram.count() == 0;
    clientP50Nanos[index] = none ? NO_SUCCESS : secondHistogram.percentile(0.50);
    clientP99Nanos[index] = none ? NO_SUCCESS : secondHistogram.percentile(0.99);
    secondHistogram.clear();
    currentPeak = serverConcurrency;
  }

  /**
   * A log-linear histogram of durations: exact below 128 µs, then 64 sub-buckets per power of two (at most
   * 1.6% relative error). Percentiles report the bucket's midpoint.
   */
  static final class LatencyHistogram {
    private static final int SUB_BITS = 6;
    private final long[] counts = new long[64 << SUB_BITS];
    private long total;

    void record(long nanos) {
      long micros = Math.max(0, nanos / 1000);
      counts[index(micros)]++;
      total++;
    }

    static int index(long micros) {
      if (micros < (2L << SUB_BITS)) {
        return (int) micros;
      }
      int exponent = 63 - Long.numberOfLeadingZeros(micros); // >= SUB_BITS + 1
      int sub = (int) ((micros >>> (exponent - SUB_BITS)) & ((1 << SUB_BITS) - 1));
      return ((exponent - SUB_BITS) << SUB_BITS) + sub + (1 << SUB_BITS);
    }

    static long lowerBound(int index) {
      if (index < (2 << SUB_BITS)) {
        return index;
      }
      int shifted = index - (1 << SUB_BITS);
      int exponent = (shifted >>> SUB_BITS) + SUB_BITS;
      int sub = shifted & ((1 << SUB_BITS) - 1);
      return ((long) ((1 << SUB_BITS) + sub)) << (exponent - SUB_BITS);
    }

    long count() {
      return total;
    }

    /** The {@code q} quantile in nanoseconds (0 when empty). */
    long percentile(double q) {
      if (total == 0) {
        return 0;
      }
      long rank = Math.max(1, (long) Math.ceil(q * total));
      long seen = 0;
      for (int i = 0; i < counts.length; i++) {
        seen += counts[i];
        if (seen >= rank) {
          long low = lowerBound(i);
          long high = i + 1 < counts.length ? lowerBound(i + 1) : low;
          return (low + (high - low) / 2) * 1000;
        }
      }
      return 0;
    }

    void clear() {
      if (total != 0) {
        Arrays.fill(counts, 0);
        total = 0;
      }
    }
  }
}
