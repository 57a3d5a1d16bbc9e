package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

class NumbersTest {
  @Example
  void humanTextKeepsOrdinaryNumbersPlain() {
    assertThat(Numbers.text(1.099)).isEqualTo("1.099");
    assertThat(Numbers.text(960.1724)).isEqualTo("960.172");
    assertThat(Numbers.text(123_456_789_012.0)).isEqualTo("123456789012"); // every whole digit
    assertThat(Numbers.text(99_999_999_999.0)).isEqualTo("99999999999"); // not 100000000000
    assertThat(Numbers.text(123_456_789_012.3456)).isEqualTo("123456789012.346");
    assertThat(Numbers.text(0.000001274)).isEqualTo("0.000001274");
  }

  @Example
  void humanTextWritesHugeNumbersWithAnExponent() {
    assertThat(Numbers.text(1e308)).isEqualTo("1e308");
    assertThat(Numbers.text(1e15)).isEqualTo("1e15");
    assertThat(Numbers.text(-2.5e20)).isEqualTo("-2.5e20");
    assertThat(Numbers.text(1.2345678912345e17)).isEqualTo("1.234567891e17");
  }

  @Example
  void distinctAddsDigitsOnlyWhereTheUsualTextWouldShowTwoNumbersAsOne() {
    assertThat(Numbers.distinct(99_999_999_999.0, 100_000_000_000.0)).containsExactly("99999999999", "100000000000");
    assertThat(Numbers.distinct(1.0000000008, 1.0000000009)).containsExactly("1.0000000008", "1.0000000009");
    assertThat(Numbers.distinct(1.5, 2.25)).containsExactly("1.5", "2.25"); // already different: unchanged
    assertThat(Numbers.distinct(1.0, 1.0)).containsExactly("1", "1");
    assertThat(Numbers.distinct(1e15, Math.nextUp(1e15))).containsExactly("1e15", "1.0000000000000001e15");
    assertThat(Numbers.distinct(0.1234567890123, 0.1234567890124))
        .containsExactly("0.1234567890123", "0.1234567890124");
  }

  @Property
  void differentNumbersNeverPrintTheSame(@ForAll @DoubleRange(min = -1e30, max = 1e30) double a,
      @ForAll @IntRange(min = 0, max = 2000) int ulps) {
    double b = a;
    for (int i = 0; i < ulps; i++) {
      b = Math.nextUp(b);
    }
    String[] texts = Numbers.distinct(a, b);
    assertThat(texts[0].equals(texts[1])).as(a + " vs " + b + ": " + texts[0] + ", " + texts[1]).isEqualTo(a == b);
    // Rounding keeps the order.
    assertThat(parse(texts[0])).isLessThanOrEqualTo(parse(texts[1]));
    assertThat(texts[0]).isEqualTo(Numbers.distinct(a, b)[0]); // deterministic
  }

  /** Within half a unit of the last digit shown: 0.0005 from 1 on, 5e-10 relative below. */
  @Property
  void textIsTheNumberRounded(@ForAll @DoubleRange(min = -1e14, max = 1e14) double value) {
    BigDecimal shown = new BigDecimal(Numbers.text(value));
    BigDecimal exact = new BigDecimal(value);
    BigDecimal tolerance = Math.abs(value) >= 1 ? new BigDecimal("0.0005")
        : exact.abs().multiply(new BigDecimal("5e-10"));
    assertThat(shown.subtract(exact).abs()).isLessThanOrEqualTo(tolerance);
  }

  private static double parse(String text) {
    return Double.parseDouble(text);
  }
}
