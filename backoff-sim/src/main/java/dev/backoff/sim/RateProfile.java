package dev.backoff.sim;

/** The open-loop client's arrival rate over time: constant, a step, a spike, or a ramp. Immutable. */
final class RateProfile {
  enum Shape { CONSTANT, STEP, SPIKE, RAMP }

  final Shape shape;
  final double rate;
  final double peak;
  final long atNanos;
  final long lengthNanos;

  private RateProfile(Shape shape, double rate, double peak, long atNanos, long lengthNanos) {
    this.shape = shape;
    this.rate = rate;
    this.peak = peak;
    this.atNanos = atNanos;
    this.lengthNanos = lengthNanos;
  }

  static RateProfile of(Scenario s) {
    Shape shape = Shape.valueOf(s.choice("rate-profile", "constant", "step", "spike", "ramp").toUpperCase(java.util.Locale.ROOT));
    double rate = s.doubleOf("rate");
    if (rate < 0) {
      throw new ScenarioException("rate", "must not be negative, was " + s.textOf("rate"));
    }
    double peak = s.doubleOf("rate-peak");
    if (peak < 0) {
      throw new ScenarioException("rate-peak", "must not be negative, was " + s.textOf("rate-peak"));
    }
    long at = s.durationOf("rate-at");
    long length = s.durationOf("rate-length");
    if (rate > 10_000_000 || peak > 10_000_000) {
      throw new ScenarioException(rate > peak ? "rate" : "rate-peak",
          "more than 10 million arrivals per second is not practical, was " + Math.max(rate, peak));
    }
    if (shape != Shape.CONSTANT && at >= s.durationNanos) {
      throw new ScenarioException("rate-at", "the " + s.textOf("rate-profile") + " starts at " + s.textOf("rate-at")
          + ", outside the run of " + s.textOf("duration"));
    }
    if ((shape == Shape.SPIKE || shape == Shape.RAMP) && length == 0) {
      throw new ScenarioException("rate-length", "a " + s.textOf("rate-profile") + " needs a positive length, was 0");
    }
    return new RateProfile(shape, rate, peak, at, length);
  }

  boolean hasDisturbance() {
    return shape != Shape.CONSTANT;
  }

  long disturbanceEndNanos() {
    return shape == Shape.STEP ? atNanos : atNanos + lengthNanos;
  }

  /** Arrivals per second at time {@code t}. */
  double rateAt(long t) {
    switch (shape) {
      case CONSTANT:
        return rate;
      case STEP:
        return t >= atNanos ? peak : rate;
      case SPIKE:
        return t >= atNanos && t - atNanos < lengthNanos ? peak : rate;
      case RAMP:
        if (t < atNanos) {
          return rate;
        }
        if (t - atNanos >= lengthNanos) {
          return peak;
        }
        return rate + (peak - rate) * ((double) (t - atNanos) / lengthNanos);
      default:
        throw new AssertionError(shape);
    }
  }

  /** The largest rate at any time (the thinning bound). */
  double maxRate() {
    return shape == Shape.CONSTANT ? rate : Math.max(rate, peak);
  }
}
