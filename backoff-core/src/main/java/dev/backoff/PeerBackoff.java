package dev.backoff;

import java.util.random.RandomGenerator;

/**
 * Exponential backoffs that reproduce peers' documented jitter placement, for {@link Preset}s. They break
 * our cap rule on purpose, in the ways the peers do, so that users can compare like for like.
 */
final class PeerBackoff implements Backoff {
  enum Placement {
    /** Cap the interval, then randomize ±factor: delays reach {@code cap·(1 + factor)} (google-http-client, Failsafe). */
    JITTER_AFTER_CAP,
    /** Randomize ±factor, then clamp to the cap: clients pile up at exactly the cap (Resilience4j). */
    CLAMP_AFTER_RANDOM,
    /** Multiply by {@code U[1, multiplier)}, then clamp to the cap (Spring Retry's random exponential). */
    RANDOM_MULTIPLIER_THEN_CLAMP
  }

  private final Strategies.Exponential schedule;
  private final double factor;
  private final Placement placement;

  PeerBackoff(long initialNanos, double multiplier, long capNanos, double factor, Placement placement) {
    this.schedule = new Strategies.Exponential(initialNanos, multiplier, capNanos, Jitter.none());
    this.factor = factor;
    this.placement = placement;
  }

  @Override
  public long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random) {
    return delay(retry, random.nextDouble());
  }

  long delay(int retry, double u) {
    long capped = schedule.scheduledDelay(retry);
    return switch (placement) {
      case JITTER_AFTER_CAP -> Nanos.fromDouble(capped * (1 + factor * (2 * u - 1)));
      case CLAMP_AFTER_RANDOM -> {
        double uncapped = schedule.initialNanos * Math.pow(schedule.multiplier, Math.max(retry, 1) - 1.0);
        yield Math.min(schedule.capNanos, Nanos.fromDouble(uncapped * (1 + factor * (2 * u - 1))));
      }
      case RANDOM_MULTIPLIER_THEN_CLAMP ->
          Math.min(schedule.capNanos, Nanos.fromDouble(capped * (1 + u * (schedule.multiplier - 1))));
    };
  }

  @Override
  public boolean isHistoryIndependent() {
    return true;
  }

  @Override
  public long maxDelayNanos() {
    return placement == Placement.JITTER_AFTER_CAP
        ? Nanos.fromDouble(schedule.capNanos * (1 + factor))
        : schedule.capNanos;
  }

  @Override
  public String toString() {
    return schedule + " with " + placement.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
        + (placement == Placement.RANDOM_MULTIPLIER_THEN_CLAMP ? "" : " ±" + factor);
  }
}
