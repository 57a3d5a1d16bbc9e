package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NumbersTest {
  @Test
  void humanTextKeepsOrdinaryNumbersPlain() {
    assertThat(Numbers.text(1.099)).isEqualTo("1.099");
    assertThat(Numbers.text(960.1724)).isEqualTo("960.172");
    assertThat(Numbers.text(123_456_789_012.0)).isEqualTo("123456789012"); // every whole digit
    assertThat(Numbers.text(99_999_999_999.0)).isEqualTo("99999999999"); // not 100000000000
    assertThat(Numbers.text(123_456_789_012.3456)).isEqualTo("123456789012.346");
    assertThat(Numbers.text(0.000001274)).isEqualTo("0.000001274");
  }

  @Test
  void humanTextWritesHugeNumbersWithAnExponent() {
    assertThat(Numbers.text(1e308)).isEqualTo("1e308");
    assertThat(Numbers.text(1e15)).isEqualTo("1e15");
    assertThat(Numbers.text(-2.5e20)).isEqualTo("-2.5e20");
    assertThat(Numbers.text(1.2345678912345e17)).isEqualTo("1.234567891e17");
  }
}
