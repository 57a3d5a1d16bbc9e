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

  /**
   * A number for human text: below 1, ten significant digits; from 1, every whole digit and at most three
   * decimals (ten significant digits would print 99999999999 as 100000000000); from 10^15, ten significant
   * digits in exponent notation.
   */
  static String text(double value) {
    if (Math.abs(value) >= 1e15) {
      return exponent(value, 10);
    }
    if (Math.abs(value) >= 1) {
      return finite(value).setScale(3, RoundingMode.HALF_EVEN).stripTrailingZeros().toPlainString();
    }
    return ratio(value).toPlainString();
  }

  /**
   * Two numbers as {@link #text} writes them, with more significant digits (up to 17, which tell any two
   * doubles apart) when that would show two different numbers as the same text.
   *
   * @return the texts of {@code a} and {@code b}, equal only if the numbers are
   */
  static String[] distinct(double a, double b) {
    String textA = text(a);
    String textB = text(b);
    for (int digits = 10; textA.equals(textB) && a != b && digits <= 17; digits++) {
      textA = significant(a, digits);
      textB = significant(b, digits);
    }
    return new String[] {textA, textB};
  }

  /** At least {@code digits} significant digits (every whole digit below 10^15), trailing zeros dropped. */
  private static String significant(double value, int digits) {
    if (Math.abs(value) >= 1e15) {
      return exponent(value, digits);
    }
    BigDecimal decimal = finite(value);
    int whole = decimal.precision() - decimal.scale();
    return decimal.round(new MathContext(Math.max(digits, whole), RoundingMode.HALF_EVEN)).stripTrailingZeros()
        .toPlainString();
  }

  /** Exponent notation (a person reads 1e308 better than 309 digits), trailing zeros dropped. */
  private static String exponent(double value, int digits) {
    String[] parts = String.format(java.util.Locale.ROOT, "%." + (digits - 1) + "e", finite(value).doubleValue())
        .split("e");
    String mantissa = parts[0].contains(".") ? parts[0].replaceAll("0+$", "").replaceAll("\\.$", "") : parts[0];
    return mantissa + "e" + Integer.parseInt(parts[1]);
  }

  private static BigDecimal finite(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      // The planner never returns these; reaching here is a bug, not a user error.
      throw new IllegalStateException("internal error: non-finite number " + value);
    }
    return new BigDecimal(value);
  }
}
