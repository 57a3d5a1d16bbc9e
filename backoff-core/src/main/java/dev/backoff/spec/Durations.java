package dev.backoff.spec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of flags, scenario files, policy specs and messages: a decimal number with a unit,
 * {@code 250ms}, {@code 1s}, {@code 1.5s}, {@code 2m}, {@code 1h}, {@code 1d}, {@code 500us} (or
 * {@code 500µs}), {@code 10ns}, several of them with units from the largest down ({@code 1m30s},
 * {@code 1h2m3.5s}, as the simulator's timeline writes times), or ISO-8601 ({@code PT1S}). A bare number is refused (its unit would be a
 * guess: {@code 10} is 10 s to one tool and 10 ms to another), with the hint {@code write 10s}. Arithmetic is
 * exact ({@code 0.1s} is 100,000,000 ns); a value finer than a nanosecond, negative, or too large is refused,
 * never rounded or clamped: {@link #parseNanos} (what the simulator and the retry internals count in) takes
 * at most {@link Long#MAX_VALUE} nanoseconds (about 292 years), {@link #parse} what a {@link Duration} holds.
 *
 * <p>{@link #format(Duration)} writes a duration the way a user writes one ({@code 20s}, {@code 1.5s},
 * {@code 250ms}) and {@code parse(format(d))} is {@code d} for every duration this class accepts.
 *
 * <p>Stateless and thread-safe.
 */
public final class Durations {
  private Durations() {}

  private static final Pattern SIMPLE =
      Pattern.compile("([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))\\s*(ns|us|µs|ms|s|m|min|h|d)?");
  /** One part of a compound duration such as {@code 1m30s}: a number and its (required) unit. */
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|min|s|m|h|d)");
  private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);
  private static final BigDecimal MAX_DURATION_NANOS =
      BigDecimal.valueOf(Long.MAX_VALUE).movePointRight(9).add(BigDecimal.valueOf(999_999_999L));
  private static final long[] UNIT_NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L};
  private static final String[] UNIT_NAMES = {"d", "h", "m"};

  /**
   * Parses one duration.
   *
   * @throws IllegalArgumentException naming the text and what is wrong with it: no unit, not a duration,
   *     negative, finer than a nanosecond, or too large
   * @throws NullPointerException if {@code text} is null
   */
  public static Duration parse(String text) {
    BigDecimal nanos = parseExact(text, MAX_DURATION_NANOS);
    BigDecimal[] secondsAndNanos = nanos.divideAndRemainder(BigDecimal.valueOf(1_000_000_000L));
    return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValueExact());
  }

  /**
   * Parses one duration into nanoseconds.
   *
   * @throws IllegalArgumentException as {@link #parse(String)}
   */
  public static long parseNanos(String text) {
    return parseExact(text, MAX_NANOS).longValueExact();
  }

  private static BigDecimal parseExact(String text, BigDecimal max) {
    if (text == null) {
      throw new NullPointerException("duration must not be null");
    }
    String trimmed = text.trim();
    if (trimmed.regionMatches(true, 0, "P", 0, 1) || trimmed.regionMatches(true, 0, "-P", 0, 2)) {
      Duration iso;
      try {
        iso = Duration.parse(trimmed.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw notADuration(text);
      }
      if (iso.isNegative()) {
        throw new IllegalArgumentException("duration must not be negative, was '" + show(text) + "'");
      }
      BigDecimal seconds = new BigDecimal(BigInteger.valueOf(iso.getSeconds())).add(BigDecimal.valueOf(iso.getNano(), 9));
      return checked(text, seconds.movePointRight(9), max);
    }
    Matcher matcher = SIMPLE.matcher(trimmed.toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      return checked(text, compound(text, trimmed.toLowerCase(Locale.ROOT)), max);
    }
    if (matcher.group(2) == null) {
      throw new IllegalArgumentException("'" + show(text) + "' has no unit; write " + stripSign(matcher.group(1))
          + "s (or ms, m, h, ...)");
    }
    BigDecimal amount = new BigDecimal(matcher.group(1));
    if (amount.signum() < 0) {
      throw new IllegalArgumentException("duration must not be negative, was '" + show(text) + "'");
    }
    return checked(text, nanos(text, amount, unitNanos(matcher.group(2))), max);
  }

  private static long unitNanos(String unit) {
    return switch (unit) {
      case "ns" -> 1L;
      case "us", "µs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m", "min" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      case "d" -> 86_400_000_000_000L;
      default -> throw new AssertionError(unit);
    };
  }

  private static BigDecimal nanos(String text, BigDecimal amount, long unit) {
    // Compare the magnitude before multiplying: 1e999999999s would otherwise build a huge number.
    if (amount.precision() - amount.scale() > 40) {
      throw tooLarge(text);
    }
    return amount.multiply(BigDecimal.valueOf(unit));
  }

  /** {@code 1m30s}: two or more parts, each with a unit, units from the largest down, each at most once. */
  private static BigDecimal compound(String text, String lower) {
    Matcher part = PART.matcher(lower);
    BigDecimal total = BigDecimal.ZERO;
    long previousUnit = Long.MAX_VALUE;
    int at = 0;
    int parts = 0;
    while (at < lower.length()) {
      part.region(at, lower.length());
      if (!part.lookingAt()) {
        throw notADuration(text);
      }
      long unit = unitNanos(part.group(2));
      if (unit >= previousUnit) {
        throw new IllegalArgumentException("'" + show(text) + "' is not a duration: write its units from the "
            + "largest down, each once (e.g. 1h2m3.5s)");
      }
      previousUnit = unit;
      total = total.add(nanos(text, new BigDecimal(part.group(1)), unit));
      at = part.end();
      parts++;
    }
    if (parts < 2) {
      throw notADuration(text);
    }
    return total;
  }

  private static String stripSign(String number) {
    return number.startsWith("+") || number.startsWith("-") ? number.substring(1) : number;
  }

  private static BigDecimal checked(String text, BigDecimal nanos, BigDecimal max) {
    if (nanos.compareTo(max) > 0) {
      throw max == MAX_NANOS ? tooLarge(text)
          : new IllegalArgumentException("duration '" + show(text) + "' is too large (at most "
              + format(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)) + ")");
    }
    if (nanos.signum() != 0 && nanos.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException("duration '" + show(text) + "' is finer than a nanosecond");
    }
    return nanos.stripTrailingZeros().setScale(0);
  }

  private static IllegalArgumentException tooLarge(String text) {
    return new IllegalArgumentException("duration '" + show(text) + "' is too large (at most "
        + format(Long.MAX_VALUE) + ", about 292 years)");
  }

  private static IllegalArgumentException notADuration(String text) {
    return new IllegalArgumentException("'" + show(text)
        + "' is not a duration; write e.g. 250ms, 1s, 1.5s, 2m, 1m30s, 1h, 1d or ISO-8601 like PT1S");
  }

  /** A value for a message: as given, shortened if it is huge. */
  static String show(String text) {
    return text.length() <= 60 ? text : text.substring(0, 40) + "...(" + text.length() + " characters)";
  }

  /**
   * A duration as a user writes it: whole days, hours or minutes when exact ({@code 1d}, {@code 2h},
   * {@code 5m}), else the largest of s, ms, us, ns that keeps the value at least 1, with as many decimals as
   * it needs ({@code 1.5s}, {@code 90.5s}, {@code 250ms}, {@code 1.25ms}, {@code 0s}).
   *
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public static String format(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("duration must not be negative, was " + duration);
    }
    BigDecimal nanos = new BigDecimal(BigInteger.valueOf(duration.getSeconds())).movePointRight(9)
        .add(BigDecimal.valueOf(duration.getNano()));
    return format(nanos);
  }

  /**
   * As {@link #format(Duration)}, for a number of nanoseconds.
   *
   * @throws IllegalArgumentException if {@code nanos} is negative
   */
  public static String format(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("duration must not be negative, was " + nanos + "ns");
    }
    return format(BigDecimal.valueOf(nanos));
  }

  /**
   * A measured duration as a person reads it in a message or log line: {@link #format(long)} of it truncated
   * to the millisecond, or to the microsecond below one millisecond ({@code 38ms}, {@code 1.786s},
   * {@code 352us}), never {@code PT0.038352162S}. Negative values read as {@code 0s}.
   */
  public static String formatTruncated(long nanos) {
    long positive = Math.max(0, nanos);
    long unit = positive >= 1_000_000 ? 1_000_000 : positive >= 1_000 ? 1_000 : 1;
    return format(positive - positive % unit);
  }

  private static String format(BigDecimal nanos) {
    if (nanos.signum() == 0) {
      return "0s";
    }
    for (int i = 0; i < UNIT_NANOS.length; i++) {
      BigDecimal unit = BigDecimal.valueOf(UNIT_NANOS[i]);
      if (nanos.compareTo(unit) >= 0 && nanos.remainder(unit).signum() == 0) {
        return nanos.divide(unit).toPlainString() + UNIT_NAMES[i];
      }
    }
    int shift = nanos.compareTo(BigDecimal.valueOf(1_000_000_000L)) >= 0 ? 9
        : nanos.compareTo(BigDecimal.valueOf(1_000_000L)) >= 0 ? 6
        : nanos.compareTo(BigDecimal.valueOf(1_000L)) >= 0 ? 3 : 0;
    String unit = shift == 9 ? "s" : shift == 6 ? "ms" : shift == 3 ? "us" : "ns";
    return nanos.movePointLeft(shift).stripTrailingZeros().toPlainString() + unit;
  }
}
