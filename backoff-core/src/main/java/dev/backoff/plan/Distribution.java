package dev.backoff.plan;

/**
 * Summary of a distribution of times, in seconds: minimum, 5th percentile, median, mean, 95th percentile
 * and maximum. A deterministic value has all six equal. Immutable and thread-safe.
 */
public final class Distribution {
  private final double min;
  private final double p5;
  private final double median;
  private final double mean;
  private final double p95;
  private final double max;

  private Distribution(double min, double p5, double median, double mean, double p95, double max) {
    this.min = min;
    this.p5 = p5;
    this.median = median;
    this.mean = mean;
    this.p95 = p95;
    this.max = max;
  }

  /**
   * A distribution from its six statistics.
   *
   * @throws IllegalArgumentException if a value is negative, NaN or infinite, or they are out of order
   *     ({@code min <= p5 <= median <= p95 <= max}, {@code min <= mean <= max})
   */
  public static Distribution of(double min, double p5, double median, double mean, double p95, double max) {
    double[] values = {min, p5, median, mean, p95, max};
    for (double value : values) {
      if (!(value >= 0) || Double.isInfinite(value)) {
        throw new IllegalArgumentException("distribution values must be finite and >= 0, was " + value);
      }
    }
    if (!(min <= p5 && p5 <= median && median <= p95 && p95 <= max && min <= mean && mean <= max)) {
      throw new IllegalArgumentException("distribution values out of order: min " + min + ", p5 " + p5
          + ", median " + median + ", mean " + mean + ", p95 " + p95 + ", max " + max);
    }
    return new Distribution(min, p5, median, mean, p95, max);
  }

  /** A single certain value. */
  public static Distribution exactly(double seconds) {
    return of(seconds, seconds, seconds, seconds, seconds, seconds);
  }

  /** The smallest value. */
  public double min() {
    return min;
  }

  /** The 5th percentile. */
  public double p5() {
    return p5;
  }

  /** The median. */
  public double median() {
    return median;
  }

  /** The mean. */
  public double mean() {
    return mean;
  }

  /** The 95th percentile. */
  public double p95() {
    return p95;
  }

  /** The largest value (the supremum, for a continuous distribution). */
  public double max() {
    return max;
  }

  /** Whether the value is certain (all statistics equal). */
  public boolean isExact() {
    return min == max;
  }

  @Override
  public String toString() {
    return isExact() ? min + " s"
        : "min " + min + ", p5 " + p5 + ", median " + median + ", mean " + mean + ", p95 " + p95 + ", max "
            + max + " s";
  }
}
