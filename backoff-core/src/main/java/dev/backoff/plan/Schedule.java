package dev.backoff.plan;

import dev.backoff.Backoff;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * The schedule of any {@link Backoff} (a strategy or a preset's): for retries 1 to N, the sleep before each
 * retry and the elapsed time at it, the sum of the sleeps up to and including its own. Attempt durations
 * are ignored: elapsed time is time spent sleeping, a lower bound of the wall-clock time. Immutable and
 * thread-safe.
 *
 * <p>How each number is obtained ({@link #method()}):
 * <ul>
 *   <li>{@link Method#EXACT}: a deterministic strategy ({@link Backoff#isRandom()} false); every value is
 *       exact (to the nanosecond the strategy computes).
 *   <li>{@link Method#EXACT_DELAYS}: a jittered strategy whose delays depend only on the retry number and one
 *       uniform draw ({@link Backoff#isHistoryIndependent()}, e.g. full or equal jitter of an exponential
 *       schedule). Each delay's min, percentiles and max are exact: the delay at {@code u = p}. Its mean is
 *       the integral over {@code u}, computed by the midpoint rule on 4096 points (exact for the linear
 *       jitters up to the nanosecond rounding). The elapsed time's min, max and mean are the sums of the
 *       delays' (the draws are independent), so exact as well; its percentiles, which no closed form gives,
 *       are a seeded Monte-Carlo estimate (except at retry 1, where elapsed = delay).
 *   <li>{@link Method#MONTE_CARLO}: any other strategy (such as decorrelated jitter, whose delays depend on
 *       the previous ones): every statistic is a seeded Monte-Carlo estimate.
 * </ul>
 * Monte-Carlo estimates draw from {@code new SplittableRandom(seed)}, one schedule after another, so the
 * same seed and sample count give the same numbers. Percentiles use the nearest-rank definition.
 */
public final class Schedule {
  /** Samples used when none are given. */
  public static final int DEFAULT_SAMPLES = 10_000;
  /** The largest retries × samples a schedule computes (memory for the Monte-Carlo estimate). */
  public static final long MAX_CELLS = 5_000_000L;
  private static final int QUADRATURE_POINTS = 4096;

  /** How a schedule's numbers were obtained. */
  public enum Method {
    /** Deterministic strategy: all values exact. */
    EXACT,
    /** Delay statistics and elapsed min, mean and max exact; elapsed percentiles by Monte Carlo. */
    EXACT_DELAYS,
    /** All statistics by Monte Carlo. */
    MONTE_CARLO
  }

  private final Method method;
  private final int samples;
  private final long seed;
  private final List<ScheduleRow> rows;

  private Schedule(Method method, int samples, long seed, List<ScheduleRow> rows) {
    this.method = method;
    this.samples = samples;
    this.seed = seed;
    this.rows = rows;
  }

  /**
   * The schedule of {@code retries} retries, with {@link #DEFAULT_SAMPLES} samples and seed 0 where an
   * estimate is needed.
   *
   * @throws IllegalArgumentException as {@link #of(Backoff, int, int, long)}
   */
  public static Schedule of(Backoff backoff, int retries) {
    return of(backoff, retries, DEFAULT_SAMPLES, 0);
  }

  /**
   * The schedule of {@code retries} retries.
   *
   * @param samples how many schedules to draw for Monte-Carlo estimates (unused for exact schedules)
   * @param seed the seed of the Monte-Carlo estimates
   * @throws IllegalArgumentException if {@code backoff} is null, {@code retries} or {@code samples} is below
   *     1, or {@code retries × samples} exceeds {@link #MAX_CELLS} for a random strategy
   */
  public static Schedule of(Backoff backoff, int retries, int samples, long seed) {
    if (backoff == null) {
      throw new NullPointerException("backoff must not be null");
    }
    if (retries < 1) {
      throw new IllegalArgumentException("retries must be at least 1, was " + retries);
    }
    if (samples < 1) {
      throw new IllegalArgumentException("samples must be at least 1, was " + samples);
    }
    if (!backoff.isRandom()) {
      if (retries > MAX_CELLS) {
        throw new IllegalArgumentException("retries must be at most " + MAX_CELLS + ", was " + retries);
      }
      return exact(backoff, retries);
    }
    if ((long) retries * samples > MAX_CELLS) {
      throw new IllegalArgumentException("retries × samples must be at most " + MAX_CELLS + ", was " + retries
          + " × " + samples);
    }
    long[][] elapsed = new long[retries][samples];
    long[][] delays = new long[retries][samples];
    simulate(backoff, samples, seed, delays, elapsed);
    List<ScheduleRow> rows = new ArrayList<>(retries);
    if (backoff.isHistoryIndependent()) {
      long minSum = 0;
      long maxSum = 0;
      double meanSum = 0;
      for (int retry = 1; retry <= retries; retry++) {
        long min = delayAt(backoff, retry, 0);
        long max = delayAt(backoff, retry, Math.nextDown(1.0));
        double mean = clamp(meanDelay(backoff, retry), min, max);
        Distribution delay = Distribution.of(Checks.seconds(min), Checks.seconds(delayAt(backoff, retry, 0.05)),
            Checks.seconds(delayAt(backoff, retry, 0.5)), mean / 1e9, Checks.seconds(delayAt(backoff, retry, 0.95)),
            Checks.seconds(max));
        minSum = add(minSum, min);
        maxSum = add(maxSum, max);
        meanSum += mean;
        long[] column = elapsed[retry - 1];
        Arrays.sort(column);
        // The sampled percentiles lie within the exact bounds; clamping only guards rounding.
        Distribution elapsedDistribution = Distribution.of(Checks.seconds(minSum),
            clamp(Checks.seconds(percentile(column, 0.05)), minSum / 1e9, maxSum / 1e9),
            clamp(Checks.seconds(percentile(column, 0.5)), minSum / 1e9, maxSum / 1e9),
            clamp(meanSum, minSum, maxSum) / 1e9,
            clamp(Checks.seconds(percentile(column, 0.95)), minSum / 1e9, maxSum / 1e9),
            Checks.seconds(maxSum));
        // At retry 1 the elapsed time is the first delay, whose percentiles are exact.
        rows.add(new ScheduleRow(retry, delay, retry == 1 ? delay : elapsedDistribution));
      }
      return new Schedule(Method.EXACT_DELAYS, samples, seed, Collections.unmodifiableList(rows));
    }
    for (int retry = 1; retry <= retries; retry++) {
      rows.add(new ScheduleRow(retry, sampled(delays[retry - 1]), sampled(elapsed[retry - 1])));
    }
    return new Schedule(Method.MONTE_CARLO, samples, seed, Collections.unmodifiableList(rows));
  }

  private static Schedule exact(Backoff backoff, int retries) {
    List<ScheduleRow> rows = new ArrayList<>(retries);
    RandomGenerator none = new FixedUniform(Double.NaN);
    long previous = 0;
    long total = 0;
    for (int retry = 1; retry <= retries; retry++) {
      long delay = backoff.delayNanos(retry, previous, total, none);
      total = add(total, delay);
      previous = delay;
      rows.add(new ScheduleRow(retry, Distribution.exactly(Checks.seconds(delay)),
          Distribution.exactly(Checks.seconds(total))));
    }
    return new Schedule(Method.EXACT, 0, 0, Collections.unmodifiableList(rows));
  }

  private static void simulate(Backoff backoff, int samples, long seed, long[][] delays, long[][] elapsed) {
    SplittableRandom random = new SplittableRandom(seed);
    int retries = delays.length;
    for (int sample = 0; sample < samples; sample++) {
      long previous = 0;
      long total = 0;
      for (int retry = 1; retry <= retries; retry++) {
        long delay = backoff.delayNanos(retry, previous, total, random);
        total = add(total, delay);
        previous = delay;
        delays[retry - 1][sample] = delay;
        elapsed[retry - 1][sample] = total;
      }
    }
  }

  private static Distribution sampled(long[] column) {
    Arrays.sort(column);
    double sum = 0;
    for (long value : column) {
      sum += value;
    }
    double min = Checks.seconds(column[0]);
    double max = Checks.seconds(column[column.length - 1]);
    return Distribution.of(min, Checks.seconds(percentile(column, 0.05)), Checks.seconds(percentile(column, 0.5)),
        clamp(sum / column.length / 1e9, min, max), Checks.seconds(percentile(column, 0.95)), max);
  }

  /** Nearest-rank percentile of sorted values. */
  private static long percentile(long[] sorted, double p) {
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static long delayAt(Backoff backoff, int retry, double u) {
    return backoff.delayNanos(retry, 0, 0, new FixedUniform(u));
  }

  private static double meanDelay(Backoff backoff, int retry) {
    FixedUniform uniform = new FixedUniform(0);
    double sum = 0;
    for (int i = 0; i < QUADRATURE_POINTS; i++) {
      uniform.u = (i + 0.5) / QUADRATURE_POINTS;
      sum += backoff.delayNanos(retry, 0, 0, uniform);
    }
    return sum / QUADRATURE_POINTS;
  }

  private static double clamp(double value, double min, double max) {
    return Math.max(min, Math.min(max, value));
  }

  private static long add(long a, long b) {
    long sum = a + b;
    return sum < a ? Long.MAX_VALUE : sum; // both operands are non-negative
  }

  /** How the numbers were obtained. */
  public Method method() {
    return method;
  }

  /** The Monte-Carlo sample count, 0 for an exact schedule. */
  public int samples() {
    return samples;
  }

  /** The Monte-Carlo seed (0 for an exact schedule). */
  public long seed() {
    return seed;
  }

  /** The rows, retry 1 first. */
  public List<ScheduleRow> rows() {
    return rows;
  }

  /** A one-line statement of how the numbers were obtained, for reports. */
  public String describeMethod() {
    return switch (method) {
      case EXACT -> "exact (deterministic strategy); elapsed = sum of sleeps, attempt durations ignored";
      case EXACT_DELAYS -> "delays exact; elapsed min/mean/max exact, elapsed percentiles by Monte Carlo ("
          + samples + " samples, seed " + seed + "); attempt durations ignored";
      default -> "Monte Carlo (" + samples + " samples, seed " + seed + "); attempt durations ignored";
    };
  }

  /** A random source that always yields one chosen {@code u}; strategies draw only nextDouble. */
  private static final class FixedUniform implements RandomGenerator {
    double u;

    FixedUniform(double u) {
      this.u = u;
    }

    @Override
    public double nextDouble() {
      if (Double.isNaN(u)) {
        throw new IllegalStateException("a strategy that reports isRandom() false drew a random number");
      }
      return u;
    }

    @Override
    public long nextLong() {
      throw new UnsupportedOperationException("backoff strategies draw only nextDouble()");
    }
  }
}
