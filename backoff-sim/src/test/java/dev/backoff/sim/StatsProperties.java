package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Invariants of the intervals over generated counts and samples. */
class StatsProperties {

  @Property
  void wilsonContainsThePointEstimateAndLiesInTheUnitInterval(@ForAll @IntRange(min = 1, max = 100_000) int trials,
      @ForAll @DoubleRange(min = 0, max = 1) double share) {
    long successes = Math.round(share * trials);
    Stats.Interval interval = Stats.wilson(successes, trials);
    double p = (double) successes / trials;
    assertThat(interval.lower()).isBetween(0.0, 1.0);
    assertThat(interval.upper()).isBetween(0.0, 1.0);
    assertThat(interval.contains(p)).as("%s contains %s", interval, p).isTrue();
    assertThat(interval.upper() - interval.lower()).isPositive();
  }

  @Property
  void wilsonNarrowsWithMoreTrialsAtTheSameShare(@ForAll @IntRange(min = 1, max = 10_000) int times,
      @ForAll @IntRange(min = 0, max = 100) int percent) {
    Stats.Interval small = Stats.wilson(percent, 100);
    Stats.Interval large = Stats.wilson((long) percent * times, 100L * times);
    assertThat(large.upper() - large.lower()).isLessThanOrEqualTo(small.upper() - small.lower() + 1e-12);
  }

  @Property
  void everyEstimateLiesInItsIntervalAndTheQuantilesBetweenMinAndMax(
      @ForAll @Size(min = 1, max = 300) double[] raw) {
    double[] values = new double[raw.length];
    for (int i = 0; i < raw.length; i++) {
      values[i] = Double.isFinite(raw[i]) ? Math.max(-1e12, Math.min(1e12, raw[i])) : 0;
    }
    Stats.Sample sample = Stats.Sample.of(values);
    for (Stats.Estimate e : new Stats.Estimate[] {sample.mean(), sample.median(), sample.p90(), sample.quantile(0.1)}) {
      assertThat(e.lower()).isLessThanOrEqualTo(e.value());
      assertThat(e.value()).isLessThanOrEqualTo(e.upper());
    }
    for (Stats.Estimate e : new Stats.Estimate[] {sample.median(), sample.p90(), sample.quantile(0.1)}) {
      assertThat(e.value()).isBetween(sample.min(), sample.max());
      assertThat(e.lower() == Double.NEGATIVE_INFINITY || e.lower() >= sample.min()).isTrue();
      assertThat(e.upper() == Double.POSITIVE_INFINITY || e.upper() <= sample.max()).isTrue();
    }
  }

  @Property
  void quantileRanksCoverAtLeastNinetyFivePercent(@ForAll @IntRange(min = 1, max = 2000) int n,
      @ForAll @DoubleRange(min = 0.05, max = 0.95) double p) {
    int[] ranks = Stats.quantileRanks(n, p);
    assertThat(ranks[0]).isBetween(0, n);
    assertThat(ranks[1]).isBetween(1, n + 1);
    assertThat(ranks[0]).isLessThan(ranks[1]);
    // Coverage P(l <= B < u) with B ~ Binomial(n, p), each tail at most 2.5%.
    double below = Stats.binomialCdf(ranks[0] - 1, n, p);
    double above = 1 - Stats.binomialCdf(ranks[1] - 1, n, p);
    assertThat(below).isLessThanOrEqualTo(0.025 + 1e-12);
    assertThat(above).isLessThanOrEqualTo(0.025 + 1e-12);
    // ... and as tight as that allows: one rank further in would break a tail.
    if (ranks[0] < n) {
      assertThat(Stats.binomialCdf(ranks[0], n, p)).isGreaterThan(0.025);
    }
    if (ranks[1] > 1) {
      assertThat(1 - Stats.binomialCdf(ranks[1] - 2, n, p)).isGreaterThan(0.025);
    }
  }
}
