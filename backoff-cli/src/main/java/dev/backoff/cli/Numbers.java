package dev.backoff.cli;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** Number formatting shared by the planning commands: never NaN or infinity, no exponent notation. */
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
