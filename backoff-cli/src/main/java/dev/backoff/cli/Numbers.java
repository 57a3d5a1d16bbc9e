package dev.backoff.cli;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Number formatting shared by the planning commands: never NaN or infinity; exponent notation only in human
 * text, for magnitudes of 10^15 and more.
 */
final class Numbers {
  private Numbers() {}

  /** Seconds to the nanosecond, trailing zeros dropped, for CSV and JSON. */
  static BigDecimal seconds(double seconds) {
    return finite(seconds).setScale(9, RoundingMode.HALF_EVEN).stripTrailingZeros();
  }

  /** Seconds with three decimals, for tables. */
  static String table(double seconds) {
    return finite(seconds).setScale(3, RoundingMode.HALF_EVEN).toPlainString();
  }

  /** A ratio or multiplier with ten significant digits. */
  static BigDecimal ratio(double value) {
    return finite(value).round(new MathContext(10, RoundingMode.HALF_EVEN)).stripTrailingZeros();
  }

  /** A number for human text: ten significant digits, at most three decimals for large values. */
  static String text(double value) {
    if (Math.abs(value) >= 1e15) {
      // A person reads 1e308 better than 309 digits; ten significant digits, trailing zeros dropped.
      String[] parts = String.format(java.util.Locale.ROOT, "%.9e", finite(value).doubleValue()).split("e");
      String mantissa = parts[0].contains(".") ? parts[0].replaceAll("0+$", "").replaceAll("\\.$", "") : parts[0];
      return mantissa + "e" + Integer.parseInt(parts[1]);
    }
    BigDecimal decimal = ratio(value);
    if (decimal.scale() > 3 && Math.abs(value) >= 1) {
      decimal = decimal.setScale(3, RoundingMode.HALF_EVEN).stripTrailingZeros();
    }
    return decimal.toPlainString();
  }

  private static BigDecimal finite(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      // The planner never returns these; reaching here is a bug, not a user error.
      throw new IllegalStateException("internal error: non-finite number " + value);
    }
    return new BigDecimal(value);
  }
}
