package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class JitterTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long UNCAPPED = Long.MAX_VALUE;

  @Test
  void noneReturnsTheDelayAndDrawsNothing() {
    assertThat(Jitter.none().apply(SECOND, 2 * SECOND, 0.7)).isEqualTo(SECOND);
    assertThat(Jitter.none().isRandom()).isFalse();
  }

  @Test
  void fullJitterIsUniformBelowTheDelay() {
    assertThat(Jitter.full().apply(SECOND, UNCAPPED, 0.0)).isZero();
    assertThat(Jitter.full().apply(SECOND, UNCAPPED, 0.25)).isEqualTo(250_000_000L);
    assertThat(Jitter.full().apply(SECOND, UNCAPPED, 0.5)).isEqualTo(500_000_000L);
    assertThat(Jitter.full().apply(SECOND, UNCAPPED, Math.nextDown(1.0))).isEqualTo(SECOND - 1);
  }

  @Test
  void equalJitterKeepsHalfAndRandomizesTheOtherHalf() {
    // seed 004: temp/2 + U(0, temp/2)
    assertThat(Jitter.equal().apply(SECOND, UNCAPPED, 0.0)).isEqualTo(500_000_000L);
    assertThat(Jitter.equal().apply(SECOND, UNCAPPED, 0.5)).isEqualTo(750_000_000L);
    assertThat(Jitter.equal().apply(3, UNCAPPED, 0.0)).isEqualTo(1);
    assertThat(Jitter.equal().apply(3, UNCAPPED, 0.9)).isEqualTo(2);
  }

  @Test
  void proportionalJitterSpreadsAroundTheDelayBelowTheCap() {
    Jitter half = Jitter.proportional(0.5);
    assertThat(half.apply(SECOND, 10 * SECOND, 0.0)).isEqualTo(500_000_000L);
    assertThat(half.apply(SECOND, 10 * SECOND, 0.5)).isEqualTo(SECOND);
    assertThat(half.apply(SECOND, 10 * SECOND, 0.75)).isEqualTo(1_250_000_000L);
  }

  @Test
  void proportionalJitterAtTheCapCentresLowEnoughToFitTheWindowUnderIt() {
    Jitter half = Jitter.proportional(0.5);
    long cap = 9 * SECOND;
    // centre = cap / 1.5 = 6 s; window [3 s, 9 s)
    assertThat(half.apply(cap, cap, 0.0)).isEqualTo(3 * SECOND);
    assertThat(half.apply(cap, cap, 0.5)).isEqualTo(6 * SECOND);
    assertThat(half.apply(cap, cap, 0.999)).isLessThan(cap).isGreaterThan(cap - 10 * 1_000_000L);
    assertThat(half.apply(cap, cap, Math.nextDown(1.0))).isLessThanOrEqualTo(cap);
    // Just below the limit the centre is the delay itself.
    assertThat(half.apply(6 * SECOND, cap, 0.5)).isEqualTo(6 * SECOND);
  }

  @Test
  void gaussianJitterIsTruncatedAtThreeDeviations() {
    Jitter seed003 = Jitter.gaussian(0.1);
    assertThat(seed003.apply(SECOND, UNCAPPED, 0.5)).isCloseTo(SECOND, within(2L));
    assertThat(seed003.apply(SECOND, UNCAPPED, 0.0)).isCloseTo(700_000_000L, within(100L));
    assertThat(seed003.apply(SECOND, UNCAPPED, Math.nextDown(1.0))).isCloseTo(1_300_000_000L, within(100L));
    // u = (Φ(1) − Φ(−3)) / (Φ(3) − Φ(−3)) is one standard deviation above the centre.
    assertThat(seed003.apply(SECOND, UNCAPPED, 0.842268802032848)).isCloseTo(1_100_000_000L, within(1_000L));
  }

  @Test
  void gaussianJitterWithLargeDeviationTruncatesAtTheDelaySoItIsNeverNegative() {
    Jitter wide = Jitter.gaussian(1.0); // k = min(3, 1/1) = 1 deviation
    assertThat(wide.apply(SECOND, UNCAPPED, 0.0)).isBetween(0L, 1_000L);
    assertThat(wide.apply(SECOND, UNCAPPED, Math.nextDown(1.0))).isCloseTo(2 * SECOND, within(1_000L));
  }

  @Test
  void gaussianJitterAtTheCapFollowsTheCapRule() {
    Jitter seed003 = Jitter.gaussian(0.1);
    long cap = 13 * SECOND; // centre = cap / 1.3 = 10 s; window [7 s, 13 s]
    assertThat(seed003.apply(cap, cap, 0.5)).isCloseTo(10 * SECOND, within(20L));
    assertThat(seed003.apply(cap, cap, 0.0)).isCloseTo(7 * SECOND, within(1_000L));
    assertThat(seed003.apply(cap, cap, Math.nextDown(1.0))).isLessThanOrEqualTo(cap)
        .isCloseTo(cap, within(1_000L));
  }

  @Test
  void inverseNormalDistributionMatchesKnownQuantiles() {
    assertThat(Jitters.inverseNormalCdf(0.5)).isCloseTo(0.0, within(1e-12));
    assertThat(Jitters.inverseNormalCdf(0.975)).isCloseTo(1.959963985, within(1e-8));
    assertThat(Jitters.inverseNormalCdf(0.001)).isCloseTo(-3.090232306, within(1e-8));
    assertThat(Jitters.normalCdf(1.0)).isCloseTo(0.841344746, within(1e-7));
  }

  @Test
  void fullAndEqualNeverExceedTheDelayNearLongMaxValue() {
    // 2^62 + 2^9 + 1 rounds up as a double; the product must still not pass the delay.
    long delay = (1L << 62) + (1L << 9) + 1;
    double u = Math.nextDown(1.0);
    assertThat(Jitter.full().apply(delay, delay, u)).isLessThanOrEqualTo(delay);
    assertThat(Jitter.equal().apply(delay, delay, u)).isLessThanOrEqualTo(delay);
    assertThat(Jitter.full().apply(Long.MAX_VALUE, Long.MAX_VALUE, u)).isLessThanOrEqualTo(Long.MAX_VALUE)
        .isPositive();
  }

  @Test
  void factorsOutsideTheirRangeAreRejectedWithNameAndValue() {
    for (double bad : new double[] {0, -0.1, 1.0001, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> Jitter.proportional(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("jitter factor").hasMessageContaining(String.valueOf(bad));
      assertThatThrownBy(() -> Jitter.gaussian(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("gaussian relative deviation").hasMessageContaining(String.valueOf(bad));
    }
    assertThat(Jitter.proportional(1.0).apply(SECOND, UNCAPPED, 0.0)).isZero();
  }
}
