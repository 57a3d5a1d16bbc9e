package dev.backoff.cli;

import dev.backoff.spec.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses a flag's duration in the one duration syntax of {@link Durations} ({@code 250ms}, {@code 1.5s},
 * {@code 2m}, {@code 1d}, {@code PT1S}; a bare number is refused with the hint {@code write 10s}), the same
 * as scenario files and policy specs. Stateless.
 */
final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * Parses one duration.
   *
   * @throws TypeConversionException naming the value and what is wrong with it
   */
  static Duration parse(String value) {
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
