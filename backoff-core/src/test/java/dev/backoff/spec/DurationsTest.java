package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.Example;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class DurationsTest {

  @Example
  void parsesEveryUnitExactly() {
    assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("1s")).isEqualTo(Duration.ofSeconds(1));
    assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Durations.parse("0.1s")).isEqualTo(Duration.ofMillis(100));
    assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Durations.parse("2min")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
    assertThat(Durations.parse("500us")).isEqualTo(Duration.ofNanos(500_000));
    assertThat(Durations.parse("500µs")).isEqualTo(Duration.ofNanos(500_000));
    assertThat(Durations.parse("10ns")).isEqualTo(Duration.ofNanos(10));
    assertThat(Durations.parse(" 20 S ")).isEqualTo(Duration.ofSeconds(20));
    assertThat(Durations.parse("0s")).isEqualTo(Duration.ZERO);
    assertThat(Durations.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Durations.parse("pt20s")).isEqualTo(Duration.ofSeconds(20));
    assertThat(Durations.parseNanos("9223372036854775807ns")).isEqualTo(Long.MAX_VALUE);
  }

  @Example
  void parsesSeveralUnitsFromTheLargestDown() {
    assertThat(Durations.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(Durations.parse("1h2m3.5s")).isEqualTo(Duration.ofSeconds(3723, 500_000_000));
    assertThat(Durations.parse("12m59.4s")).isEqualTo(Duration.ofMillis(779_400));
    assertThat(Durations.parse("1d1ns")).isEqualTo(Duration.ofDays(1).plusNanos(1));
    assertThat(Durations.parse("1s500ms")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Durations.parse("2min5s")).isEqualTo(Duration.ofSeconds(125));
    assertThatThrownBy(() -> Durations.parse("30s1m")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'30s1m' is not a duration: write its units from the largest down, each once (e.g. 1h2m3.5s)");
    assertThatThrownBy(() -> Durations.parse("1m1m")).hasMessageContaining("from the largest down, each once");
    assertThatThrownBy(() -> Durations.parse("1m30")).hasMessageStartingWith("'1m30' is not a duration");
    assertThatThrownBy(() -> Durations.parse("1m 30s")).hasMessageStartingWith("'1m 30s' is not a duration");
    assertThatThrownBy(() -> Durations.parse("1m-30s")).hasMessageStartingWith("'1m-30s' is not a duration");
    assertThatThrownBy(() -> Durations.parse("1m30.5ns")).hasMessage("duration '1m30.5ns' is finer than a nanosecond");
    assertThatThrownBy(() -> Durations.parseNanos("292y1s")).hasMessageStartingWith("'292y1s' is not a duration");
    assertThatThrownBy(() -> Durations.parseNanos("106752d1s")).hasMessageContaining("too large");
  }

  @Example
  void refusesABareNumberWithAHint() {
    assertThatThrownBy(() -> Durations.parse("10")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'10' has no unit; write 10s (or ms, m, h, ...)");
    assertThatThrownBy(() -> Durations.parse("1.5")).hasMessageContaining("write 1.5s");
  }

  @Example
  void refusesBadValuesNamingThem() {
    assertThatThrownBy(() -> Durations.parse("soon")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("'soon' is not a duration; write e.g. 250ms");
    assertThatThrownBy(() -> Durations.parse("5 parsecs")).hasMessageStartingWith("'5 parsecs' is not a duration");
    assertThatThrownBy(() -> Durations.parse("PTxS")).hasMessageStartingWith("'PTxS' is not a duration");
    assertThatThrownBy(() -> Durations.parse("-1s")).hasMessage("duration must not be negative, was '-1s'");
    assertThatThrownBy(() -> Durations.parse("-PT1S")).hasMessage("duration must not be negative, was '-PT1S'");
    assertThatThrownBy(() -> Durations.parse("1.5ns")).hasMessage("duration '1.5ns' is finer than a nanosecond");
    assertThat(Durations.parse("9223372036854775808ns")).isEqualTo(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1));
    assertThat(Durations.parse("100000000d")).isEqualTo(Duration.ofDays(100_000_000));
    assertThatThrownBy(() -> Durations.parse("9223372036854775808s")).hasMessageStartingWith(
        "duration '9223372036854775808s' is too large (at most 9223372036854775807.999999999s)");
    assertThatThrownBy(() -> Durations.parseNanos("9223372036854775808ns"))
        .hasMessage("duration '9223372036854775808ns' is too large (at most 9223372036.854775807s, about 292 years)");
    assertThatThrownBy(() -> Durations.parse("300y")).hasMessageStartingWith("'300y' is not a duration");
    assertThatThrownBy(() -> Durations.parse("1" + "0".repeat(100000) + "d"))
        .hasMessageContaining("is too large").hasMessageContaining("characters)");
    assertThatThrownBy(() -> Durations.parseNanos("PT1000000000000H")).hasMessageContaining("too large");
    assertThatThrownBy(() -> Durations.parse(null)).isInstanceOf(NullPointerException.class);
  }

  @Example
  void formatsAsAUserWrites() {
    assertThat(Durations.format(Duration.ofSeconds(20))).isEqualTo("20s");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(Durations.format(Duration.ofMinutes(5))).isEqualTo("5m");
    assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(Durations.format(Duration.ofHours(2))).isEqualTo("2h");
    assertThat(Durations.format(Duration.ofDays(3))).isEqualTo("3d");
    assertThat(Durations.format(Duration.ofNanos(1_250_000))).isEqualTo("1.25ms");
    assertThat(Durations.format(Duration.ofNanos(500_000))).isEqualTo("500us");
    assertThat(Durations.format(Duration.ofNanos(7))).isEqualTo("7ns");
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
    assertThat(Durations.format(Duration.ofSeconds(Long.MAX_VALUE))).endsWith("s");
    assertThatThrownBy(() -> Durations.format(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
  }

  @Property(tries = 2000)
  void parseOfFormatIsTheSameDuration(@ForAll("nanos") long nanos) {
    String text = Durations.format(nanos);
    assertThat(Durations.parseNanos(text)).isEqualTo(nanos);
    assertThat(Durations.format(Durations.parseNanos(text))).isEqualTo(text); // formatting is a fixed point
  }

  @Property(tries = 1000)
  void formatOfParseGivesBackWhatAUserWrote(@ForAll("written") String text) {
    assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
  }

  @Provide
  Arbitrary<Long> nanos() {
    return Arbitraries.oneOf(Arbitraries.longs().between(0, Long.MAX_VALUE),
        Arbitraries.longs().between(0, 100_000).map(n -> n * 1_000_000L),
        Arbitraries.longs().between(0, 10_000).map(n -> n * 60_000_000_000L),
        Arbitraries.longs().between(0, 999_999));
  }

  /** Canonical forms: a unit and a value the formatter would choose for it. */
  @Provide
  Arbitrary<String> written() {
    Arbitrary<String> seconds = Arbitraries.integers().between(1, 59).map(n -> n + "s");
    Arbitrary<String> fractional = Arbitraries.integers().between(1, 59)
        .flatMap(n -> Arbitraries.integers().between(1, 9).map(d -> n + "." + d + "s"));
    Arbitrary<String> millis = Arbitraries.integers().between(1, 999).map(n -> n + "ms");
    Arbitrary<String> micros = Arbitraries.integers().between(1, 999).map(n -> n + "us");
    Arbitrary<String> nanos = Arbitraries.integers().between(1, 999).map(n -> n + "ns");
    Arbitrary<String> minutes = Arbitraries.integers().between(1, 59).map(n -> n + "m");
    Arbitrary<String> hours = Arbitraries.integers().between(1, 23).map(n -> n + "h");
    Arbitrary<String> days = Arbitraries.integers().between(1, 10000).map(n -> n + "d");
    return Arbitraries.oneOf(seconds, fractional, millis, micros, nanos, minutes, hours, days);
  }
}
