package dev.backoff.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations as {@code 250ms}, {@code 1s}, {@code 1.5s}, {@code 2m}, {@code 1h}, {@code 1d},
 * {@code 500us}, {@code 10ns}, or ISO-8601 ({@code PT1S}). A bare number is refused: its unit would be a
 * guess.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|s|m|min|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * Parses one duration.
   *
   * @throws TypeConversionException naming the value and the accepted forms
   */
  public static Duration parse(String value) {
    String text = value.trim();
    if (text.regionMatches(true, 0, "P", 0, 1)) {
      try {
        return Duration.parse(text.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw invalid(value);
      }
    }
    Matcher matcher = SIMPLE.matcher(text.toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw invalid(value);
    }
    BigDecimal amount = new BigDecimal(matcher.group(1));
    long nanosPerUnit;
    switch (matcher.group(2)) {
      case "ns": nanosPerUnit = 1L; break;
      case "us": case "µs": nanosPerUnit = 1_000L; break;
      case "ms": nanosPerUnit = 1_000_000L; break;
      case "s": nanosPerUnit = 1_000_000_000L; break;
      case "m": case "min": nanosPerUnit = 60_000_000_000L; break;
      case "h": nanosPerUnit = 3_600_000_000_000L; break;
      case "d": nanosPerUnit = 86_400_000_000_000L; break;
      default: throw invalid(value);
    }
    BigDecimal nanos = amount.multiply(BigDecimal.valueOf(nanosPerUnit));
    BigDecimal[] secondsAndNanos = nanos.divideAndRemainder(BigDecimal.valueOf(1_000_000_000L));
    try {
      return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValue());
    } catch (ArithmeticException e) {
      throw new TypeConversionException("duration '" + value + "' is too large");
    }
  }

  private static TypeConversionException invalid(String value) {
    return new TypeConversionException("'" + value
        + "' is not a duration; use e.g. 250ms, 1s, 1.5s, 2m, 1h or ISO-8601 like PT1S");
  }
}
