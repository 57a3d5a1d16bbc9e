package dev.backoff.sim;

import java.util.Arrays;

/**
 * Statistics over independent runs (seeds), all at 95% confidence ({@link #CONFIDENCE}), all distribution-free
 * except the mean's:
 *
 * <ul>
 *   <li>a proportion (the share of runs that recovered): the <b>Wilson score interval</b>, which stays inside
 *       [0, 1] and is sensible at 0 or n successes, unlike the normal approximation (8 of 10: [0.490, 0.943]);
 *   <li>a quantile (median, p90): the sample quantile by linear interpolation between order statistics (the
 *       common "type 7" definition: the median of an even count is the mean of the middle two), with an
 *       <b>order-statistic interval</b> {@code [x(l), x(u)]} whose ranks come from the binomial distribution of
 *       how many runs fall below the true quantile, so its coverage is at least 95% for any continuous
 *       distribution (with ties, as with whole seconds, it is approximate). With few runs one end may not be
 *       boundable at 95%: then it is infinite (for p90, the upper end needs at least 36 runs; for the median,
 *       either end at least 6);
 *   <li>the mean: the <b>Student t interval</b> {@code mean ± t(0.975, n-1) · s / √n}, exact for normal data and
 *       approximate otherwise (a heavy tail makes it too narrow; the quantiles' intervals do not assume a shape).
 *       It needs two runs; with one, both ends are infinite.
 * </ul>
 *
 * Stateless and thread-safe; every result is a deterministic function of its input, the same on every JDK
 * and platform ({@link StrictMath}, never {@code Math}'s intrinsics, which may differ in the last place).
 */
public final class Stats {
  private Stats() {}

  /** The confidence level of every interval here: 0.95. */
  public static final double CONFIDENCE = 0.95;
  /** The two-sided 95% quantile of the standard normal distribution. */
  static final double Z = 1.959963984540054;
  private static final double ALPHA = 1 - CONFIDENCE;

  /**
   * An interval; an end that the data cannot bound is infinite. Immutable.
   *
   * @param lower the lower end (may be {@code -Infinity}), or NaN when there is no data
   * @param upper the upper end (may be {@code +Infinity}), or NaN when there is no data
   */
  public record Interval(double lower, double upper) {
    /** True if {@code value} lies within the interval, ends included. */
    public boolean contains(double value) {
      return lower <= value && value <= upper;
    }
  }

  /**
   * A point estimate with its 95% interval. Immutable.
   *
   * @param value the estimate; NaN when there is no data
   * @param lower the interval's lower end ({@code -Infinity} if the data cannot bound it; NaN without data)
   * @param upper the interval's upper end ({@code +Infinity} if the data cannot bound it; NaN without data)
   */
  public record Estimate(double value, double lower, double upper) {
    /** The interval alone. */
    public Interval interval() {
      return new Interval(lower, upper);
    }
  }

  /**
   * The Wilson score interval for a proportion {@code successes / trials} at 95%.
   *
   * @return the interval, within [0, 1]; for 0 trials, NaN at both ends
   * @throws IllegalArgumentException naming {@code trials} or {@code successes} if negative, or
   *     {@code successes} if more than {@code trials}
   */
  public static Interval wilson(long successes, long trials) {
    if (trials < 0) {
      throw new IllegalArgumentException("trials must not be negative, was " + trials);
    }
    if (successes < 0 || successes > trials) {
      throw new IllegalArgumentException("successes must be between 0 and trials (" + trials + "), was "
          + successes);
    }
    if (trials == 0) {
      return new Interval(Double.NaN, Double.NaN);
    }
    double n = trials;
    double p = successes / n;
    double z2 = Z * Z;
    double denominator = 1 + z2 / n;
    double center = (p + z2 / (2 * n)) / denominator;
    double half = Z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator;
    // Exact at the edges (the formula's rounding could leave 1e-17 outside [0, 1] or miss p itself).
    double lower = successes == 0 ? 0 : Math.max(0, center - half);
    double upper = successes == trials ? 1 : Math.min(1, center + half);
    return new Interval(Math.min(lower, p), Math.max(upper, p));
  }

  /**
   * A sample of one metric over runs. NaN values (a run without that number, such as the recovery time of
   * a run that did not recover) are left out and counted as {@link #missing()}. Immutable and thread-safe.
   */
  public static final class Sample {
    private final double[] sorted;
    private final int missing;

    private Sample(double[] sorted, int missing) {
      this.sorted = sorted;
      this.missing = missing;
    }

    /**
     * A sample of these values, NaN left out.
     *
     * @throws NullPointerException if {@code values} is null
     * @throws IllegalArgumentException if a value is infinite (naming its index and value)
     */
    public static Sample of(double... values) {
      double[] kept = new double[values.length];
      int n = 0;
      for (int i = 0; i < values.length; i++) {
        double v = values[i];
        if (Double.isInfinite(v)) {
          throw new IllegalArgumentException("values[" + i + "] is not finite: " + v);
        }
        if (!Double.isNaN(v)) {
          kept[n++] = v;
        }
      }
      double[] sorted = Arrays.copyOf(kept, n);
      Arrays.sort(sorted);
      return new Sample(sorted, values.length - n);
    }

    /** How many values (NaN excluded). */
    public int size() {
      return sorted.length;
    }

    /** How many NaN values were left out. */
    public int missing() {
      return missing;
    }

    /** The values in ascending order (a copy). */
    public double[] sortedValues() {
      return sorted.clone();
    }

    /** The smallest value, or NaN if the sample is empty. */
    public double min() {
      return sorted.length == 0 ? Double.NaN : sorted[0];
    }

    /** The largest value, or NaN if the sample is empty. */
    public double max() {
      return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
    }

    /** The mean with its Student t interval (see {@link Stats}); NaN if empty. */
    public Estimate mean() {
      int n = sorted.length;
      if (n == 0) {
        return new Estimate(Double.NaN, Double.NaN, Double.NaN);
      }
      double sum = 0;
      for (double v : sorted) {
        sum += v;
      }
      double mean = sum / n;
      if (n == 1) {
        return new Estimate(mean, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
      }
      double squares = 0;
      for (double v : sorted) {
        squares += (v - mean) * (v - mean);
      }
      double half = studentT(1 - ALPHA / 2, n - 1) * Math.sqrt(squares / (n - 1) / n);
      // All values equal: no spread, and the interval is the point (never a rounding error's width).
      return half == 0 ? new Estimate(mean, mean, mean) : new Estimate(mean, mean - half, mean + half);
    }

    /** The median with its order-statistic interval; NaN if empty. */
    public Estimate median() {
      return quantile(0.5);
    }

    /** The 90th percentile with its order-statistic interval; NaN if empty. */
    public Estimate p90() {
      return quantile(0.9);
    }

    /**
     * The {@code p} quantile (linear interpolation between order statistics) with its order-statistic
     * interval at 95% (see {@link Stats}); NaN if empty.
     *
     * @throws IllegalArgumentException naming {@code p} if it is not strictly between 0 and 1
     */
    public Estimate quantile(double p) {
      if (!(p > 0 && p < 1)) {
        throw new IllegalArgumentException("p must be between 0 and 1 (exclusive), was " + p);
      }
      int n = sorted.length;
      if (n == 0) {
        return new Estimate(Double.NaN, Double.NaN, Double.NaN);
      }
      double h = (n - 1) * p;
      int below = (int) Math.floor(h);
      double value = below + 1 < n ? sorted[below] + (h - below) * (sorted[below + 1] - sorted[below]) : sorted[below];
      int[] ranks = quantileRanks(n, p);
      double lower = ranks[0] == 0 ? Double.NEGATIVE_INFINITY : sorted[ranks[0] - 1];
      double upper = ranks[1] > n ? Double.POSITIVE_INFINITY : sorted[ranks[1] - 1];
      return new Estimate(value, Math.min(lower, value), Math.max(upper, value));
    }
  }

  /**
   * The 1-based ranks {@code {l, u}} of the order statistics bounding the {@code p} quantile of {@code n}
   * values at 95%: {@code l} is the largest rank with {@code P(B <= l - 1) <= 0.025} and {@code u} the
   * smallest with {@code P(B >= u) <= 0.025}, where {@code B ~ Binomial(n, p)} counts the values below the
   * true quantile; {@code l = 0} or {@code u = n + 1} when that end cannot be bounded.
   */
  static int[] quantileRanks(int n, double p) {
    double tail = ALPHA / 2;
    // P(B <= k) rises with k: the largest k in [-1, n-1] with P(B <= k) <= tail, by bisection.
    int low = -1;
    int high = n; // P(B <= n) = 1 > tail
    while (high - low > 1) {
      int middle = (low + high) >>> 1;
      if (binomialCdf(middle, n, p) <= tail) {
        low = middle;
      } else {
        high = middle;
      }
    }
    int lowerRank = low + 1; // P(B <= lowerRank - 1) <= tail; 0 if even P(B <= 0) is more
    // P(B >= u) = 1 - P(B <= u - 1) falls with u: the smallest u in [1, n+1] with it <= tail.
    low = 0; // P(B >= 0) = 1 > tail
    high = n + 1; // P(B >= n + 1) = 0
    while (high - low > 1) {
      int middle = (low + high) >>> 1;
      if (1 - binomialCdf(middle - 1, n, p) <= tail) {
        high = middle;
      } else {
        low = middle;
      }
    }
    return new int[] {lowerRank, high};
  }

  /** {@code P(B <= k)} for {@code B ~ Binomial(n, p)}. */
  static double binomialCdf(int k, int n, double p) {
    if (k < 0) {
      return 0;
    }
    if (k >= n) {
      return 1;
    }
    return regularizedBeta(1 - p, n - k, k + 1.0);
  }

  /** The {@code q} quantile of Student's t distribution with {@code df} degrees of freedom, for q in (0.5, 1). */
  static double studentT(double q, int df) {
    // CDF(t) = 1 - I_{df/(df+t²)}(df/2, 1/2) / 2 for t >= 0; bisect on t, 200 steps reach a double's precision.
    double low = 0;
    double high = 1;
    while (studentCdf(high, df) < q) {
      high *= 2;
    }
    for (int i = 0; i < 200 && high - low > 1e-15 * high; i++) {
      double middle = (low + high) / 2;
      if (studentCdf(middle, df) < q) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return (low + high) / 2;
  }

  static double studentCdf(double t, int df) {
    double x = df / (df + t * t);
    double tail = regularizedBeta(x, df / 2.0, 0.5) / 2;
    return t >= 0 ? 1 - tail : tail;
  }

  /**
   * The regularized incomplete beta function {@code I_x(a, b)}, by its continued fraction (modified Lentz),
   * using the symmetry {@code I_x(a, b) = 1 - I_{1-x}(b, a)} where the fraction converges faster.
   */
  static double regularizedBeta(double x, double a, double b) {
    if (x <= 0) {
      return 0;
    }
    if (x >= 1) {
      return 1;
    }
    double logFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * StrictMath.log(x) + b * StrictMath.log1p(-x);
    if (x < (a + 1) / (a + b + 2)) {
      return StrictMath.exp(logFront) * betaFraction(x, a, b) / a;
    }
    return 1 - StrictMath.exp(logFront) * betaFraction(1 - x, b, a) / b;
  }

  private static double betaFraction(double x, double a, double b) {
    double tiny = 1e-300;
    double c = 1;
    double d = 1 - (a + b) * x / (a + 1);
    d = Math.abs(d) < tiny ? 1 / tiny : 1 / d;
    double f = d;
    for (int m = 1; m <= 10_000; m++) {
      // Even step.
      double numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      d = 1 + numerator * d;
      d = Math.abs(d) < tiny ? 1 / tiny : 1 / d;
      c = 1 + numerator / c;
      c = Math.abs(c) < tiny ? tiny : c;
      f *= d * c;
      // Odd step.
      numerator = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + numerator * d;
      d = Math.abs(d) < tiny ? 1 / tiny : 1 / d;
      c = 1 + numerator / c;
      c = Math.abs(c) < tiny ? tiny : c;
      double step = d * c;
      f *= step;
      if (Math.abs(step - 1) < 1e-16) {
        break;
      }
    }
    return f;
  }

  /** Lanczos coefficients (g = 7, nine terms): about 15 significant digits for positive arguments. */
  private static final double[] LANCZOS = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
      771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
      9.9843695780195716e-6, 1.5056327351493116e-7};

  /** {@code ln Γ(x)} for {@code x > 0}. */
  static double logGamma(double x) {
    if (x < 0.5) {
      // Reflection: Γ(x)Γ(1-x) = π / sin(πx).
      return StrictMath.log(Math.PI / Math.abs(StrictMath.sin(Math.PI * x))) - logGamma(1 - x);
    }
    double y = x - 1;
    double sum = LANCZOS[0];
    for (int i = 1; i < LANCZOS.length; i++) {
      sum += LANCZOS[i] / (y + i);
    }
    double t = y + 7.5;
    return 0.5 * StrictMath.log(2 * Math.PI) + (y + 0.5) * StrictMath.log(t) - t + StrictMath.log(sum);
  }
}
