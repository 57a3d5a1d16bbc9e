package dev.backoff.plan;

import java.time.Duration;

/**
 * Answers four tuning questions about a geometric schedule ({@link GeometricSchedule}: first sleep
 * {@code a}, multiplier {@code r}, retry {@code n} at elapsed time {@code T_n = a(r^n − 1)/(r − 1)}).
 * Stateless and thread-safe. Questions without an answer raise {@link UnsolvableException} saying why; no
 * answer is ever NaN or infinite.
 */
public final class Solver {
  private Solver() {}

  /**
   * The interval question: the multiplier for which a retry made at elapsed time {@code T} is followed by a sleep of
   * {@code t}: exactly {@code r = 1 + (t − a)/T} (from {@code t_(n+1) = a + (r − 1)·T_n}), with the rule-of-thumb
   * shortcut {@code r ≈ 1 + t/T} as the estimate.
   *
   * @throws IllegalArgumentException if a duration is not positive
   * @throws UnsolvableException if {@code interval < initial} (no schedule that never shrinks gets there)
   */
  public static MultiplierSolution multiplierForInterval(Duration initial, Duration elapsed, Duration interval) {
    double a = Checks.positiveSeconds("initial", initial);
    double elapsedTime = Checks.positiveSeconds("elapsed", elapsed);
    double t = Checks.positiveSeconds("interval", interval);
    if (t < a) {
      throw new UnsolvableException("the interval " + interval + " is shorter than the initial delay " + initial
          + ": a multiplier of at least 1 never shrinks the sleeps");
    }
    // r − 1 kept apart (1 + 1e-17 would round to exactly 1), and t − a taken from the durations exactly.
    Duration difference = interval.minus(initial);
    double excess = (difference.getSeconds() + difference.getNano() / 1e9) / elapsedTime;
    return new MultiplierSolution(excess, 1 + t / elapsedTime);
  }

  /**
   * The deadline question: the multiplier {@code r} for which retry {@code N} happens exactly at the deadline {@code D}:
   * the root of {@code a(r^N − 1)/(r − 1) = D}, found by bisection of that increasing function of
   * {@code r − 1} (to the precision of a double). The search is over {@code r − 1}, not {@code r}: a root such
   * as {@code r = 1 + 1.3e-8} for 2·10^9 retries keeps all its digits in {@link MultiplierSolution#excess()},
   * where {@code r} itself would keep only half of them, or none below about {@code 1 + 1e-16}.
   *
   * @throws IllegalArgumentException if a duration is not positive or {@code retries < 1}
   * @throws UnsolvableException if {@code N·a > D} (even a fixed schedule is too slow), or {@code N = 1}
   *     (then the multiplier plays no part)
   */
  public static MultiplierSolution multiplierForDeadline(Duration initial, int retries, Duration deadline) {
    double a = Checks.positiveSeconds("initial", initial);
    double d = Checks.positiveSeconds("deadline", deadline);
    if (retries < 1) {
      throw new IllegalArgumentException("retries must be at least 1, was " + retries);
    }
    double slowest = retries * a; // r = 1, the smallest elapsed time any multiplier allows
    int comparison; // compared exactly, as durations: N·a = D must give r = 1, not a rounding error
    try {
      comparison = initial.multipliedBy(retries).compareTo(deadline);
    } catch (ArithmeticException beyondDuration) {
      comparison = 1;
    }
    if (comparison > 0) {
      throw new UnsolvableException(retries + " retries need at least " + format(slowest) + " s (" + retries
          + " × initial " + initial + ") even with multiplier 1, more than the deadline " + deadline);
    }
    if (retries == 1) {
      throw new UnsolvableException("with 1 retry the elapsed time is the initial delay " + initial
          + " whatever the multiplier; ask for at least 2 retries");
    }
    if (comparison == 0) {
      return new MultiplierSolution(0, Double.NaN);
    }
    double low = 0;
    double high = 1;
    while (elapsed(a, high, retries) < d) {
      low = high;
      high *= 2; // elapsed grows without bound in r − 1, so this ends (at worst by overflowing to +infinity)
    }
    for (int i = 0; i < 2000; i++) {
      double middle = low + (high - low) / 2;
      if (middle <= low || middle >= high) {
        break; // adjacent doubles: as precise as it gets
      }
      if (elapsed(a, middle, retries) < d) {
        low = middle;
      } else {
        high = middle;
      }
    }
    double lowError = Math.abs(elapsed(a, low, retries) - d);
    double highError = Math.abs(elapsed(a, high, retries) - d);
    return new MultiplierSolution(lowError <= highError ? low : high, Double.NaN);
  }

  /** {@code T_n} for {@code r = 1 + excess}; +infinity when it overflows (beyond any deadline). */
  static double elapsed(double a, double excess, int n) {
    return excess == 0 ? n * a : a * Math.expm1(n * Math.log1p(excess)) / excess;
  }

  /**
   * The locate question: at elapsed time {@code T}, the last retry made and the sleeps before and after it.
   *
   * @throws IllegalArgumentException if {@code elapsed} is negative
   * @throws UnsolvableException if a result is beyond the range of a double
   */
  public static Position positionAt(GeometricSchedule schedule, Duration elapsed) {
    double t = Checks.nonNegativeSeconds("elapsed", elapsed);
    long retry = schedule.retriesBy(t);
    double before = retry == 0 ? 0 : schedule.delaySeconds(retry);
    double after = schedule.delaySeconds(retry + 1); // retriesBy stays below 2^40, so no overflow
    return new Position(t, retry, schedule.elapsedSeconds(retry), before, after);
  }

  /**
   * The compare question: retries made by elapsed time {@code T} with multipliers {@code r} and {@code r'} (same
   * first sleep, uncapped), exactly and by the large-T estimate.
   *
   * @throws IllegalArgumentException if a duration is not positive or a multiplier is below 1
   * @throws UnsolvableException if a count is 2^40 or more (too many to count exactly with doubles)
   */
  public static RetryComparison compareRetries(Duration initial, double multiplier, double compareMultiplier,
      Duration elapsed) {
    double t = Checks.positiveSeconds("elapsed", elapsed);
    GeometricSchedule first = GeometricSchedule.of(initial, Checks.multiplier("multiplier", multiplier));
    GeometricSchedule second =
        GeometricSchedule.of(initial, Checks.multiplier("compare multiplier", compareMultiplier));
    return new RetryComparison(t, multiplier, first.retriesBy(t), compareMultiplier, second.retriesBy(t));
  }

  private static String format(double seconds) {
    return java.math.BigDecimal.valueOf(seconds).stripTrailingZeros().toPlainString();
  }
}
