package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

class KneeLatencyTest {
  private final KneeLatency seed = KneeLatency.stormExperiment();

  @Example
  void baseUpToTheKneeInclusive() {
    assertThat(seed.delayNanos(0)).isEqualTo(100_000_000L);
    assertThat(seed.delayNanos(30)).isEqualTo(100_000_000L);
    assertThat(seed.delayNanos(31)).isGreaterThan(100_000_000L);
  }

  @Example
  void exactValueOneStepOfKAboveTheKnee() {
    // c − limit = K: one full factor.
    assertThat(seed.delayNanos(45)).isEqualTo((long) (100_000_000L * 1.05));
    KneeLatency doubling = KneeLatency.of(Duration.ofMillis(10), 5, 2, 1);
    assertThat(doubling.delay(8)).isEqualTo(Duration.ofMillis(80));
  }

  @Example
  void reproducesTheSeedsPublishedLatencies() {
    // The seed's server printed these for the concurrencies it saw after resuming.
    assertThat(seed.delayNanos(1040) / 1e9).isCloseTo(2.671444385, within(1e-6));
    assertThat(seed.delayNanos(1599) / 1e9).isCloseTo(16.458895305, within(1e-5));
    assertThat(seed.delayNanos(1925) / 1e9).isCloseTo(47.524196455, within(1e-4));
    assertThat(seed.delayNanos(2231) / 1e9).isCloseTo(128.580906589, within(1e-3));
  }

  @Example
  void saturatesInsteadOfOverflowing() {
    assertThat(seed.delayNanos(Integer.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
  }

  @Example
  void tippingPointForTheSeedsTimeout() {
    int tip = seed.concurrencyAbove(Duration.ofSeconds(2));
    assertThat(seed.delayNanos(tip)).isGreaterThan(2_000_000_000L);
    assertThat(seed.delayNanos(tip - 1)).isLessThanOrEqualTo(2_000_000_000L);
    assertThat(tip).isBetween(940, 960);
    assertThat(seed.concurrencyAbove(Duration.ofMillis(50))).isZero();
    assertThat(KneeLatency.of(Duration.ofMillis(1), 0, 1, 1).concurrencyAbove(Duration.ofSeconds(1)))
        .isEqualTo(Integer.MAX_VALUE);
  }

  @Example
  void badParametersAreNamed() {
    assertThatThrownBy(() -> KneeLatency.of(Duration.ZERO, 30, 1.05, 15)).hasMessageContaining("base");
    assertThatThrownBy(() -> KneeLatency.of(Duration.ofMillis(100), -1, 1.05, 15))
        .hasMessageContaining("limit").hasMessageContaining("-1");
    assertThatThrownBy(() -> KneeLatency.of(Duration.ofMillis(100), 30, 0.5, 15))
        .hasMessageContaining("factor").hasMessageContaining("0.5");
    assertThatThrownBy(() -> KneeLatency.of(Duration.ofMillis(100), 30, Double.NaN, 15))
        .hasMessageContaining("factor");
    assertThatThrownBy(() -> KneeLatency.of(Duration.ofMillis(100), 30, 1.05, 0)).hasMessageContaining("k");
    assertThatThrownBy(() -> seed.delayNanos(-1)).hasMessageContaining("concurrency");
  }

  @Property
  void neverBelowBaseAndNonDecreasing(@ForAll @IntRange(min = 0, max = 1_000_000) int concurrency,
      @ForAll @DoubleRange(min = 1, max = 10) double factor, @ForAll @DoubleRange(min = 0.1, max = 100) double k) {
    KneeLatency model = KneeLatency.of(Duration.ofMillis(100), 30, factor, k);
    long here = model.delayNanos(concurrency);
    assertThat(here).isGreaterThanOrEqualTo(100_000_000L);
    assertThat(model.delayNanos(concurrency + 1)).isGreaterThanOrEqualTo(here);
  }
}
