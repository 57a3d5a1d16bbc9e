package dev.backoff.sim;

import dev.backoff.spec.Durations;
import java.math.BigDecimal;
import java.util.Locale;

/** Parsing of scenario values and JDK-independent number formatting. */
final class Values {
  private Values() {}

  /**
   * A duration in the one duration syntax ({@link Durations}: {@code 100ms}, {@code 2s}, {@code 1.5m},
   * {@code 1h}, {@code 500us}, {@code 10ns}, ISO-8601); a bare number, from a flag or a file, is refused with
   * the hint {@code write 10s}.
   */
  static long durationNanos(String key, Object value) {
    if ((value instanceof Double || value instanceof Float) && !Double.isFinite(((Number) value).doubleValue())) {
      throw new ScenarioException(key, "not a finite duration: '" + value + "'");
    }
    if (value instanceof Number) {
      // A YAML or JSON number: the same rule as a flag's bare number.
      String text = String.valueOf(value);
      throw new ScenarioException(key, "'" + show(text) + "' has no unit; write " + show(text)
          + "s (or ms, m, h, ...)");
    }
    try {
      return Durations.parseNanos(String.valueOf(value));
    } catch (IllegalArgumentException e) {
      throw new ScenarioException(key, e.getMessage());
    }
  }

  /**
   * A whole number in {@code [min, max]}, parsed exactly whatever its form (a string from a flag, or an
   * Integer, Long, BigInteger or Double from a file), so that nothing wraps: {@code 2^64 + 10} is an error,
   * not 10, and a flag and a file key accept exactly the same values.
   */
  static long wholeNumber(String key, Object value, long min, long max) {
    BigDecimal exact = exactNumber(key, value);
    // Compare before converting: BigDecimal("1e999999999").toBigInteger() would take forever.
    if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new ScenarioException(key, show(value) + " is out of range (" + min + ".." + max + ")");
    }
    if (exact.signum() != 0 && exact.stripTrailingZeros().scale() > 0) {
      throw new ScenarioException(key, "not a whole number: '" + show(value) + "'");
    }
    return exact.longValueExact();
  }

  private static BigDecimal exactNumber(String key, Object value) {
    if (value instanceof BigDecimal decimal) {
      return decimal;
    }
    if (value instanceof java.math.BigInteger integer) {
      return new BigDecimal(integer);
    }
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return BigDecimal.valueOf(((Number) value).longValue());
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new ScenarioException(key, "not a finite number: '" + show(value) + "'");
      }
      return new BigDecimal(d);
    }
    try {
      return new BigDecimal(String.valueOf(value).trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new ScenarioException(key, "not a whole number: '" + show(value) + "'");
    }
  }

  /** A value for a message: as given, shortened if it is huge (a megabyte of digits stays out of the terminal). */
  static String show(Object value) {
    String text = String.valueOf(value);
    return text.length() <= 60 ? text : text.substring(0, 40) + "...(" + text.length() + " characters)";
  }

  static double doubleValue(String key, Object value) {
    double result;
    if (value instanceof Number number) {
      result = number.doubleValue();
    } else {
      try {
        result = Double.parseDouble(String.valueOf(value).trim());
      } catch (NumberFormatException e) {
        throw new ScenarioException(key, "not a number: '" + show(value) + "'");
      }
    }
    if (Double.isNaN(result) || Double.isInfinite(result)) {
      throw new ScenarioException(key, "not a finite number: '" + show(value) + "'");
    }
    return result;
  }

  static boolean booleanValue(String key, Object value) {
    if (value instanceof Boolean flag) {
      return flag;
    }
    String text = String.valueOf(value).trim().toLowerCase(Locale.ROOT);
    if (text.equals("true") || text.equals("yes") || text.equals("on")) {
      return true;
    }
    if (text.equals("false") || text.equals("no") || text.equals("off")) {
      return false;
    }
    throw new ScenarioException(key, "not true or false: '" + value + "'");
  }

  /**
   * {@code value} rounded half away from zero to {@code decimals} places, without Double.toString (whose output
   * changed in JDK 19), so that every JDK prints the same bytes. NaN prints as {@code null}.
   */
  static String format(double value, int decimals) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return "null";
    }
    long scale = 1;
    for (int i = 0; i < decimals; i++) {
      scale *= 10;
    }
    double scaled = Math.abs(value) * scale;
    if (scaled >= 9.0e17) {
      // Beyond a long's exact range: the double's exact value, rounded as below (never clamped to a long).
      return new BigDecimal(value).setScale(decimals, java.math.RoundingMode.HALF_UP).toPlainString();
    }
    long magnitude = Math.round(scaled); // half away from zero, on the magnitude
    boolean negative = value < 0 && magnitude != 0;
    if (decimals == 0) {
      return (negative ? "-" : "") + magnitude;
    }
    StringBuilder digits = new StringBuilder(Long.toString(magnitude % scale));
    while (digits.length() < decimals) {
      digits.insert(0, '0');
    }
    return (negative ? "-" : "") + (magnitude / scale) + "." + digits;
  }

  /** A count and its noun, singular for one: {@code 1 run}, {@code 2 runs}, {@code 0 refinements}. */
  static String count(long n, String singular, String plural) {
    return n + " " + (n == 1 ? singular : plural);
  }

  /** A duration in nanoseconds as a short human string (2s, 150ms, 2m8.6s). */
  static String human(long nanos) {
    if (nanos == 0) {
      return "0s"; // "0µs" would suggest a measured microsecond resolution
    }
    if (nanos < 1_000_000L) {
      return format(nanos / 1000.0, 0) + "µs";
    }
    if (nanos < 1_000_000_000L) {
      return format(nanos / 1e6, 0) + "ms";
    }
    if (nanos % 1_000_000_000L == 0 && nanos < 3_600_000_000_000L) {
      return nanos / 1_000_000_000L + "s";
    }
    if (nanos < 60_000_000_000L) {
      return format(nanos / 1e9, 2) + "s";
    }
    if (nanos < 3_600_000_000_000L) {
      long minutes = nanos / 60_000_000_000L;
      return minutes + "m" + format((nanos - minutes * 60_000_000_000L) / 1e9, 1) + "s";
    }
    if (nanos < 86_400_000_000_000L) {
      return format(nanos / 3.6e12, 1) + "h";
    }
    return format(nanos / 8.64e13, 0) + "d";
  }
}
