package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Scale;

/**
 * The adaptive hedging delay over random latencies and random sequences of first attempts and hedges: the delay
 * always lies within its bounds and, once warm, is the nearest-rank quantile of the window's latencies rounded
 * up to its bucket (never below it, less than 1/16 above it, before the bounds); the hedges the extra-load cap
 * lets go never exceed maxExtraLoad times the first attempts, after any prefix of any sequence.
 */
class AdaptiveHedgeDelayProperties {

  @Provide
  Arbitrary<List<Long>> latencies() {
    return Arbitraries.oneOf(Arbitraries.longs().between(0, 200), Arbitraries.longs().between(0, 5_000_000_000L),
        Arbitraries.longs().between(0, Long.MAX_VALUE)).list().ofMinSize(1).ofMaxSize(300);
  }

  @Property(tries = 300)
  void theDelayStaysWithinItsBoundsAndIsTheWindowsQuantile(@ForAll("latencies") List<Long> latencies,
      @ForAll @DoubleRange(min = 0.01, max = 0.99) double quantile, @ForAll @IntRange(min = 10, max = 120) int window,
      @ForAll @IntRange(min = 0, max = 3_000_000) int minNanos, @ForAll @IntRange(min = 0, max = 3_000_000) int span) {
    long min = minNanos;
    long max = minNanos + (long) span;
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().quantile(quantile).window(window).warmUp(1)
        .bounds(Duration.ofNanos(min), Duration.ofNanos(max)).build();
    AdaptiveHedgeDelay unbounded = AdaptiveHedgeDelay.builder().quantile(quantile).window(window).warmUp(1)
        .bounds(Duration.ZERO, Duration.ofNanos(Long.MAX_VALUE)).build();
    int recorded = 0;
    for (long latency : latencies) {
      delay.record(latency);
      unbounded.record(latency);
      recorded++;
      assertThat(delay.delayNanos()).isBetween(min, max);
      if (window < 50) { // recomputed at every latency: compare with the sorted window
        long[] last = latencies.subList(Math.max(0, recorded - window), recorded).stream().mapToLong(Long::longValue)
            .sorted().toArray();
        // Latencies from 2^41 ns (36 minutes) on count as 2^41 - 1, the last bucket's bound.
        long exact = Math.min((1L << 41) - 1, last[(int) Math.max(1, Math.ceil(quantile * last.length)) - 1]);
        long got = unbounded.delayNanos();
        assertThat(got).as("%s in %s", quantile, Arrays.toString(last)).isGreaterThanOrEqualTo(exact);
        assertThat(got - exact).isLessThanOrEqualTo(exact / 16);
        assertThat(delay.delayNanos()).isEqualTo(Math.max(min, Math.min(max, got)));
      }
    }
  }

  @Property(tries = 300)
  void hedgesNeverExceedTheirShareOfFirstAttempts(@ForAll List<Boolean> firstAttemptOrHedge,
      @ForAll @DoubleRange(min = 0.001, max = 1.0) @Scale(4) double maxExtraLoad,
      @ForAll @IntRange(min = 10, max = 2000) int window) {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().maxExtraLoad(maxExtraLoad).window(window).build();
    long firsts = 0;
    long sent = 0;
    for (boolean first : firstAttemptOrHedge) {
      if (first) {
        delay.firstAttemptStarted();
        firsts++;
      } else if (delay.tryHedge()) {
        sent++;
      }
      // Credits are whole millionths of a token, rounded to the nearest: allow that rounding.
      assertThat((double) sent).isLessThanOrEqualTo(firsts * (maxExtraLoad + 0.5e-6));
    }
    assertThat(delay.hedgesSent()).isEqualTo(sent);
  }
}
