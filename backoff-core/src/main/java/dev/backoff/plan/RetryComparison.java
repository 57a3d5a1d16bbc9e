package dev.backoff.plan;

import java.util.OptionalDouble;

/**
 * How many retries two multipliers make by the same elapsed time, exactly and by the large-T estimate
 * {@code n'/n ≈ log r / log r'}. Immutable and thread-safe.
 */
public final class RetryComparison {
  private final double elapsedSeconds;
  private final double multiplier;
  private final long retries;
  private final double compareMultiplier;
  private final long compareRetries;

  RetryComparison(double elapsedSeconds, double multiplier, long retries, double compareMultiplier,
      long compareRetries) {
    this.elapsedSeconds = elapsedSeconds;
    this.multiplier = multiplier;
    this.retries = retries;
    this.compareMultiplier = compareMultiplier;
    this.compareRetries = compareRetries;
  }

  /** The elapsed time compared at. */
  public double elapsedSeconds() {
    return elapsedSeconds;
  }

  /** The first multiplier {@code r}. */
  public double multiplier() {
    return multiplier;
  }

  /** Retries made by the elapsed time with {@code r}. */
  public long retries() {
    return retries;
  }

  /** The other multiplier {@code r'}. */
  public double compareMultiplier() {
    return compareMultiplier;
  }

  /** Retries made by the elapsed time with {@code r'}. */
  public long compareRetries() {
    return compareRetries;
  }

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
