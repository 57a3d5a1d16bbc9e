package dev.backoff.sim;

/**
 * The few statistics the advisor reports over seeds: a mean, Student's t interval for it, and Wilson's score
 * interval for a fraction, all at 95%. Stateless.
 */
final class SeedStatistics {
  private SeedStatistics() {}

  /** Two-sided 97.5% quantiles of Student's t for 1 to 30 degrees of freedom. */
  private static final double[] T_975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
      2.056, 2.052, 2.048, 2.045, 2.042};
  private static final double Z_975 = 1.959964;

  /** The mean; NaN for no samples; infinite if a sample is. */
  static double mean(double[] samples) {
    if (samples.length == 0) {
      return Double.NaN;
    }
    double sum = 0;
    for (double sample : samples) {
      sum += sample;
    }
    return sum / samples.length;
  }

  /**
   * Student's t 95% interval for the mean, {low, high}: a point for one sample, {NaN, NaN} for none, and
   * {mean, +inf} or {-inf, +inf} when a sample is infinite (nothing finite can be said of the spread).
   */
  static double[] meanInterval(double[] samples) {
    double mean = mean(samples);
    if (samples.length < 2 || Double.isInfinite(mean)) {
      if (Double.isInfinite(mean)) {
        return new double[] {min(samples), Double.POSITIVE_INFINITY};
      }
      return new double[] {mean, mean};
    }
    double squares = 0;
    for (double sample : samples) {
      squares += (sample - mean) * (sample - mean);
    }
    double standardError = Math.sqrt(squares / (samples.length - 1) / samples.length);
    int degrees = samples.length - 1;
    double t = degrees <= T_975.length ? T_975[degrees - 1] : Z_975;
    return new double[] {mean - t * standardError, mean + t * standardError};
  }

  private static double min(double[] samples) {
    double min = Double.POSITIVE_INFINITY;
    for (double sample : samples) {
      min = Math.min(min, sample);
    }
    return min;
  }

  /** Wilson's score 95% interval for {@code successes} out of {@code trials}, {low, high}; {NaN, NaN} for none. */
  static double[] wilson(int successes, int trials) {
    if (trials == 0) {
      return new double[] {Double.NaN, Double.NaN};
    }
    double n = trials;
    double p = successes / n;
    double z2 = Z_975 * Z_975;
    double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = Z_975 / (1 + z2 / n) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
  }
}
