package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** The fleet's latency percentiles: exact below 256 µs, within 0.4% above, in fixed buckets. */
class LatencyHistogramTest {

  @Example
  void percentilesOfKnownLatencies() {
    LatencyHistogram histogram = new LatencyHistogram();
    assertThat(histogram.quantileSeconds(0.99)).isNaN();
    for (int micros = 1; micros <= 100; micros++) {
      histogram.record(micros * 1000L);
    }
    assertThat(histogram.count()).isEqualTo(100);
    assertThat(histogram.quantileSeconds(0.5)).isEqualTo(50e-6);
    assertThat(histogram.quantileSeconds(0.99)).isEqualTo(99e-6);
    assertThat(histogram.quantileSeconds(1)).isEqualTo(100e-6);
  }

  @Example
  void aSlowTailShowsInTheNinetyNinthPercentileOnly() {
    LatencyHistogram histogram = new LatencyHistogram();
    for (int i = 0; i < 98; i++) {
      histogram.record(50_000_000L); // 50 ms
    }
    histogram.record(400_000_000L); // 400 ms
    histogram.record(400_000_000L);
    // 50 ms = 50,000 µs falls in [49,920, 50,176) µs (256 µs wide at 2^15..2^16): its midpoint is 50,047.5 µs.
    assertThat(histogram.quantileSeconds(0.5)).isCloseTo(0.0500475, within(1e-12));
    assertThat(histogram.quantileSeconds(0.98)).isCloseTo(0.0500475, within(1e-12));
    assertThat(histogram.quantileSeconds(0.99)).isCloseTo(0.4, within(0.4 / 256));
  }

  @Example
  void negativeLatenciesCountAsZeroAndBadQuantilesAreRefused() {
    LatencyHistogram histogram = new LatencyHistogram();
    histogram.record(-5);
    assertThat(histogram.quantileSeconds(1)).isZero();
    assertThatThrownBy(() -> histogram.quantileSeconds(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("q must be in (0, 1], was 0.0");
    assertThatThrownBy(() -> histogram.quantileSeconds(Double.NaN)).hasMessage("q must be in (0, 1], was NaN");
  }

  @Property
  void everyLatencyFallsInTheBucketThatBoundsIt(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 1000) long micros) {
    int index = LatencyHistogram.index(micros);
    assertThat(LatencyHistogram.lowerBound(index)).isLessThanOrEqualTo(micros);
    if (LatencyHistogram.lowerBound(index + 1) > 0) { // the last bucket's upper bound overflows
      assertThat(LatencyHistogram.lowerBound(index + 1)).isGreaterThan(micros);
    }
    // A bucket is at most 1/128 of its lower bound wide (exact below 256 µs).
    long width = LatencyHistogram.lowerBound(index + 1) - LatencyHistogram.lowerBound(index);
    if (micros >= 256 && width > 0) {
      assertThat(width).isLessThanOrEqualTo(LatencyHistogram.lowerBound(index) / 128);
    } else if (micros < 256) {
      assertThat(width).isEqualTo(1);
    }
  }

  @Property
  void theQuantileOfOneRecordedLatencyIsWithinItsBucket(@ForAll @LongRange(min = 0, max = 3_600_000_000L) long micros) {
    LatencyHistogram histogram = new LatencyHistogram();
    histogram.record(micros * 1000);
    double seconds = histogram.quantileSeconds(0.99);
    assertThat(Math.abs(seconds - micros / 1e6)).isLessThanOrEqualTo(Math.max(0, micros / 1e6 / 256));
  }
}
