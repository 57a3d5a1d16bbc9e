package dev.backoff.http.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

class RetryAfterProperties {
  static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
  static final DateTimeFormatter RFC_850 =
      DateTimeFormatter.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
  static final DateTimeFormatter ASCTIME =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US).withZone(ZoneOffset.UTC);

  // 1900-01-01 .. 2200-01-01, and now within a century of it.
  @Property
  void everyFormOfADateParsesToTheTimeUntilIt(
      @ForAll @LongRange(min = -2_208_988_800L, max = 7_258_118_400L) long dateSeconds,
      @ForAll @LongRange(min = -3_000_000_000L, max = 1_500_000_000L) long nowOffsetSeconds,
      @ForAll @LongRange(min = 0, max = 999_999_999) long nowNanos) {
    Instant date = Instant.ofEpochSecond(dateSeconds);
    Instant now = Instant.ofEpochSecond(dateSeconds + nowOffsetSeconds, nowNanos);
    Duration expected = date.isAfter(now) ? Duration.between(now, date) : Duration.ZERO;

    assertThat(RetryAfter.parse(IMF_FIXDATE.format(date), now)).hasValue(expected);
    assertThat(RetryAfter.parse(ASCTIME.format(date), now)).hasValue(expected);
  }

  @Property
  void rfc850DatesWithinFiftyYearsParseExactly(
      @ForAll @LongRange(min = 0, max = 4_102_444_800L) long nowSeconds,
      @ForAll @LongRange(min = -1_500_000_000L, max = 1_500_000_000L) long offsetSeconds) {
    Instant now = Instant.ofEpochSecond(nowSeconds);
    Instant date = now.plusSeconds(offsetSeconds); // within about 47 years either way
    Duration expected = date.isAfter(now) ? Duration.between(now, date) : Duration.ZERO;

    assertThat(RetryAfter.parse(RFC_850.format(date), now)).hasValue(expected);
  }

  @Property
  void delaySecondsParseExactly(@ForAll @LongRange(min = 0, max = 9_223_372_036L) long seconds) {
    assertThat(RetryAfter.parse(Long.toString(seconds), Instant.EPOCH)).hasValue(Duration.ofSeconds(seconds));
  }

  @Property
  void anyTextGivesNoHintOrANonNegativeWait(@ForAll @StringLength(max = 40) String value,
      @ForAll @LongRange(min = -10_000_000_000L, max = 10_000_000_000L) long nowSeconds) {
    Optional<Duration> wait = RetryAfter.parse(value, Instant.ofEpochSecond(nowSeconds));
    wait.ifPresent(duration -> assertThat(duration).isGreaterThanOrEqualTo(Duration.ZERO));
  }

  /** Delay-seconds of up to 30 digits, near every boundary (long seconds, long nanoseconds) included. */
  @Provide
  Arbitrary<BigInteger> delaySeconds() {
    Arbitrary<BigInteger> any = Arbitraries.bigIntegers().between(BigInteger.ZERO, BigInteger.TEN.pow(30));
    Arbitrary<BigInteger> nearBoundaries = Arbitraries.of(BigInteger.valueOf(9_223_372_036L),
            BigInteger.valueOf(Long.MAX_VALUE), BigInteger.ZERO)
        .flatMap(edge -> Arbitraries.longs().between(-3, 3).map(d -> edge.add(BigInteger.valueOf(d)).abs()));
    return Arbitraries.oneOf(any, nearBoundaries, Arbitraries.bigIntegers().between(BigInteger.ZERO,
        BigInteger.valueOf(100_000)));
  }

  @Property
  void aLargerDelaySecondsNeverGivesAShorterWait(@ForAll("delaySeconds") BigInteger a,
      @ForAll("delaySeconds") BigInteger b) {
    BigInteger smaller = a.min(b);
    BigInteger larger = a.max(b);
    assertThat(hint(larger.toString())).isGreaterThanOrEqualTo(hint(smaller.toString()));
    assertThat(RetryAfter.parse(larger.toString(), Instant.EPOCH).orElseThrow())
        .isGreaterThanOrEqualTo(RetryAfter.parse(smaller.toString(), Instant.EPOCH).orElseThrow());
  }

  // Dates from now to the year 9999, in the three forms; the engine's hint must grow with the date.
  @Property
  void aLaterDateNeverGivesAShorterWait(
      @ForAll @LongRange(min = 0, max = 253_402_300_799L) long first,
      @ForAll @LongRange(min = 0, max = 253_402_300_799L) long second) {
    Instant earlier = Instant.ofEpochSecond(Math.min(first, second));
    Instant later = Instant.ofEpochSecond(Math.max(first, second));
    assertThat(hint(IMF_FIXDATE.format(later))).isGreaterThanOrEqualTo(hint(IMF_FIXDATE.format(earlier)));
    assertThat(hint(ASCTIME.format(later))).isGreaterThanOrEqualTo(hint(ASCTIME.format(earlier)));
  }

  private static long hint(String value) {
    return RetryAfter.hintNanos(List.of(value), Instant.EPOCH);
  }
}
