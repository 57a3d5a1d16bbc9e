package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.AdaptiveHedgeDelay;
import dev.backoff.Hedging;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code +hedge:pNN[:MAX][:KEY=VALUE...]}: the adaptive delay in the one spec language. */
class PolicySpecHedgeTest {
  private static final long MS = 1_000_000;

  @Test
  void aQuantileTakesTheCoreDefaultsAndBuildsAFreshAdaptiveDelay() {
    PolicySpec.Hedge hedge = PolicySpec.parse("fixed+hedge:p95").hedge();
    assertThat(hedge).isEqualTo(new PolicySpec.Hedge(10_000 * MS, 1,
        new PolicySpec.AdaptiveHedge(0.95, MS, 10_000 * MS, 10_000 * MS, 0.05, 1000, 100)));
    Hedging hedging = hedge.hedging();
    AdaptiveHedgeDelay delay = hedging.adaptiveDelay();
    AdaptiveHedgeDelay core = AdaptiveHedgeDelay.builder().build();
    assertThat(delay.toString()).isEqualTo(core.toString());
    assertThat(delay.window()).isEqualTo(core.window());
    assertThat(delay.warmUp()).isEqualTo(core.warmUp());
    assertThat(hedging.maxHedges()).isEqualTo(1);
    assertThat(hedge.hedging().adaptiveDelay()).as("one per policy built").isNotSameAs(delay);
  }

  @Test
  void maxHedgesThenKeysInAnyOrder() {
    PolicySpec.Hedge hedge = PolicySpec.parse("fixed+hedge:p99.9:2:window=200:max-extra-load=0.1:min-delay=5ms:"
        + "max-delay=2s:initial-delay=100ms:warm-up=50").hedge();
    assertThat(hedge).isEqualTo(new PolicySpec.Hedge(100 * MS, 2,
        new PolicySpec.AdaptiveHedge(0.999, 5 * MS, 2000 * MS, 100 * MS, 0.1, 200, 50)));
    assertThat(PolicySpec.parse("fixed+hedge:p50:window=20").hedge().adaptive().warmUp())
        .as("the warm-up defaults to the window when it is smaller than 100").isEqualTo(20);
    AdaptiveHedgeDelay delay = hedge.hedging().adaptiveDelay();
    assertThat(delay.quantile()).isEqualTo(0.999);
    assertThat(delay.initialDelay().toMillis()).isEqualTo(100);
    assertThat(delay.maxExtraLoad()).isEqualTo(0.1);
  }

  @Test
  void theCanonicalFormIsShortestAndParsesBack() {
    Map<String, String> canonical = new LinkedHashMap<>();
    canonical.put("+hedge:50ms", "+hedge:50ms");
    canonical.put("+hedge:0.05s:2", "+hedge:50ms:2");
    canonical.put("+hedge:p95", "+hedge:p95");
    canonical.put("+hedge:p95.0:1:max-delay=10s:warm-up=100", "+hedge:p95");
    canonical.put("+hedge:p99.9:3:warm-up=10:max-extra-load=0.10:max-delay=1000ms:initial-delay=1s",
        "+hedge:p99.9:3:max-delay=1s:max-extra-load=0.1:warm-up=10");
    canonical.put("+hedge:p50:window=20:min-delay=0s", "+hedge:p50:min-delay=0s:window=20");
    canonical.forEach((text, expected) -> {
      PolicySpec.Hedge parsed = PolicySpec.parse("fixed" + text).hedge();
      assertThat(parsed.canonical()).as(text).isEqualTo(expected);
      assertThat(PolicySpec.parse("fixed" + parsed.canonical()).hedge()).as(text).isEqualTo(parsed);
    });
  }

  @Test
  void settingsOneByOneAreTheSuffixsKeys() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("delay", "p90");
    settings.put("max-hedges", "2");
    settings.put("max-extra-load", "0.2");
    settings.put("window", null);
    assertThat(PolicySpec.Hedge.of(settings)).isEqualTo(PolicySpec.parse("x+hedge:p90:2:max-extra-load=0.2").hedge());
    assertThat(PolicySpec.Hedge.of(Map.of("delay", "50ms"))).isEqualTo(new PolicySpec.Hedge(50 * MS, 1));
    assertThatThrownBy(() -> PolicySpec.Hedge.of(Map.of("delay", "p95", "windw", "20")))
        .hasMessage("hedge parameter 'windw': unknown; did you mean 'window'?; known: min-delay, max-delay, "
            + "initial-delay, max-extra-load, window, warm-up");
  }

  @Test
  void badParametersAreNamed() {
    assertBad("fixed+hedge:p100", "hedge quantile 'p100': out of range (p0..p100, both excluded)");
    assertBad("fixed+hedge:p0", "hedge quantile 'p0': out of range (p0..p100, both excluded)");
    assertBad("fixed+hedge:pxx", "hedge quantile 'pxx': not pNN (such as p95 or p99.9)");
    assertBad("fixed+hedge:p95:11", "hedge max-hedges '11': out of range (1..10)");
    assertBad("fixed+hedge:p95:max-extra-lod=0.1", "hedge parameter 'max-extra-lod': unknown; did you mean "
        + "'max-extra-load'?; known: min-delay, max-delay, initial-delay, max-extra-load, window, warm-up");
    assertBad("fixed+hedge:p95:2:3", "hedge parameter '3': unknown; known: min-delay, max-delay, initial-delay, "
        + "max-extra-load, window, warm-up (max-hedges comes right after the quantile)");
    assertBad("fixed+hedge:p95:window", "hedge window needs a value, such as window=100");
    assertBad("fixed+hedge:p95:window=5", "hedge window '5': out of range (10..1000000)");
    assertBad("fixed+hedge:p95:window=10:window=20", "hedge window is given twice");
    assertBad("fixed+hedge:p95:window=20:warm-up=21", "hedge warm-up '21': out of range (1..20)");
    assertBad("fixed+hedge:p95:max-extra-load=0", "hedge max-extra-load '0': out of range (0..1]");
    assertBad("fixed+hedge:p95:max-extra-load=lots", "hedge max-extra-load 'lots': not a number");
    assertBad("fixed+hedge:p95:min-delay=-1ms", "hedge min-delay '-1ms': duration must not be negative, was '-1ms'");
    assertBad("fixed+hedge:p95:min-delay=2s:max-delay=1s", "hedge min-delay 2s must not exceed max-delay 1s");
    assertBad("fixed+hedge:p95:initial-delay=20s", "hedge initial-delay 20s must lie within min-delay 1ms and "
        + "max-delay 10s");
    assertBad("fixed+hedge:50ms:window=20", "hedge window=20: keys apply to a quantile's delay "
        + "(+hedge:p95:window=20)");
  }

  private static void assertBad(String policy, String message) {
    assertThatThrownBy(() -> PolicySpec.parse(policy)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad policy '" + policy + "': " + message);
  }
}
