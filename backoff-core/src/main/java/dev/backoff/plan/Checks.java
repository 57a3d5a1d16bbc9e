package dev.backoff.plan;

import java.time.Duration;

/** Argument checks and conversions shared by the planner. */
final class Checks {
  private static final double NANOS_PER_SECOND = 1e9;

  private Checks() {}

  /** A positive duration in seconds. */
  static double positiveSeconds(String name, Duration value) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + show(value));
    }
    return value.getSeconds() + value.getNano() / NANOS_PER_SECOND;
  }

  /** A non-negative duration in seconds. */
  static double nonNegativeSeconds(String name, Duration value) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + show(value));
    }
    return value.getSeconds() + value.getNano() / NANOS_PER_SECOND;
  }

  /** A duration for a message as a user writes it ({@code 0s}, not {@code PT0S}). */
  private static String show(Duration value) {
    return value.isNegative() ? value.toString() : dev.backoff.spec.Durations.format(value);
  }

  static double multiplier(String name, double value) {
    if (Double.isNaN(value) || Double.isInfinite(value) || value < 1) {
      throw new IllegalArgumentException(name + " must be a finite number of at least 1, was " + value);
    }
    return value;
  }

  static double seconds(long nanos) {
    return nanos / NANOS_PER_SECOND;
  }

  /** Refuses a non-finite intermediate result with a message naming what overflowed. */
  static double finite(double value, String what) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      throw new UnsolvableException(what + " is beyond the range of a double");
    }
    return value;
  }
}
