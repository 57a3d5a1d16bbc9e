package dev.backoff.sim;

/**
 * What a sender at a given rate can get from a server with no queue: {@code slots} requests served at once,
 * each for a mean of {@code meanServiceSeconds}, and a request that finds every slot busy rejected at once
 * (a pool with {@code queue-size: 0}). For requests arriving as a Poisson stream at {@code rate} per second,
 * that is Erlang's loss system: the offered load is {@code a = rate × meanServiceSeconds} erlangs, the share
 * rejected is Erlang B, {@code B(c, a) = (a^c / c!) / Σ_{k=0..c} a^k / k!}, whatever the distribution of the
 * service times (the formula is insensitive to it), rejections come at {@code rate × B} per second and
 * successes at {@code rate × (1 − B)}. A sender whose requests are spaced more evenly than Poisson's (a token
 * bucket that holds its callers back) is rejected less at the same rate; one that sends in bursts, more.
 * docs/storm-protection.md ("A server with no queue") uses it to bound what a rate-based sender can deliver
 * while drawing a given share of plain retries' throttles.
 *
 * <p>A calculation for the docs, kept with the tests that pin its numbers (the library does not use it).
 * Stateless and thread-safe; plain arithmetic only, so results are the same on every JDK.
 */
final class LossSystem {
  private LossSystem() {}

  /**
   * Erlang B: the share of requests rejected, in [0, 1), by the stable recursion
   * {@code B(0) = 1, B(k) = a B(k−1) / (k + a B(k−1))}.
   *
   * @throws IllegalArgumentException if {@code slots} is below 1, or {@code offeredErlangs} is negative or not
   *     finite
   */
  static double blocking(int slots, double offeredErlangs) {
    requireSlots(slots);
    if (!(offeredErlangs >= 0) || Double.isInfinite(offeredErlangs)) {
      throw new IllegalArgumentException("offeredErlangs must be non-negative and finite, was " + offeredErlangs);
    }
    double b = 1;
    for (int k = 1; k <= slots; k++) {
      b = offeredErlangs * b / (k + offeredErlangs * b);
    }
    return b;
  }

  /** Rejections per second of a Poisson sender at {@code rate} per second: {@code rate × B(c, rate × s)}. */
  static double rejections(int slots, double meanServiceSeconds, double rate) {
    return rate * blocking(slots, offered(meanServiceSeconds, rate));
  }

  /** Successes per second of a Poisson sender at {@code rate} per second: {@code rate × (1 − B(c, rate × s))}. */
  static double goodput(int slots, double meanServiceSeconds, double rate) {
    return rate * (1 - blocking(slots, offered(meanServiceSeconds, rate)));
  }

  /**
   * The send rate at which a Poisson sender draws {@code rejectionsPerSecond} rejections a second: the
   * rejections grow strictly with the rate (from 0 at rate 0, without bound), so there is exactly one; found
   * by bisection to the last representable double.
   *
   * @throws IllegalArgumentException if {@code slots} is below 1, {@code meanServiceSeconds} is not positive
   *     and finite, or {@code rejectionsPerSecond} is negative or not finite
   */
  static double rateForRejections(int slots, double meanServiceSeconds, double rejectionsPerSecond) {
    requireSlots(slots);
    requireService(meanServiceSeconds);
    if (!(rejectionsPerSecond >= 0) || Double.isInfinite(rejectionsPerSecond)) {
      throw new IllegalArgumentException(
          "rejectionsPerSecond must be non-negative and finite, was " + rejectionsPerSecond);
    }
    double low = 0;
    // Above any rate's share: B < 1, and rate × B > rate − slots / meanServiceSeconds (the served rate is at
    // most the slots' capacity), so this rate draws more than asked.
    double high = rejectionsPerSecond + slots / meanServiceSeconds + 1;
    while (true) {
      double middle = low + (high - low) / 2;
      if (middle <= low || middle >= high) {
        return rejections(slots, meanServiceSeconds, high) - rejectionsPerSecond
            < rejectionsPerSecond - rejections(slots, meanServiceSeconds, low) ? high : low;
      }
      if (rejections(slots, meanServiceSeconds, middle) < rejectionsPerSecond) {
        low = middle;
      } else {
        high = middle;
      }
    }
  }

  private static double offered(double meanServiceSeconds, double rate) {
    requireService(meanServiceSeconds);
    if (!(rate >= 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("rate must be non-negative and finite, was " + rate);
    }
    return rate * meanServiceSeconds;
  }

  private static void requireSlots(int slots) {
    if (slots < 1) {
      throw new IllegalArgumentException("slots must be at least 1, was " + slots);
    }
  }

  private static void requireService(double meanServiceSeconds) {
    if (!(meanServiceSeconds > 0) || Double.isInfinite(meanServiceSeconds)) {
      throw new IllegalArgumentException(
          "meanServiceSeconds must be positive and finite, was " + meanServiceSeconds);
    }
  }
}
