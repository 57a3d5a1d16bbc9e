package dev.backoff;

import java.time.Duration;

/** Saturating nanosecond arithmetic and argument checks shared by the core. */
final class Nanos {
  private Nanos() {}

  /** {@code d} in nanoseconds, saturating at {@link Long#MAX_VALUE} (about 292 years). */
  static long of(Duration d) {
    if (d.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L) {
      return Long.MAX_VALUE;
    }
    return d.toNanos();
  }

  static long add(long a, long b) {
    long r = a + b;
    // Overflow only when both operands have the same sign and the result's sign differs.
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /** Converts a non-negative double of nanoseconds to long, saturating; NaN becomes 0. */
  static long fromDouble(double nanos) {
    if (!(nanos > 0)) {
      return 0;
    }
    return nanos >= 0x1p63 ? Long.MAX_VALUE : (long) nanos;
  }

  static long positive(String name, Duration value) {
    requireNonNull(name, value);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return of(value);
  }

  static long nonNegative(String name, Duration value) {
    requireNonNull(name, value);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + value);
    }
    return of(value);
  }

  static void requireNonNull(String name, Object value) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
  }

  /** {@code value}, which must be neither null nor blank ({@code name} names it in the message). */
  static String nonBlank(String name, String value) {
    requireNonNull(name, value);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank, was '" + value + "'");
    }
    return value;
  }

  static double finite(String name, double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be a finite number, was " + value);
    }
    return value;
  }

  /** A duration for a description: the one duration format ({@code 20s}, {@code 1.5s}, {@code 5m}), or "unbounded". */
  static String format(long nanos) {
    return nanos == Long.MAX_VALUE ? "unbounded" : dev.backoff.spec.Durations.format(Math.max(0, nanos));
  }
}
