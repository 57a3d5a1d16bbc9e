package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrimitivesTest {

  @Test
  void splitMixMatchesTheReferenceSequence() {
    // The first outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
    SplitMix64 random = new SplitMix64(0);
    assertThat(random.nextLong()).isEqualTo(0xe220a8397b1dcdafL);
    assertThat(random.nextLong()).isEqualTo(0x6e789e6aa1b965f4L);
    assertThat(random.nextLong()).isEqualTo(0x06c45d188009454fL);
  }

  @Test
  void exponentialVariateIsTheInverseOfItsDistribution() {
    SplitMix64 a = new SplitMix64(42);
    SplitMix64 b = new SplitMix64(42);
    double u = a.nextDouble();
    assertThat(b.exponentialNanos(10_000_000_000L)).isEqualTo((long) (-StrictMath.log(1 - u) * 10_000_000_000L));
  }

  @Test
  void numbersAreFormattedWithoutDoubleToString() {
    assertThat(Values.format(0.1, 6)).isEqualTo("0.100000");
    assertThat(Values.format(2.5, 0)).isEqualTo("3");
    assertThat(Values.format(-1.25, 1)).isEqualTo("-1.3");
    assertThat(Values.format(-0.0001, 2)).isEqualTo("0.00");
    assertThat(Values.format(99.125, 2)).isEqualTo("99.13");
    assertThat(Values.format(Double.NaN, 3)).isEqualTo("null");
    assertThat(Values.format(1e-9, 3)).isEqualTo("0.000");
  }

  @Test
  void durationsParse() {
    assertThat(Values.durationNanos("k", "100ms")).isEqualTo(100_000_000L);
    assertThat(Values.durationNanos("k", "1.5m")).isEqualTo(90_000_000_000L);
    // One rule for flags and files: a bare number is refused, whatever its form.
    assertThatThrownBy(() -> Values.durationNanos("k", 2)).hasMessage("k: '2' has no unit; write 2s (or ms, m, h, ...)");
    assertThatThrownBy(() -> Values.durationNanos("k", "2")).hasMessage("k: '2' has no unit; write 2s (or ms, m, h, ...)");
    assertThatThrownBy(() -> Values.durationNanos("k", 2.5)).hasMessage("k: '2.5' has no unit; write 2.5s (or ms, m, h, ...)");
    assertThat(Values.durationNanos("k", "1d")).isEqualTo(86_400_000_000_000L);
    assertThat(Values.durationNanos("k", "PT1.5S")).isEqualTo(1_500_000_000L);
    assertThat(Values.durationNanos("k", "250us")).isEqualTo(250_000L);
  }

  private static RecoveryRule.Series metrics(long[] goodput, long latencyNanos) {
    double[] latency = new double[goodput.length];
    java.util.Arrays.fill(latency, latencyNanos / 1e9);
    long[] zeros = new long[goodput.length];
    return new RecoveryRule.Series(goodput.clone(), zeros, zeros, zeros, latency);
  }

  @Test
  void recoveryPointIsTheFirstSecondAfterWhichGoodputStaysUp() {
    long[] goodput = new long[60];
    java.util.Arrays.fill(goodput, 100);
    for (int t = 20; t < 30; t++) {
      goodput[t] = 0; // the outage (fault 20..25 s) lasts until 30 s
    }
    RecoveryRule.Series m = metrics(goodput, 100_000_000L);
    assertThat(RecoveryRule.recoveryPoint(m, 25, RecoveryRule.effectiveWindow(10, 100), 100, 0.1)).isEqualTo(30);
    // A relapse below 90% over a window after 40 s moves the point past it.
    for (int t = 40; t < 44; t++) {
      goodput[t] = 50;
    }
    m = metrics(goodput, 100_000_000L);
    // With 16-s windows (1600/100) the windows starting up to 40 s average 87.5-89%, and seconds 41-43
    // are below three quarters of baseline: the recovery point is 44.
    assertThat(RecoveryRule.recoveryPoint(m, 25, RecoveryRule.effectiveWindow(10, 100), 100, 0.1)).isEqualTo(44);
  }

  @Test
  void noRecoveryWhenLatencyStaysHighOrTooLittleRunIsLeft() {
    long[] goodput = new long[60];
    java.util.Arrays.fill(goodput, 100);
    RecoveryRule.Series m = metrics(goodput, 100_000_000L);
    m.latencySeconds()[59] = 0.3; // more than twice the 100 ms baseline at the very end
    assertThat(RecoveryRule.recoveryPoint(m, 25, RecoveryRule.effectiveWindow(10, 100), 100, 0.1)).isEqualTo(-1);
    assertThat(RecoveryRule.recoveryPoint(metrics(goodput, 100_000_000L), 50, RecoveryRule.effectiveWindow(10, 100), 100, 0.1)).isEqualTo(-1);
  }

  @Test
  void theRecoveryWindowGrowsAtLowRates() {
    assertThat(RecoveryRule.effectiveWindow(10, 100)).isEqualTo(16);
    assertThat(RecoveryRule.effectiveWindow(10, 1000)).isEqualTo(10);
    assertThat(RecoveryRule.effectiveWindow(10, 32)).isEqualTo(50);
  }

  @Test
  void contentionReproducesTheArticlesFindings() {
    List<Contention.Row> rows = Contention.run(Map.of("clients", "60", "runs", 8));
    Map<String, Contention.Row> byStrategy = new java.util.HashMap<>();
    rows.forEach(row -> byStrategy.put(row.strategy(), row));
    double none = byStrategy.get("none").calls();
    double exponential = byStrategy.get("exponential").calls();
    double full = byStrategy.get("full-jitter").calls();
    double equal = byStrategy.get("equal-jitter").calls();
    double decorrelated = byStrategy.get("decorrelated").calls();
    // Jitter needs far fewer calls than no jitter; full jitter is among the cheapest.
    assertThat(full).isLessThan(0.75 * exponential);
    assertThat(decorrelated).isLessThan(0.8 * exponential);
    assertThat(equal).isLessThan(0.8 * exponential);
    assertThat(exponential).isLessThan(none);
    assertThat(full).isLessThanOrEqualTo(1.1 * Math.min(equal, decorrelated));
    // Without jitter the clients collide again and again: it takes the longest.
    double exponentialTime = byStrategy.get("exponential").timeMs();
    assertThat(byStrategy.get("full-jitter").timeMs()).isLessThan(exponentialTime / 3);
    assertThat(byStrategy.get("decorrelated").timeMs()).isLessThan(byStrategy.get("equal-jitter").timeMs());
    // Every client wrote exactly once: at least N calls.
    assertThat(full).isGreaterThanOrEqualTo(60);
  }

  @Test
  void contentionWithOneClientTakesOneReadAndOneWrite() {
    List<Contention.Row> rows = Contention.run(Map.of("clients", "1", "runs", 1, "strategies", "full-jitter",
        "network-deviation", "0s"));
    assertThat(rows.get(0).calls()).isEqualTo(1.0);
    // Read request, read reply, write request, write reply: four 10 ms messages.
    assertThat(rows.get(0).timeMs()).isEqualTo(40.0);
  }
}
