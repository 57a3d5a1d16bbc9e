package dev.backoff.plan;

import java.util.OptionalDouble;

/**
 * How many retries two multipliers make by the same elapsed time, exactly and by the large-T estimate
 * {@code n'/n ≈ log r / log r'}. Immutable and thread-safe.
 *
 * @param elapsedSeconds the elapsed time compared at
 * @param multiplier the first multiplier {@code r}
 * @param retries retries made by the elapsed time with {@code r}
 * @param compareMultiplier the other multiplier {@code r'}
 * @param compareRetries retries made by the elapsed time with {@code r'}
 */
public record RetryComparison(double elapsedSeconds, double multiplier, long retries, double compareMultiplier,
    long compareRetries) {

  /** The exact ratio {@code n'/n}; empty when {@code r} makes no retry by then. */
  public OptionalDouble ratio() {
    return retries == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) compareRetries / retries);
  }

  /**
   * The large-T estimate {@code log r / log r'}; empty when {@code r' = 1} (a fixed schedule, for which the
   * estimate has no finite value).
   */
  public OptionalDouble estimatedRatio() {
    return compareMultiplier == 1 ? OptionalDouble.empty()
        : OptionalDouble.of(Math.log(multiplier) / Math.log(compareMultiplier));
  }

  @Override
  public String toString() {
    return "by " + elapsedSeconds + " s: r " + multiplier + " makes " + retries + " retries, r' "
        + compareMultiplier + " makes " + compareRetries;
  }
}
