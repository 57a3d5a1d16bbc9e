package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Exact values, checked against SciPy's (norm.ppf, t.ppf, binom.cdf) and the textbook worked examples. */
class StatsTest {
  private static final double EPS = 1e-9;

  @Test
  void wilsonWorkedExamples() {
    assertInterval(Stats.wilson(8, 10), 0.49016247153664183, 0.9433178485456247);
    assertInterval(Stats.wilson(5, 10), 0.236593090512564, 0.7634069094874361);
    assertInterval(Stats.wilson(95, 100), 0.8882495307680808, 0.9784563208456319);
    assertInterval(Stats.wilson(0, 10), 0, 0.2775327998628892);
    assertInterval(Stats.wilson(10, 10), 0.7224672001371107, 1);
    assertInterval(Stats.wilson(1, 1), 0.20654931437723745, 1);
    assertInterval(Stats.wilson(0, 1), 0, 0.7934506856227626);
    // The brief's rounding: 8 of 10 at 95% is [0.490, 0.943].
    assertThat(Values.format(Stats.wilson(8, 10).lower(), 3)).isEqualTo("0.490");
    assertThat(Values.format(Stats.wilson(8, 10).upper(), 3)).isEqualTo("0.943");
  }

  @Test
  void wilsonOfNoTrialsIsUnknownAndBadCountsAreRefusedByName() {
    assertThat(Stats.wilson(0, 0).lower()).isNaN();
    assertThat(Stats.wilson(0, 0).upper()).isNaN();
    assertThatThrownBy(() -> Stats.wilson(1, -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trials must not be negative, was -1");
    assertThatThrownBy(() -> Stats.wilson(11, 10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("successes must be between 0 and trials (10), was 11");
    assertThatThrownBy(() -> Stats.wilson(-1, 10)).hasMessageContaining("was -1");
  }

  @Test
  void studentTQuantilesMatchTheTables() {
    assertThat(Stats.studentT(0.975, 1)).isCloseTo(12.706204736174694, within(1e-9));
    assertThat(Stats.studentT(0.975, 2)).isCloseTo(4.302652729749462, within(1e-10));
    assertThat(Stats.studentT(0.975, 9)).isCloseTo(2.262157162798205, within(1e-10));
    assertThat(Stats.studentT(0.975, 29)).isCloseTo(2.045229642132703, within(1e-10));
    assertThat(Stats.studentT(0.975, 99)).isCloseTo(1.9842169515864174, within(1e-10));
    assertThat(Stats.studentT(0.975, 1000)).isCloseTo(1.9623390808264083, within(1e-10));
  }

  @Test
  void binomialCdfIsExact() {
    assertThat(Stats.binomialCdf(1, 10, 0.5)).isCloseTo(11 / 1024.0, within(1e-15));
    assertThat(Stats.binomialCdf(0, 10, 0.5)).isCloseTo(1 / 1024.0, within(1e-15));
    assertThat(Stats.binomialCdf(9, 10, 0.9)).isCloseTo(1 - Math.pow(0.9, 10), within(1e-14));
    assertThat(Stats.binomialCdf(-1, 10, 0.5)).isZero();
    assertThat(Stats.binomialCdf(10, 10, 0.5)).isEqualTo(1);
  }

  @Test
  void meanIntervalIsStudents() {
    Stats.Estimate mean = Stats.Sample.of(3, 1, 2, 4, 5, 6, 7, 8, 9, 10).mean();
    assertThat(mean.value()).isEqualTo(5.5);
    assertThat(mean.lower()).isCloseTo(3.334149410331831, within(EPS));
    assertThat(mean.upper()).isCloseTo(7.665850589668169, within(EPS));
    Stats.Estimate constant = Stats.Sample.of(2, 2, 2).mean();
    assertThat(constant).isEqualTo(new Stats.Estimate(2, 2, 2));
    Stats.Estimate one = Stats.Sample.of(7).mean();
    assertThat(one).isEqualTo(new Stats.Estimate(7, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY));
  }

  @Test
  void quantileRanksMatchTheBinomialTables() {
    assertRanks(10, 0.5, 2, 9);
    assertRanks(20, 0.5, 6, 15);
    assertRanks(100, 0.5, 40, 61);
    assertRanks(10, 0.9, 7, 11); // 11: the upper end cannot be bounded with 10 runs
    assertRanks(100, 0.9, 84, 96);
    assertRanks(35, 0.9, 28, 36); // 35 runs: still unbounded above
    assertRanks(36, 0.9, 29, 36); // 36 runs: bounded
    assertRanks(5, 0.5, 0, 6); // 5 runs bound neither end of the median
    assertRanks(6, 0.5, 1, 6);
    assertRanks(1000, 0.9, 881, 919);
  }

  @Test
  void quantilesInterpolateAndTakeTheirIntervalFromTheRanks() {
    double[] values = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}; // sorted: x(k) = k
    Stats.Sample sample = Stats.Sample.of(values);
    assertThat(sample.median()).isEqualTo(new Stats.Estimate(5.5, 2, 9));
    Stats.Estimate p90 = sample.p90();
    assertThat(p90.value()).isCloseTo(9.1, within(1e-12));
    assertThat(p90.lower()).isEqualTo(7);
    assertThat(p90.upper()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(Stats.Sample.of(1, 2, 3).median()).isEqualTo(
        new Stats.Estimate(2, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY));
  }

  @Test
  void missingValuesAreLeftOutAndCounted() {
    Stats.Sample sample = Stats.Sample.of(Double.NaN, 4, Double.NaN, 2);
    assertThat(sample.size()).isEqualTo(2);
    assertThat(sample.missing()).isEqualTo(2);
    assertThat(sample.sortedValues()).containsExactly(2, 4);
    assertThat(sample.min()).isEqualTo(2);
    assertThat(sample.max()).isEqualTo(4);
    Stats.Sample empty = Stats.Sample.of(Double.NaN);
    assertThat(empty.mean().value()).isNaN();
    assertThat(empty.median().lower()).isNaN();
    assertThat(empty.min()).isNaN();
  }

  @Test
  void badInputIsRefusedByName() {
    assertThatThrownBy(() -> Stats.Sample.of(1, Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("values[1] is not finite: Infinity");
    assertThatThrownBy(() -> Stats.Sample.of(1).quantile(1)).hasMessage("p must be between 0 and 1 (exclusive), was 1.0");
    assertThatThrownBy(() -> Stats.Sample.of(1).quantile(Double.NaN)).hasMessageContaining("was NaN");
  }

  private static void assertRanks(int n, double p, int lower, int upper) {
    assertThat(Stats.quantileRanks(n, p)).as("n=%d p=%s", n, p).containsExactly(lower, upper);
  }

  private static void assertInterval(Stats.Interval interval, double lower, double upper) {
    assertThat(interval.lower()).isCloseTo(lower, within(EPS));
    assertThat(interval.upper()).isCloseTo(upper, within(EPS));
  }
}
