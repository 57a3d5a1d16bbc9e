package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.ConcurrencyLimiter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PolicySpecConcurrencyTest {
  private static final long S = 1_000_000_000L;

  @Test
  void aBareSuffixIsTheGradientLimiterWithTheCoreDefaults() {
    PolicySpec spec = PolicySpec.parse("full-jitter+concurrency");
    assertThat(spec.concurrency()).isEqualTo(PolicySpec.Concurrency.DEFAULT);
    assertThat(spec.concurrency()).isEqualTo(
        new PolicySpec.Concurrency("gradient", 20, 1, 1000, 0.8, 0.9, 5 * S, 0.2, 4, 30 * S));
    assertThat(PolicySpec.parse("full-jitter").concurrency()).isNull();
    ConcurrencyLimiter built = spec.concurrency().builder().build();
    assertThat(built.toString()).isEqualTo(ConcurrencyLimiter.gradient().build().toString());
  }

  @Test
  void eachAlgorithmTakesItsKeys() {
    assertThat(PolicySpec.parse("fixed+concurrency:aimd:max=200:latency-threshold=2s:backoff-ratio=0.5").concurrency())
        .isEqualTo(new PolicySpec.Concurrency("aimd", 20, 1, 200, 0.8, 0.5, 2 * S, 0.2, 4, 30 * S));
    assertThat(PolicySpec.parse("fixed+Concurrency:Fixed=20:Retry-Share=0.5").concurrency())
        .isEqualTo(new PolicySpec.Concurrency("fixed", 20, 20, 20, 0.5, 0.9, 5 * S, 0.2, 4, 30 * S));
    assertThat(PolicySpec.parse("fixed+concurrency:min=5:initial=8:smoothing=1:queue-allowance=0:min-rtt-window=1m")
        .concurrency())
        .isEqualTo(new PolicySpec.Concurrency("gradient", 8, 5, 1000, 0.8, 0.9, 5 * S, 1, 0, 60 * S));
    // Without initial, the default 20 is moved within the bounds rather than refused.
    assertThat(PolicySpec.parse("fixed+concurrency:max=10").concurrency().initialLimit()).isEqualTo(10);
    assertThat(PolicySpec.parse("fixed+concurrency:min=50").concurrency().initialLimit()).isEqualTo(50);
  }

  @Test
  void theBuilderMakesTheLimiterItDescribes() {
    ConcurrencyLimiter fixed = PolicySpec.parse("x+concurrency:fixed=2:retry-share=1").concurrency().builder().build();
    assertThat(fixed.limit()).isEqualTo(2);
    assertThat(fixed.retryShare()).isEqualTo(1.0);
    assertThat(fixed.tryAcquire(ConcurrencyLimiter.AttemptKind.RETRY)).isNotNull();
    assertThat(fixed.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST)).isNotNull();
    assertThat(fixed.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST)).isNull();

    AtomicLong now = new AtomicLong();
    ConcurrencyLimiter aimd = PolicySpec.parse("x+concurrency:aimd:initial=10:min=4:max=30:backoff-ratio=0.5")
        .concurrency().builder().clock(now::get).build();
    assertThat(aimd.limit()).isEqualTo(10);
    assertThat(aimd.minLimit()).isEqualTo(4);
    assertThat(aimd.maxLimit()).isEqualTo(30);
    aimd.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST).onDropped();
    assertThat(aimd.limit()).isEqualTo(5); // 10 × 0.5
    aimd.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST).onDropped();
    assertThat(aimd.limit()).isEqualTo(4); // floor(2.5) held at min 4

    ConcurrencyLimiter threshold = PolicySpec.parse("x+concurrency:aimd:latency-threshold=1s").concurrency()
        .builder().clock(now::get).build();
    ConcurrencyLimiter.Permit slow = threshold.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
    now.addAndGet(S + 1);
    slow.onSuccess(); // slower than 1s: a drop, 20 × 0.9
    assertThat(threshold.limit()).isEqualTo(18);
  }

  @Test
  void theCanonicalFormIsShortestAndParsesBack() {
    Map<String, String> canonical = new LinkedHashMap<>();
    canonical.put("+concurrency", "+concurrency");
    canonical.put("+concurrency:gradient", "+concurrency");
    canonical.put("+concurrency:gradient:initial=20:max=1000:retry-share=0.80", "+concurrency");
    canonical.put("+concurrency:aimd:latency-threshold=2000ms:max=200", "+concurrency:aimd:max=200:latency-threshold=2s");
    canonical.put("+concurrency:fixed=20:retry-share=0.5", "+concurrency:fixed=20:retry-share=0.5");
    canonical.put("+concurrency:max=10", "+concurrency:max=10");
    canonical.put("+concurrency:max=10:initial=5", "+concurrency:initial=5:max=10");
    canonical.put("+concurrency:min-rtt-window=1m30s:queue-allowance=2.5:smoothing=0.25:min=2:backoff-ratio=0.75",
        "+concurrency:min=2:backoff-ratio=0.75:smoothing=0.25:queue-allowance=2.5:min-rtt-window=90s");
    canonical.forEach((text, expected) -> {
      PolicySpec.Concurrency parsed = PolicySpec.parse("fixed" + text).concurrency();
      assertThat(parsed.canonical()).as(text).isEqualTo(expected);
      assertThat(PolicySpec.parse("fixed" + parsed.canonical()).concurrency()).as(text).isEqualTo(parsed);
    });
  }

  @Test
  void settingsOneByOneAreTheSuffixsKeys() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("algorithm", "aimd");
    settings.put("max", "200");
    settings.put("latency-threshold", null);
    assertThat(PolicySpec.Concurrency.of(settings)).isEqualTo(PolicySpec.parse("x+concurrency:aimd:max=200").concurrency());
    assertThat(PolicySpec.Concurrency.of(Map.of())).isEqualTo(PolicySpec.Concurrency.DEFAULT);
    assertThat(PolicySpec.Concurrency.of(Map.of("algorithm", "fixed", "limit", "7")).maxLimit()).isEqualTo(7);
    assertThatThrownBy(() -> PolicySpec.Concurrency.of(Map.of("max", "0")))
        .hasMessage("concurrency max '0': out of range (1..65536)");
    assertThatThrownBy(() -> PolicySpec.Concurrency.of(Map.of("algorithm", "fixed")))
        .hasMessage("concurrency fixed needs a limit, such as +concurrency:fixed=20");
    assertThatThrownBy(() -> PolicySpec.Concurrency.of(Map.of("algorithm", "aimd", "limit", "7")))
        .hasMessage("concurrency limit applies to the fixed algorithm only (the aimd algorithm takes initial, min "
            + "and max)");
  }

  @Test
  void badParametersAreNamed() {
    List<String[]> cases = List.of(
        new String[] {"fixed+concurency", "unknown suffix '+concurency'; did you mean '+concurrency'?; use +budget, "
            + "+breaker[:rate%:window:wait:trials], +adaptive[:wait|fail|max-wait], +hedge:delay|pNN[:max-hedges][:key=value...], "
            + "+concurrency[:gradient|aimd|fixed=n][:key=value...]"},
        new String[] {"fixed+concurrency+concurrency", "+concurrency is given twice"},
        new String[] {"fixed+concurrency:vegas", "concurrency algorithm 'vegas': unknown; use gradient, aimd or fixed=N"},
        new String[] {"fixed+concurrency:aimdd", "concurrency algorithm 'aimdd': unknown; did you mean 'aimd'?; use "
            + "gradient, aimd or fixed=N"},
        new String[] {"fixed+concurrency:fixed", "concurrency fixed needs a limit, such as +concurrency:fixed=20"},
        new String[] {"fixed+concurrency:fixed=0", "concurrency fixed '0': out of range (1..65536)"},
        new String[] {"fixed+concurrency:fixed=2.5", "concurrency fixed '2.5': not a whole number"},
        new String[] {"fixed+concurrency:aimd=3", "concurrency algorithm 'aimd=3' takes no value (only fixed=N does)"},
        new String[] {"fixed+concurrency:maxx=3", "concurrency parameter 'maxx': unknown; did you mean 'max'?; known: "
            + "initial, min, max, retry-share, backoff-ratio, latency-threshold, smoothing, queue-allowance, "
            + "min-rtt-window"},
        new String[] {"fixed+concurrency:max=3:aimd", "concurrency parameter 'aimd': unknown; known: initial, min, "
            + "max, retry-share, backoff-ratio, latency-threshold, smoothing, queue-allowance, min-rtt-window (the "
            + "algorithm comes first)"},
        new String[] {"fixed+concurrency:max", "concurrency max needs a value, such as max=20"},
        new String[] {"fixed+concurrency::max=3", "concurrency: an empty parameter; write KEY=VALUE (initial, min, "
            + "max, retry-share, backoff-ratio, latency-threshold, smoothing, queue-allowance, min-rtt-window)"},
        new String[] {"fixed+concurrency:max=3:max=4", "concurrency max is given twice"},
        new String[] {"fixed+concurrency:max=70000", "concurrency max '70000': out of range (1..65536)"},
        new String[] {"fixed+concurrency:min=10:max=5", "concurrency min 10 must not exceed max 5"},
        new String[] {"fixed+concurrency:initial=50:max=10", "concurrency initial 50 must lie within min 1 and max 10"},
        new String[] {"fixed+concurrency:retry-share=0", "concurrency retry-share '0': out of range (0..1]"},
        new String[] {"fixed+concurrency:retry-share=half", "concurrency retry-share 'half': not a number"},
        new String[] {"fixed+concurrency:backoff-ratio=1", "concurrency backoff-ratio '1': out of range (0..1)"},
        new String[] {"fixed+concurrency:smoothing=1.5", "concurrency smoothing '1.5': out of range (0..1]"},
        new String[] {"fixed+concurrency:queue-allowance=-1", "concurrency queue-allowance '-1': out of range [0..65536]"},
        new String[] {"fixed+concurrency:min-rtt-window=0s", "concurrency min-rtt-window '0s': must be positive"},
        new String[] {"fixed+concurrency:min-rtt-window=30", "concurrency min-rtt-window '30': '30' has no unit; "
            + "write 30s (or ms, m, h, ...)"},
        new String[] {"fixed+concurrency:latency-threshold=1s", "concurrency latency-threshold does not apply to the "
            + "gradient algorithm (only to aimd)"},
        new String[] {"fixed+concurrency:aimd:smoothing=0.5", "concurrency smoothing does not apply to the aimd "
            + "algorithm (only to gradient)"},
        new String[] {"fixed+concurrency:fixed=5:max=10", "concurrency max does not apply to the fixed algorithm "
            + "(its limit is fixed=N)"});
    for (String[] c : cases) {
      assertThatThrownBy(() -> PolicySpec.parse(c[0])).as(c[0]).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("bad policy '" + c[0] + "': " + c[1]);
    }
  }

  @Test
  void hedgesAndAConcurrencyLimiterCombine() {
    PolicySpec spec = PolicySpec.parse("fixed+concurrency:fixed=5+hedge:50ms");
    // The limiter is the caller's to attach (one per fleet, per client): the policy takes both.
    dev.backoff.RetryPolicy<Object> policy = spec.builder()
        .concurrencyLimiter(spec.concurrency().builder().build()).build();
    assertThat(policy.hedging()).isNotNull();
    assertThat(policy.concurrencyLimiter().limit()).isEqualTo(5);
  }
}
