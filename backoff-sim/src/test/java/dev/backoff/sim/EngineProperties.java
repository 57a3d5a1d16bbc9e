package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class EngineProperties {

  @Property
  void eventsComeOutByTimeThenInSchedulingOrder(
      @ForAll @Size(max = 300) List<@LongRange(min = 0, max = 20) Long> times) {
    EventQueue queue = new EventQueue();
    List<long[]> expected = new ArrayList<>();
    for (int i = 0; i < times.size(); i++) {
      queue.schedule(times.get(i), 1, null, i);
      expected.add(new long[] {times.get(i), i});
    }
    expected.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
    for (long[] event : expected) {
      assertThat(queue.isEmpty()).isFalse();
      queue.poll();
      assertThat(queue.time).isEqualTo(event[0]);
      assertThat(queue.datum).isEqualTo(event[1]);
    }
    assertThat(queue.isEmpty()).isTrue();
  }

  @Property
  void histogramPercentilesAreWithinTwoPercent(@ForAll @Size(min = 1, max = 200) List<@LongRange(min = 0, max = 100_000_000_000L) Long> nanos) {
    Metrics.LatencyHistogram histogram = new Metrics.LatencyHistogram();
    nanos.forEach(histogram::record);
    List<Long> sorted = new ArrayList<>(nanos);
    sorted.sort(null);
    for (double q : new double[] {0.5, 0.99}) {
      long exact = sorted.get((int) Math.max(0, Math.ceil(q * sorted.size()) - 1)) / 1000 * 1000;
      long estimate = histogram.percentile(q);
      assertThat((double) Math.abs(estimate - exact)).isLessThanOrEqualTo(Math.max(1000, 0.02 * exact));
    }
  }

  @Property
  void exponentialThinkTimesAreNeverNegative(@ForAll long seed) {
    SplitMix64 random = new SplitMix64(seed);
    for (int i = 0; i < 100; i++) {
      assertThat(random.exponentialNanos(10_000_000_000L)).isNotNegative();
      double u = random.nextDouble();
      assertThat(u).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
    }
  }
}
