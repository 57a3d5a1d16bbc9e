package dev.backoff;

import java.time.Duration;
import java.util.random.RandomGenerator;

/** The built-in strategies behind {@link Backoff}'s factories. All immutable and allocation-free. */
final class Strategies {
  private Strategies() {}

  static long checkCap(long initialNanos, Duration cap) {
    return checkCap("initial", initialNanos, cap);
  }

  static long checkCap(String initialName, long initialNanos, Duration cap) {
    long capNanos = Nanos.positive("cap", cap);
    if (capNanos < initialNanos) {
      throw new IllegalArgumentException("cap must be at least " + initialName + " ("
          + Duration.ofNanos(initialNanos) + "), was " + cap);
    }
    return capNanos;
  }

  static double checkMultiplier(double multiplier) {
    Nanos.finite("multiplier", multiplier);
    if (multiplier < 1) {
      throw new IllegalArgumentException("multiplier must be at least 1, was " + multiplier);
    }
    return multiplier;
  }

  private static long jitter(Jitter jitter, long delay, long cap, RandomGenerator random) {
    return jitter.isRandom() ? jitter.apply(delay, cap, random.nextDouble()) : delay;
  }

  static final class Fixed implements Backoff {
    static final Fixed ZERO = new Fixed(0, Jitter.none());
    final long delayNanos;
    final Jitter jitter;

    Fixed(long delayNanos, Jitter jitter) {
      this.delayNanos = delayNanos;
      this.jitter = jitter;
    }

    @Override
    public long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random) {
      return jitter(jitter, delayNanos, Long.MAX_VALUE, random);
    }

    @Override
    public boolean isHistoryIndependent() {
      return true;
    }

    @Override
    public long maxDelayNanos() {
      return jitter.isRandom() ? Long.MAX_VALUE : delayNanos;
    }

    @Override
    public boolean isRandom() {
      return jitter.isRandom();
    }

    @Override
    public String toString() {
      return "fixed(" + Nanos.format(delayNanos) + ", jitter " + jitter + ")";
    }
  }

  static final class Linear implements Backoff {
    final long initialNanos;
    final long incrementNanos;
    final long capNanos;
    final Jitter jitter;

    Linear(long initialNanos, long incrementNanos, long capNanos, Jitter jitter) {
      this.initialNanos = initialNanos;
      this.incrementNanos = incrementNanos;
      this.capNanos = capNanos;
      this.jitter = jitter;
    }

    @Override
    public long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random) {
      long steps = Math.max(0, retry - 1L);
      long delay;
      if (incrementNanos != 0 && steps > (capNanos - initialNanos) / incrementNanos) {
        delay = capNanos;
      } else {
        delay = Math.min(capNanos, initialNanos + incrementNanos * steps);
      }
      return jitter(jitter, delay, capNanos, random);
    }

    @Override
    public boolean isHistoryIndependent() {
      return true;
    }

    @Override
    public long maxDelayNanos() {
      return capNanos;
    }

    @Override
    public boolean isRandom() {
      return jitter.isRandom();
    }

    @Override
    public String toString() {
      return "linear(" + Nanos.format(initialNanos) + " + " + Nanos.format(incrementNanos) + "·(n−1), cap "
          + Nanos.format(capNanos) + ", jitter " + jitter + ")";
    }
  }

  static final class Exponential implements Backoff {
    /** Precomputed delays for the first retries, so the hot path needs no {@link Math#pow}. */
    private static final int TABLE_LIMIT = 1024;

    final long initialNanos;
    final double multiplier;
    final long capNanos;
    final Jitter jitter;
    private final long[] table; // table[n - 1] = min(cap, initial·multiplier^(n−1)); the last entry is the cap

    Exponential(long initialNanos, double multiplier, long capNanos, Jitter jitter) {
      this.initialNanos = initialNanos;
      this.multiplier = multiplier;
      this.capNanos = capNanos;
      this.jitter = jitter;
      this.table = buildTable();
    }

    private long[] buildTable() {
      long[] values = new long[TABLE_LIMIT];
      int size = 0;
      while (size < TABLE_LIMIT) {
        long value = uncachedDelay(size + 1);
        values[size++] = value;
        if (value >= capNanos) {
          break;
        }
      }
      return java.util.Arrays.copyOf(values, size);
    }

    private long uncachedDelay(long retry) {
      double value = initialNanos * Math.pow(multiplier, retry - 1);
      return value >= capNanos ? capNanos : Nanos.fromDouble(value);
    }

    /** The schedule's deterministic delay before retry {@code retry}, capped. */
    long scheduledDelay(int retry) {
      int index = Math.max(retry, 1) - 1;
      long[] values = table;
      if (index < values.length) {
        return values[index];
      }
      // Past the table either the cap was reached (the last entry) or the multiplier is barely above 1.
      long last = values[values.length - 1];
      return last >= capNanos ? capNanos : uncachedDelay(retry);
    }

    @Override
    public long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random) {
      return jitter(jitter, scheduledDelay(retry), capNanos, random);
    }

    @Override
    public boolean isHistoryIndependent() {
      return true;
    }

    @Override
    public long maxDelayNanos() {
      return capNanos;
    }

    @Override
    public boolean isRandom() {
      return jitter.isRandom();
    }

    @Override
    public String toString() {
      return "exponential(" + Nanos.format(initialNanos) + " × " + multiplier + "^(n−1), cap "
          + Nanos.format(capNanos) + ", jitter " + jitter + ")";
    }
  }

  static final class Decorrelated implements Backoff {
    final long baseNanos;
    final long capNanos;

    Decorrelated(long baseNanos, long capNanos) {
      this.baseNanos = baseNanos;
      this.capNanos = capNanos;
    }

    @Override
    public long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random) {
      return delay(Math.max(previousDelayNanos, baseNanos), random.nextDouble());
    }

    /** U(base, min(cap, 3·previous)) as a pure function of u. */
    long delay(long previousNanos, double u) {
      double tripled = 3.0 * previousNanos;
      double top = tripled < capNanos ? tripled : capNanos; // comparisons: Math.min on doubles costs more
      double low = baseNanos < top ? baseNanos : top;
      return Math.min(capNanos, Nanos.fromDouble(low + (top - low) * u));
    }

    @Override
    public long maxDelayNanos() {
      return capNanos;
    }

    @Override
    public String toString() {
      return "decorrelated(base " + Nanos.format(baseNanos) + ", cap " + Nanos.format(capNanos) + ")";
    }
  }

  static final class DecorrelatedV2 implements Backoff {
    private static final double SCALE = 1 / 1.4; // Polly's RpScalingFactor
    final long medianNanos;
    final long capNanos;
    private final double scaledMedian;

    DecorrelatedV2(long medianNanos, long capNanos) {
      this.medianNanos = medianNanos;
      this.capNanos = capNanos;
      this.scaledMedian = SCALE * medianNanos;
    }

    /**
     * {@code 2^t · tanh(√(4t))}, with tanh written as {@code (1 − e^(−2x)) / (1 + e^(−2x))} and both powers
     * taken by {@link #exp2}: {@link Math#pow} and {@link Math#tanh} cost several times as much, and this
     * stays within a few ulps of them (a property test holds it to 1e-14 relative).
     */
    static double formula(double t) {
      double e = exp2(-4 * Math.sqrt(t) * LOG2_E); // e^(−2x) with x = √(4t) = 2√t
      return exp2(t) * ((1 - e) / (1 + e));
    }

    private static final double LOG2_E = 1 / Math.log(2);
    private static final double LN2_BY_256 = Math.log(2) / 256;
    /** {@code 2^(j/256)} for j in [0, 256): 2 KiB. */
    private static final double[] TWO_TO_J_BY_256 = new double[256];

    static {
      for (int j = 0; j < 256; j++) {
        TWO_TO_J_BY_256[j] = StrictMath.pow(2, j / 256.0);
      }
    }

    /**
     * {@code 2^y} to within a few ulps: {@code y = k/256 + r} with k a whole number and
     * {@code |r| ≤ 1/512}, {@code 2^(k/256)} from a table and an exponent, {@code 2^r = e^(r·ln 2)} from its
     * Taylor series to the fourth power (the first term left out is below 4e-17 relative), summed in two
     * halves so the multiplications overlap. Outside {@code (−1000, 1000)} (no retry number a caller can wait
     * for) it defers to {@link Math#pow}, which also gives infinity from 1024 on.
     */
    static double exp2(double y) {
      if (!(y > -1000 && y < 1000)) {
        return Math.pow(2, y);
      }
      double scaled = y * 256; // exact
      long k = (long) Math.floor(scaled + 0.5);
      double r = (scaled - k) * LN2_BY_256; // scaled − k is exact
      double r2 = r * r;
      double p = (1 + r) + r2 * ((1.0 / 2 + r * (1.0 / 6)) + r2 * (1.0 / 24));
      double twoToHigh = Double.longBitsToDouble((1023 + (k >> 8)) << 52); // k >> 8 floors: exact 2^⌊k/256⌋
      return TWO_TO_J_BY_256[(int) (k & 255)] * p * twoToHigh;
    }

    @Override
    public long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random) {
      return delay(retry, totalDelayNanos, random.nextDouble());
    }

    /** The delay for {@code retry} given the sum of earlier delays, as a pure function of u. */
    long delay(int retry, long totalDelayNanos, double u) {
      double t = (retry - 1.0) + u;
      // (next − prev) · scale · median, where prev · scale · median is the sum of the earlier delays: so the
      // sum is subtracted as it is, and the chain from one delay to the next is a subtraction, not a division.
      double value = formula(t) * scaledMedian - totalDelayNanos;
      if (!(value < capNanos)) { // also catches infinity at huge retry numbers
        return capNanos / 2 + (long) ((capNanos - capNanos / 2) * u);
      }
      return Nanos.fromDouble(value);
    }

    @Override
    public long maxDelayNanos() {
      return capNanos;
    }

    @Override
    public String toString() {
      return "decorrelatedV2(median first " + Nanos.format(medianNanos) + ", cap " + Nanos.format(capNanos)
          + ")";
    }
  }

  static final class GoogleCloud implements Backoff {
    private static final long SECOND = 1_000_000_000L;
    private static final long MILLI = 1_000_000L;
    final long maximumNanos;

    GoogleCloud(long maximumNanos) {
      this.maximumNanos = maximumNanos;
    }

    @Override
    public long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random) {
      return delay(retry, random.nextDouble());
    }

    /** min(2^(n−1) s + random_ms, maximum) with random_ms = floor(1001·u) ms, a whole number in [0, 1000]. */
    long delay(int retry, double u) {
      int exponent = Math.max(retry, 1) - 1;
      long randomMillis = Math.min(1000, (long) (1001 * u));
      long exponential = exponent >= 33 ? Long.MAX_VALUE : (1L << exponent) * SECOND;
      return Math.min(maximumNanos, Nanos.add(exponential, randomMillis * MILLI));
    }

    @Override
    public boolean isHistoryIndependent() {
      return true;
    }

    @Override
    public long maxDelayNanos() {
      return maximumNanos;
    }

    @Override
    public String toString() {
      return "googleCloud(maximum " + Nanos.format(maximumNanos) + ")";
    }
  }
}
