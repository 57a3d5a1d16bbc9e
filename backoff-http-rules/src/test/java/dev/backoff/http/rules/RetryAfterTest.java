package dev.backoff.http.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Pushback;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {
  static final Instant NOW = Instant.parse("1994-11-06T08:49:30Z");

  static Optional<Duration> parse(String value) {
    return RetryAfter.parse(value, NOW);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0|PT0S", "1|PT1S", "120|PT2M", "007|PT7S", "  30\t|PT30S",
      "9223372036|PT2562047H47M16S"})
  void delaySeconds(String value, String expected) {
    assertThat(parse(value)).hasValue(Duration.parse(expected));
  }

  @Test
  void rfc9110ExampleInAllThreeDateForms() {
    // RFC 9110 §5.6.7's example instant, seven seconds after NOW.
    assertThat(parse("Sun, 06 Nov 1994 08:49:37 GMT")).hasValue(Duration.ofSeconds(7));
    assertThat(parse("Sunday, 06-Nov-94 08:49:37 GMT")).hasValue(Duration.ofSeconds(7));
    assertThat(parse("Sun Nov  6 08:49:37 1994")).hasValue(Duration.ofSeconds(7));
  }

  @Test
  void datesAreMeasuredFromAnInstantWithFractionalSeconds() {
    Instant now = Instant.parse("1994-11-06T08:49:36.250Z");
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now)).hasValue(Duration.ofMillis(750));
  }

  @Test
  void asctimeAcceptsATwoDigitDayOrASpaceAndADigit() {
    assertThat(parse("Thu Nov 10 08:49:30 1994")).hasValue(Duration.ofDays(4));
    assertThat(parse("Sun Nov 06 08:49:37 1994")).hasValue(Duration.ofSeconds(7));
  }

  @ParameterizedTest
  @ValueSource(strings = {"Sun, 06 Nov 1994 08:49:30 GMT", "Sat, 05 Nov 1994 08:49:37 GMT",
      "Thu, 01 Jan 1970 00:00:00 GMT", "Mon, 01 Jan 0001 00:00:00 GMT"})
  void dateNowOrInThePastMeansNoWait(String value) {
    assertThat(parse(value)).hasValue(Duration.ZERO);
  }

  @Test
  void leapSecondIsTheSecondAfterFiftyNine() {
    Instant now = Instant.parse("2016-12-31T23:59:59Z");
    assertThat(RetryAfter.parse("Sat, 31 Dec 2016 23:59:60 GMT", now)).hasValue(Duration.ofSeconds(1));
  }

  @Test
  void leapDayExistsOnlyInLeapYears() {
    Instant now = Instant.parse("2024-01-01T00:00:00Z");
    assertThat(RetryAfter.parse("Thu, 29 Feb 2024 00:00:00 GMT", now)).hasValue(Duration.ofDays(59));
    assertThat(RetryAfter.parse("Sun, 29 Feb 2026 00:00:00 GMT", now)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // now's year | two-digit year | the year it means (at most 50 years ahead, else the past century)
      "2026|26|2026", "2026|76|2076", "2026|77|1977", "2026|99|1999", "2026|00|2000",
      "2099|10|2110", "2099|49|2149", "2099|50|2050", "1994|94|1994", "1994|45|1945", "1994|44|2044",
      "1994|46|1946"})
  void rfc850TwoDigitYearIsNeverMoreThanFiftyYearsAhead(int nowYear, String twoDigits, int expectedYear) {
    Instant now = Instant.parse(nowYear + "-06-15T00:00:00Z");
    Instant date = RetryAfter.httpDate("Monday, 01-Jan-" + twoDigits + " 00:00:00 GMT", now);
    assertThat(date).isEqualTo(Instant.parse(expectedYear + "-01-01T00:00:00Z"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", " ", "\t", "soon", "-1", "+1", "1.5", "1e3", "1 2", "0x10", "١٢", // Arabic-Indic digits
      "99999999999999999999x", "1 99999999999999999999",
      "sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 gmt",
      "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 6 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 94 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
      "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
      "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 08-49-37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 08:49:37 GMT extra", "Sunday, 06 Nov 1994 08:49:37 GMT",
      "Sun, 06-Nov-94 08:49:37 GMT", "Sundae, 06-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
      "Sunday, 6-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-9x 08:49:37 GMT",
      "Sun Nov 6 08:49:37 1994", "Sun Nov   6 08:49:37 1994", "Sun Nov  6 08:49:37 94",
      "Sun Nov  0 08:49:37 1994", "Sun,Nov  6 08:49:37 1994", "Sun Nov  6 08:49:37 GMT1994",
      ", 06 Nov 1994 08:49:37 GMT", "Su, 06 Nov 1994 08:49:37 GMT"})
  void unreadableValuesGiveNoHint(String value) {
    assertThat(parse(value)).isEmpty();
  }

  @Test
  void surroundingWhitespaceIsIgnoredButNotOtherControlCharacters() {
    assertThat(parse(" \tSun, 06 Nov 1994 08:49:37 GMT \t")).hasValue(Duration.ofSeconds(7));
    assertThat(parse("\n5")).isEmpty();
    assertThat(parse("5\r")).isEmpty();
  }

  @Test
  void valuesTooLargeForNanosecondsAreWaitsNotNoHint() {
    // A well-formed value is never dropped for its size: a larger one must not give a sooner retry.
    assertThat(parse("9223372037")).hasValue(Duration.ofSeconds(9_223_372_037L));
    assertThat(parse(Long.toString(Long.MAX_VALUE))).hasValue(Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(parse("9223372036854775808")).hasValue(RetryAfter.FOREVER);
    assertThat(parse("99999999999999999999")).hasValue(RetryAfter.FOREVER);
    assertThat(parse("99999999999999999999999999")).hasValue(RetryAfter.FOREVER);
    assertThat(parse("Fri, 31 Dec 9999 23:59:59 GMT"))
        .hasValue(Duration.between(NOW, Instant.parse("9999-12-31T23:59:59Z")));
    // Just inside the range of nanoseconds: about 292 years ahead.
    assertThat(RetryAfter.nanos(parse("Wed, 06 Nov 2286 08:49:37 GMT").orElseThrow())).isLessThan(Long.MAX_VALUE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"9223372037", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT",
      "Sun Dec 31 23:59:59 2999"})
  void hintTooLongForNanosecondsIsInfinite(String value) {
    assertThat(RetryAfter.hintNanos(List.of(value), NOW)).isEqualTo(RetryAfter.INFINITE_NANOS);
  }

  @Test
  void absentValueGivesNoHintAndNowIsRequired() {
    assertThat(parse(null)).isEmpty();
    assertThatThrownBy(() -> RetryAfter.parse("5", null))
        .isInstanceOf(NullPointerException.class).hasMessage("now must not be null");
  }

  @Test
  void hintFromHeadersUsesTheLongestReadableValueInNanoseconds() {
    assertThat(RetryAfter.hintNanos(headers("2", "9"), NOW)).isEqualTo(9_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("1", "5"), NOW)).isEqualTo(5_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("garbage", "3600"), NOW)).isEqualTo(3_600_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("3600", "garbage"), NOW)).isEqualTo(3_600_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("Sun, 06 Nov 1994 08:49:37 GMT", "3"), NOW)).isEqualTo(7_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("5", "99999999999999999999"), NOW)).isEqualTo(RetryAfter.INFINITE_NANOS);
    assertThat(RetryAfter.hintNanos(List.of(), NOW)).isEqualTo(Pushback.NONE);
    assertThat(RetryAfter.hintNanos(headers("later", "soon"), NOW)).isEqualTo(Pushback.NONE);
    assertThat(RetryAfter.hintNanos(headers("9223372036"), NOW)).isEqualTo(9_223_372_036_000_000_000L);
  }

  @Test
  void valuesFoldedIntoOneLineByAProxyGiveTheLongest() {
    assertThat(RetryAfter.hintNanos(headers("5, 120"), NOW)).isEqualTo(120_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("120,5"), NOW)).isEqualTo(120_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers(" 0 ,\t1 "), NOW)).isEqualTo(1_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("1, 99999999999999999999"), NOW)).isEqualTo(RetryAfter.INFINITE_NANOS);
    assertThat(RetryAfter.hintNanos(headers("Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:40 GMT"), NOW))
        .isEqualTo(10_000_000_000L);
    // A date and delay-seconds folded together: each read in its own form.
    assertThat(RetryAfter.hintNanos(headers("Sun, 06 Nov 1994 08:49:37 GMT,3"), NOW)).isEqualTo(7_000_000_000L);
    assertThat(RetryAfter.hintNanos(headers("Sun, 06 Nov 1994 08:49:37 GMT,30"), NOW)).isEqualTo(30_000_000_000L);
    // One unreadable part makes the whole line unreadable, as any garbage is.
    assertThat(RetryAfter.hintNanos(headers("5, soon"), NOW)).isEqualTo(Pushback.NONE);
    assertThat(RetryAfter.hintNanos(headers("5,"), NOW)).isEqualTo(Pushback.NONE);
    assertThat(RetryAfter.hintNanos(headers(","), NOW)).isEqualTo(Pushback.NONE);
    assertThat(RetryAfter.hintNanos(headers("-5, 3"), NOW)).isEqualTo(Pushback.NONE);
    // A lone value is still parsed whole, never split: a date keeps its comma.
    assertThat(RetryAfter.parse("5, 120", NOW)).isEmpty();
  }

  static List<String> headers(String... retryAfter) {
    return List.of(retryAfter);
  }
}
