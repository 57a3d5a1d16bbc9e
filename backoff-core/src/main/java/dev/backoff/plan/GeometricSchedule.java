package dev.backoff.plan;

import java.time.Duration;

/**
 * Closed forms of a geometric (exponential) backoff schedule: first sleep {@code a},
 * multiplier {@code r}, optional cap. Immutable and thread-safe; all times are in seconds, as doubles.
 *
 * <h2>Indexing (the textbook's, and the core's)</h2>
 * Retry {@code n} (1-based; the first retry is the second attempt) sleeps {@code t_n = min(cap, a·r^(n−1))}
 * before it, and happens at elapsed time {@code T_n = t_1 + … + t_n}, the sum of the sleeps up to and
 * including its own ({@code T_0 = 0}: the first attempt). Attempt durations are ignored: elapsed time is
 * time spent sleeping. With {@code a = 1 s, r = 1.1} this reproduces the classic worked table: retry 48 sleeps
 * {@code 1.1^47 = 88.197 s} at {@code T_48 = (1.1^48 − 1)/0.1 = 960.172 s}.
 *
 * <h2>Closed forms</h2>
 * Before the cap, {@code T_n = a(r^n − 1)/(r − 1)} ({@code n·a} when {@code r = 1}, the linear limit),
 * {@code t_(n+1) = a + (r − 1)·T_n} and {@code n = log_r(1 + (r − 1)·T_n/a)}. From the first capped retry
 * {@code m} on, every sleep is the cap and {@code T_n = T_(m−1) + (n − m + 1)·cap}: elapsed time grows
 * linearly.
 *
 * <p>Results beyond the range of a double raise {@link UnsolvableException}; no method returns NaN or
 * infinity. Intermediate values that would overflow (a multiplier of 1e308) are computed in logarithms, so
 * an answer that fits a double is given even when {@code r^n} or {@code (r − 1)·T} does not.
 */
public final class GeometricSchedule {
  /** Relative tolerance under which an elapsed time counts as reaching a retry (rounding of the inputs). */
  private static final double TOLERANCE = 1e-9;
  /**
   * The largest count given as exact, exclusive: below it a thousandth of {@code a} (the slack that decides
   * whether a retry is reached) is more than 8 roundings of a double (1.1e-16 · T each) can move T_n.
   */
  private static final long MAX_EXACT_COUNT = 1L << 40;

  private final double initial;
  private final double multiplier;
  private final double cap; // +infinity when uncapped (internal only)
  private final long firstCappedRetry; // Long.MAX_VALUE when the cap is never reached

  private GeometricSchedule(double initial, double multiplier, double cap) {
    this.initial = initial;
    this.multiplier = multiplier;
    this.cap = cap;
    this.firstCappedRetry = firstCappedRetry(initial, multiplier, cap);
  }

  /**
   * An uncapped schedule {@code a·r^(n−1)}.
   *
   * @throws IllegalArgumentException if {@code initial} is not positive or {@code multiplier} is below 1,
   *     NaN or infinite
   */
  public static GeometricSchedule of(Duration initial, double multiplier) {
    return new GeometricSchedule(Checks.positiveSeconds("initial", initial),
        Checks.multiplier("multiplier", multiplier), Double.POSITIVE_INFINITY);
  }

  /**
   * A capped schedule {@code min(cap, a·r^(n−1))}.
   *
   * @throws IllegalArgumentException if a duration is not positive, {@code cap < initial}, or
   *     {@code multiplier} is below 1, NaN or infinite
   */
  public static GeometricSchedule of(Duration initial, double multiplier, Duration cap) {
    double first = Checks.positiveSeconds("initial", initial);
    double top = Checks.positiveSeconds("cap", cap);
    if (top < first) {
      throw new IllegalArgumentException("cap must be at least the initial delay " + initial + ", was " + cap);
    }
    return new GeometricSchedule(first, Checks.multiplier("multiplier", multiplier), top);
  }

  private static long firstCappedRetry(double a, double r, double cap) {
    if (Double.isInfinite(cap)) {
      return Long.MAX_VALUE;
    }
    if (a >= cap) {
      return 1;
    }
    if (r == 1) {
      return Long.MAX_VALUE;
    }
    // k = n − 1 is the smallest exponent with a·r^k >= cap; the logarithm guesses, the loops make it exact.
    long k = Math.max(0, (long) Math.ceil(Math.log(cap / a) / Math.log(r)));
    while (a * Math.pow(r, k) < cap) {
      k++;
    }
    while (k > 0 && a * Math.pow(r, k - 1) >= cap) {
      k--;
    }
    return k + 1;
  }

  /** The first sleep {@code a}, in seconds. */
  public double initialSeconds() {
    return initial;
  }

  /** The multiplier {@code r}. */
  public double multiplier() {
    return multiplier;
  }

  /** Whether the schedule has a cap. */
  public boolean isCapped() {
    return !Double.isInfinite(cap);
  }

  /** The first retry whose sleep is the cap, or {@link Long#MAX_VALUE} if the cap is never reached. */
  public long firstCappedRetry() {
    return firstCappedRetry;
  }

  /**
   * The sleep {@code t_n} before retry {@code n}, in seconds.
   *
   * @throws IllegalArgumentException if {@code retry < 1}
   * @throws UnsolvableException if the sleep is beyond the range of a double
   */
  public double delaySeconds(long retry) {
    checkRetry(retry, 1);
    if (retry >= firstCappedRetry) {
      return cap;
    }
    return Checks.finite(initial * Math.pow(multiplier, retry - 1), "the sleep before retry " + retry);
  }

  /**
   * The elapsed time {@code T_n} at retry {@code n} (the sum of the sleeps before retries 1 to n), in
   * seconds; {@code T_0 = 0}.
   *
   * @throws IllegalArgumentException if {@code retry < 0}
   * @throws UnsolvableException if the time is beyond the range of a double
   */
  public double elapsedSeconds(long retry) {
    checkRetry(retry, 0);
    double value;
    if (retry < firstCappedRetry) {
      value = uncappedElapsed(retry);
    } else {
      value = uncappedElapsed(firstCappedRetry - 1) + (double) (retry - firstCappedRetry + 1) * cap;
    }
    return Checks.finite(value, "the elapsed time at retry " + retry);
  }

  private double uncappedElapsed(long retry) {
    if (multiplier == 1) {
      return initial * retry;
    }
    // expm1/log1p keep precision for multipliers barely above 1, where r^n − 1 would cancel.
    double rMinusOne = multiplier - 1;
    double exponent = retry * Math.log1p(rMinusOne);
    // pow is exact to an ulp where expm1(n·log r) is not (log 1e308 = 709 carries 1e-13 of error); near 1,
    // expm1 and log1p avoid the cancellation of r^n − 1.
    double value = multiplier >= 2 ? initial * ((Math.pow(multiplier, retry) - 1) / rMinusOne)
        : initial * Math.expm1(exponent) / rMinusOne;
    if (Double.isInfinite(value) && exponent > 0) {
      // r^n − 1 overflowed before the division by r − 1 brought it back (r = 1e308, n = 2 gives 1 + 1e308):
      // the same quotient in logarithms, log a + n·log r + log(1 − r^−n) − log(r − 1).
      double log = Math.log(initial) + exponent + Math.log1p(-Math.exp(-exponent)) - Math.log(rMinusOne);
      value = Math.exp(log);
    }
    return value;
  }

  /**
   * The closed form {@code t(T) = a + (r − 1)·T}: the sleep after a retry made at elapsed time {@code T}, limited
   * to the cap. Exact ({@code = t_(n+1)}) when {@code T} is some {@code T_n}; in between it interpolates.
   *
   * @throws IllegalArgumentException if {@code elapsedSeconds} is negative, NaN or infinite
   * @throws UnsolvableException if the result is beyond the range of a double
   */
  public double nextDelaySeconds(double elapsedSeconds) {
    checkElapsed(elapsedSeconds);
    double next = initial + (multiplier - 1) * elapsedSeconds;
    return Checks.finite(Math.min(cap, next), "the sleep after " + elapsedSeconds + " s");
  }

  /**
   * The closed form {@code n = log_r(1 + (r − 1)·T/a)} (T/a when r = 1): the retry number, as a real number, at
   * which the elapsed time is {@code T}; after the cap, linear in T. An integer exactly at the retries.
   *
   * @throws IllegalArgumentException if {@code elapsedSeconds} is negative, NaN or infinite
   */
  public double retryAt(double elapsedSeconds) {
    checkElapsed(elapsedSeconds);
    if (firstCappedRetry != Long.MAX_VALUE) {
      double capStart = uncappedElapsed(firstCappedRetry - 1);
      if (elapsedSeconds >= capStart) {
        return (firstCappedRetry - 1) + (elapsedSeconds - capStart) / cap;
      }
    }
    if (multiplier == 1) {
      return elapsedSeconds / initial;
    }
    double rMinusOne = multiplier - 1;
    double ratio = elapsedSeconds / initial;
    double growth = rMinusOne * ratio;
    // (r − 1)·T/a overflows for huge multipliers (1e308 · 100): then log1p(x) = log x to within 1/x, and
    // log x = log(r − 1) + log(T/a) is finite.
    double logGrowth = Double.isInfinite(growth) ? Math.log(rMinusOne) + Math.log(ratio) : Math.log1p(growth);
    return logGrowth / Math.log1p(rMinusOne);
  }

  /**
   * The number of retries made by elapsed time {@code T}: the largest {@code n} with {@code T_n <= T}
   * (a retry within a relative 1e-9 of {@code T}, and within a thousandth of {@code a}, counts, so that
   * floating-point rounding of {@code T_n} never loses retry n: 1023 s finds retry 10 of {@code a = 1 s,
   * r = 2}). Always exact in that sense: a count of 2^40 or more is refused rather than approximated, since
   * from there the rounding of {@code a} and {@code T} to doubles (a relative 1e-16 each) can outweigh that
   * thousandth of {@code a} and change the count by one.
   *
   * @throws IllegalArgumentException if {@code elapsedSeconds} is negative, NaN or infinite
   * @throws UnsolvableException if the count is 2^40 or more (the message gives its approximate value)
   */
  public long retriesBy(double elapsedSeconds) {
    checkElapsed(elapsedSeconds);
    double guess = Math.floor(retryAt(elapsedSeconds));
    if (!(guess < MAX_EXACT_COUNT - 16)) {
      throw new UnsolvableException("about " + String.format(java.util.Locale.ROOT, "%.4g", guess)
          + " retries happen by " + elapsedSeconds + tooManyToCount());
    }
    long n = Math.max(0, (long) guess);
    // The logarithm is off by at most a step or two from rounding.
    for (int step = 0; step < 8 && reaches(n + 1, elapsedSeconds); step++) {
      n++;
    }
    for (int step = 0; step < 8 && n > 0 && !reaches(n, elapsedSeconds); step++) {
      n--;
    }
    if (n >= MAX_EXACT_COUNT) {
      throw new UnsolvableException("about " + n + " retries happen by " + elapsedSeconds + tooManyToCount());
    }
    return n;
  }

  private static String tooManyToCount() {
    return " s: from 2^40 on, the rounding of the inputs to doubles can outweigh the thousandth of a sleep that"
        + " decides whether a retry is reached, so there is no exact count";
  }

  private boolean reaches(long retry, double elapsedSeconds) {
    double at;
    if (retry < firstCappedRetry) {
      at = uncappedElapsed(retry);
    } else {
      at = uncappedElapsed(firstCappedRetry - 1) + (double) (retry - firstCappedRetry + 1) * cap;
    }
    // Never more than a thousandth of a sleep (every sleep is at least a), so the slack cannot add a retry.
    return at <= elapsedSeconds + Math.min(TOLERANCE * Math.max(elapsedSeconds, initial), initial / 1000);
  }

  private static void checkRetry(long retry, long minimum) {
    if (retry < minimum) {
      throw new IllegalArgumentException("retry must be at least " + minimum + ", was " + retry);
    }
  }

  private static void checkElapsed(double elapsedSeconds) {
    if (!(elapsedSeconds >= 0) || Double.isInfinite(elapsedSeconds)) {
      throw new IllegalArgumentException("elapsed time must be a finite number of seconds >= 0, was "
          + elapsedSeconds);
    }
  }

  @Override
  public String toString() {
    return "geometric(a " + initial + " s, r " + multiplier + (isCapped() ? ", cap " + cap + " s" : "") + ")";
  }
}
