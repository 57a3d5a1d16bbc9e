package dev.backoff;

/** The jitter implementations and the inverse normal distribution they share. */
final class Jitters {
  private Jitters() {}

  static final Jitter NONE =
      new Jitter() {
        @Override
        public long apply(long delayNanos, long capNanos, double u) {
          return delayNanos;
        }

        @Override
        public boolean isRandom() {
          return false;
        }

        @Override
        public String toString() {
          return "none";
        }
      };

  static final Jitter FULL =
      new Jitter() {
        @Override
        public long apply(long delayNanos, long capNanos, double u) {
          return (long) (delayNanos * u);
        }

        @Override
        public String toString() {
          return "full";
        }
      };

  static final Jitter EQUAL =
      new Jitter() {
        @Override
        public long apply(long delayNanos, long capNanos, double u) {
          long half = delayNanos / 2;
          return half + (long) ((delayNanos - half) * u);
        }

        @Override
        public String toString() {
          return "equal";
        }
      };

  /** {@code min(delay, cap · centreLimit)}: a symmetric jitter's centre under the cap rule. */
  private static double centre(long delayNanos, long capNanos, double centreLimit) {
    double limit = capNanos * centreLimit;
    return delayNanos < limit ? delayNanos : limit; // cheaper than Math.min on doubles
  }

  static double checkFactor(String name, double factor) {
    if (!(factor > 0 && factor <= 1)) {
      throw new IllegalArgumentException(name + " must be in (0, 1], was " + factor);
    }
    return factor;
  }

  static final class Proportional implements Jitter {
    private final double factor;
    private final double centreLimit; // cap / (1 + factor), as a fraction of the cap

    Proportional(double factor) {
      this.factor = factor;
      this.centreLimit = 1 / (1 + factor);
    }

    @Override
    public long apply(long delayNanos, long capNanos, double u) {
      double centre = centre(delayNanos, capNanos, centreLimit);
      double value = centre * (1 + factor * (2 * u - 1));
      return Math.min(capNanos, Nanos.fromDouble(value));
    }

    @Override
    public String toString() {
      return "proportional(" + factor + ")";
    }
  }

  static final class Gaussian implements Jitter {
    /**
     * Points of the truncated normal's quantile function, at {@code u = i / (POINTS − 1)}. Interpolating
     * between them keeps {@link #apply} to a few nanoseconds (the rational approximation, with a logarithm
     * in its tails, costs several times more); the error is below 0.002 standard deviations at the very ends
     * of the range and far smaller in the middle.
     */
    private static final int POINTS = 4096;
    private static final double[] QUANTILES_AT_3 = quantiles(3); // shared: every deviation ≤ 1/3 truncates at 3
    private final double deviation;
    private final double truncation; // in standard deviations
    private final double centreLimit;
    private final double[] quantiles;

    Gaussian(double deviation) {
      this.deviation = deviation;
      this.truncation = Math.min(3, 1 / deviation);
      this.centreLimit = 1 / (1 + truncation * deviation);
      this.quantiles = truncation == 3 ? QUANTILES_AT_3 : quantiles(truncation);
    }

    /** The standard normal quantiles of the distribution truncated at ±{@code truncation}. */
    private static double[] quantiles(double truncation) {
      double low = normalCdf(-truncation);
      double width = 1 - 2 * low;
      double[] points = new double[POINTS];
      for (int i = 0; i < POINTS; i++) {
        double z = inverseNormalCdf(low + width * i / (POINTS - 1));
        // Rounding in the approximations can step a hair past the truncation; keep the bound exact.
        points[i] = Math.max(-truncation, Math.min(truncation, z));
      }
      points[0] = -truncation;
      points[POINTS - 1] = truncation;
      return points;
    }

    /** The standard normal variate for {@code u}: the truncated normal's quantile, interpolated. */
    double z(double u) {
      double position = u * (POINTS - 1);
      // Keeps a u outside [0, 1) inside the table; the result is then extrapolated and bounded below.
      int index = Math.max(0, Math.min(POINTS - 2, (int) position));
      double z = quantiles[index] + (position - index) * (quantiles[index + 1] - quantiles[index]);
      // Comparisons rather than Math.min/max on doubles, which also handle -0.0 and cost several times more.
      return z < -truncation ? -truncation : z > truncation ? truncation : z;
    }

    @Override
    public long apply(long delayNanos, long capNanos, double u) {
      double centre = centre(delayNanos, capNanos, centreLimit);
      double value = centre * (1 + deviation * z(u));
      return Math.min(capNanos, Nanos.fromDouble(value));
    }

    double deviation() {
      return deviation;
    }

    @Override
    public String toString() {
      return "gaussian(" + deviation + ")";
    }
  }

  /** Standard normal distribution function, by the complementary error function (Numerical Recipes' erfc). */
  static double normalCdf(double x) {
    return 0.5 * erfc(-x / Math.sqrt(2));
  }

  private static double erfc(double x) {
    double z = Math.abs(x);
    double t = 1 / (1 + 0.5 * z);
    double r =
        t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
            + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
            + t * (-0.82215223 + t * 0.17087277)))))))));
    return x >= 0 ? r : 2 - r;
  }

  // Coefficients of P. J. Acklam's rational approximation of the inverse normal distribution (relative error
  // below 1.15e-9 over the whole range). Constants rather than arrays, so the JIT folds them (no loads).
  private static final double A0 = -3.969683028665376e+01;
  private static final double A1 = 2.209460984245205e+02;
  private static final double A2 = -2.759285104469687e+02;
  private static final double A3 = 1.383577518672690e+02;
  private static final double A4 = -3.066479806614716e+01;
  private static final double A5 = 2.506628277459239e+00;
  private static final double B0 = -5.447609879822406e+01;
  private static final double B1 = 1.615858368580409e+02;
  private static final double B2 = -1.556989798598866e+02;
  private static final double B3 = 6.680131188771972e+01;
  private static final double B4 = -1.328068155288572e+01;
  private static final double C0 = -7.784894002430293e-03;
  private static final double C1 = -3.223964580411365e-01;
  private static final double C2 = -2.400758277161838e+00;
  private static final double C3 = -2.549732539343734e+00;
  private static final double C4 = 4.374664141464968e+00;
  private static final double C5 = 2.938163982698783e+00;
  private static final double D0 = 7.784695709041462e-03;
  private static final double D1 = 3.224671290700398e-01;
  private static final double D2 = 2.445134137142996e+00;
  private static final double D3 = 3.754408661907416e+00;
  private static final double P_LOW = 0.02425;

  /** The standard normal quantile of {@code p} in (0, 1). */
  static double inverseNormalCdf(double p) {
    if (p < P_LOW) {
      return tail(p);
    }
    if (p > 1 - P_LOW) {
      return -tail(1 - p);
    }
    double q = p - 0.5;
    double r = q * q;
    return (((((A0 * r + A1) * r + A2) * r + A3) * r + A4) * r + A5) * q
        / (((((B0 * r + B1) * r + B2) * r + B3) * r + B4) * r + 1);
  }

  /** The lower tail's quantile, for {@code p} below {@link #P_LOW}. */
  private static double tail(double p) {
    double q = Math.sqrt(-2 * Math.log(p));
    return (((((C0 * q + C1) * q + C2) * q + C3) * q + C4) * q + C5)
        / ((((D0 * q + D1) * q + D2) * q + D3) * q + 1);
  }
}
