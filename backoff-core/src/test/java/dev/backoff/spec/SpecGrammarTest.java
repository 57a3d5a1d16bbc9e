package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.Preset;
import dev.backoff.RetryBudget;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every form of the strategy, budget and policy grammar, and every error naming the bad part. */
class SpecGrammarTest {
  private static final Duration MS100 = Duration.ofMillis(100);
  private static final Duration UNBOUNDED = Duration.ofSeconds(Long.MAX_VALUE);

  private static String described(String spec) {
    return BackoffSpec.parse(spec).toBackoff().toString();
  }

  @Test
  void bareNamesTakeTheDocumentedDefaults() {
    assertThat(described("none")).isEqualTo(Backoff.none().toString());
    assertThat(described("fixed")).isEqualTo(Backoff.fixed(MS100).toString());
    assertThat(described("linear")).isEqualTo(Backoff.linear(MS100, MS100, UNBOUNDED).toString());
    assertThat(described("exponential")).isEqualTo(Backoff.exponential(MS100, 2, UNBOUNDED).toString());
    // The documented 20 s cap of jittered strategies, the library's default policy's.
    assertThat(described("full-jitter"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20), Jitter.full()).toString());
    assertThat(described("equal-jitter"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20), Jitter.equal()).toString());
    assertThat(described("proportional"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20), Jitter.proportional(0.5)).toString());
    assertThat(described("gaussian"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20), Jitter.gaussian(0.1)).toString());
    assertThat(described("decorrelated")).isEqualTo(Backoff.decorrelated(MS100, Duration.ofSeconds(20)).toString());
    assertThat(described("decorrelated-v2"))
        .isEqualTo(Backoff.decorrelatedV2(MS100, Duration.ofSeconds(20)).toString());
    assertThat(BackoffSpec.parse("Full-Jitter").name()).isEqualTo("full-jitter");
  }

  @Test
  void everyColonForm() {
    assertThat(described("fixed:250ms")).isEqualTo(Backoff.fixed(Duration.ofMillis(250)).toString());
    assertThat(described("linear:100ms:50ms:5s"))
        .isEqualTo(Backoff.linear(MS100, Duration.ofMillis(50), Duration.ofSeconds(5)).toString());
    assertThat(described("exponential:100ms:2:20s:full"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20), Jitter.full()).toString());
    assertThat(described("exponential:100ms:2:20s:equal"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20), Jitter.equal()).toString());
    assertThat(described("exponential:100ms:2:20s:none"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20)).toString());
    assertThat(described("exponential:100ms:2.718:5m:gaussian=0.1"))
        .isEqualTo(Backoff.exponential(MS100, 2.718, Duration.ofMinutes(5), Jitter.gaussian(0.1)).toString());
    assertThat(described("exponential:1s:1.5:1m:proportional=0.5"))
        .isEqualTo(Backoff.exponential(Duration.ofSeconds(1), 1.5, Duration.ofMinutes(1), Jitter.proportional(0.5))
            .toString());
    assertThat(described("exponential:1s")).isEqualTo(Backoff.exponential(Duration.ofSeconds(1), 2, UNBOUNDED).toString());
    assertThat(described("exponential:100ms::20s"))
        .isEqualTo(Backoff.exponential(MS100, 2, Duration.ofSeconds(20)).toString());
    assertThat(described("full-jitter:200ms:5s"))
        .isEqualTo(Backoff.exponential(Duration.ofMillis(200), 2, Duration.ofSeconds(5), Jitter.full()).toString());
    assertThat(described("equal-jitter:200ms:5s"))
        .isEqualTo(Backoff.exponential(Duration.ofMillis(200), 2, Duration.ofSeconds(5), Jitter.equal()).toString());
    assertThat(described("proportional:1s:1.5:1m:0.25"))
        .isEqualTo(Backoff.exponential(Duration.ofSeconds(1), 1.5, Duration.ofMinutes(1), Jitter.proportional(0.25))
            .toString());
    assertThat(described("gaussian:1s:3:1m:0.2"))
        .isEqualTo(Backoff.exponential(Duration.ofSeconds(1), 3, Duration.ofMinutes(1), Jitter.gaussian(0.2)).toString());
    assertThat(described("decorrelated:50ms:10s"))
        .isEqualTo(Backoff.decorrelated(Duration.ofMillis(50), Duration.ofSeconds(10)).toString());
    assertThat(described("decorrelated-v2:50ms:10s"))
        .isEqualTo(Backoff.decorrelatedV2(Duration.ofMillis(50), Duration.ofSeconds(10)).toString());
    BackoffSpec googleCloud = BackoffSpec.parse("google-cloud:64s");
    assertThat(googleCloud.isPreset()).isFalse();
    assertThat(googleCloud.toBackoff().toString()).isEqualTo(Backoff.googleCloud(Duration.ofSeconds(64)).toString());
  }

  @Test
  void presetsByIdKeepTheirValues() {
    for (Preset preset : Preset.values()) {
      BackoffSpec spec = BackoffSpec.parse(preset.id());
      assertThat(spec.isPreset()).isTrue();
      assertThat(spec.preset()).isSameAs(preset);
      assertThat(spec.toBackoff()).isSameAs(preset.backoff());
    }
    assertThat(BackoffSpec.names()).contains("exponential", "full-jitter", "google-cloud", "aws-standard")
        .doesNotHaveDuplicates();
  }

  @Test
  void errorsNameTheBadPart() {
    assertThatThrownBy(() -> BackoffSpec.parse("expo")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown strategy 'expo'; did you mean 'exponential'?; known: none, fixed, linear, exponential");
    assertThatThrownBy(() -> BackoffSpec.parse("fixed:1s:2s"))
        .hasMessage("bad strategy 'fixed:1s:2s': fixed takes at most 1 parameter (fixed[:DELAY])");
    assertThatThrownBy(() -> BackoffSpec.parse("exponential:100ms:x:20s"))
        .hasMessage("bad strategy 'exponential:100ms:x:20s': multiplier 'x': not a number");
    assertThatThrownBy(() -> BackoffSpec.parse("exponential:100ms:0.5"))
        .hasMessage("bad strategy 'exponential:100ms:0.5': multiplier '0.5': multiplier must be a finite number >= 1, was 0.5");
    assertThatThrownBy(() -> BackoffSpec.parse("exponential:100:2:20s"))
        .hasMessage("bad strategy 'exponential:100:2:20s': initial '100': '100' has no unit; write 100s (or ms, m, h, ...)");
    assertThatThrownBy(() -> BackoffSpec.parse("exponential:100ms:2:20s:fuzzy"))
        .hasMessage("bad strategy 'exponential:100ms:2:20s:fuzzy': jitter 'fuzzy': unknown jitter; use none, full, "
            + "equal, proportional=F or gaussian=F");
    assertThatThrownBy(() -> BackoffSpec.parse("exponential:100ms:2:20s:gaussian"))
        .hasMessageContaining("gaussian jitter needs a factor: gaussian=F");
    assertThatThrownBy(() -> BackoffSpec.parse("exponential:100ms:2:20s:gaussian=2"))
        .hasMessageContaining("jitter 'gaussian=2': jitter factor must be in (0, 1], was 2.0");
    assertThatThrownBy(() -> BackoffSpec.parse("full-jitter:1s:100ms"))
        .hasMessage("bad strategy 'full-jitter:1s:100ms': cap 100ms is below initial 1s");
    assertThatThrownBy(() -> BackoffSpec.parse("full-jitter:0s"))
        .hasMessage("bad strategy 'full-jitter:0s': initial must be positive for full-jitter, was 0s (fixed:0s or none "
            + "retry at once)");
    assertThat(described("fixed:0s")).isEqualTo(Backoff.fixed(Duration.ZERO).toString());
    assertThatThrownBy(() -> BackoffSpec.parse("decorrelated:30s"))
        .hasMessage("bad strategy 'decorrelated:30s': cap 20s is below base 30s");
    assertThatThrownBy(() -> BackoffSpec.parse("aws-standard:1s"))
        .hasMessage("bad strategy 'aws-standard:1s': the preset 'aws-standard' takes no parameters (its values are fixed)");
    assertThatThrownBy(() -> BackoffSpec.of("aws-standard").cap(Duration.ofSeconds(1)).toBackoff())
        .hasMessageContaining("cap does not apply to strategy 'aws-standard'");
    assertThatThrownBy(() -> BackoffSpec.of("full-jitter").jitter(0.3).toBackoff())
        .hasMessageContaining("jitter does not apply to strategy 'full-jitter'");
    assertThatThrownBy(() -> BackoffSpec.parse(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void budgetsTakeRetryBudgetsDefaults() {
    assertThat(BudgetSpec.parse("token-bucket").kind()).isEqualTo("token-bucket");
    assertThat(BudgetSpec.parse("aws").kind()).isEqualTo("token-bucket");
    RetryBudget bucket = BudgetSpec.parse("token-bucket").create(() -> 0L);
    assertThat(bucket.toString()).isEqualTo(dev.backoff.RetryBudgets.awsStandard().toString());
    assertThat(BudgetSpec.parse("token-bucket:100:1:2").create(() -> 0L).toString())
        .isEqualTo(dev.backoff.RetryBudgets.tokenBucket().capacity(100).retryCost(1)
            .retryCost(dev.backoff.FailureClass.TIMEOUT, 2).build().toString());
    assertThat(BudgetSpec.parse("grpc").create(() -> 0L).toString())
        .isEqualTo(dev.backoff.RetryBudgets.grpcThrottling().toString());
    assertThat(BudgetSpec.parse("grpc:20:0.5").kind()).isEqualTo("grpc");
    assertThat(BudgetSpec.parse("ratio").create(() -> 0L).toString()).contains("0.2", "10");
    assertThat(BudgetSpec.parse("ratio:0.1:5:30s").create(() -> 0L).toString()).contains("0.1", "5");
    assertThat(BudgetSpec.parse("ratio::5").kind()).isEqualTo("ratio");
  }

  @Test
  void budgetErrorsNameTheBadPart() {
    assertThatThrownBy(() -> BudgetSpec.parse("leaky")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown budget 'leaky'; use token-bucket[:capacity:cost:timeout-cost], "
            + "grpc[:max-tokens:token-ratio], ratio[:ratio:min-per-second:window]");
    assertThatThrownBy(() -> BudgetSpec.parse("grpc:1:2:3"))
        .hasMessage("bad budget 'grpc:1:2:3': grpc takes at most 2 parameters (grpc[:max-tokens:token-ratio])");
    assertThatThrownBy(() -> BudgetSpec.parse("token-bucket:lots"))
        .hasMessage("bad budget 'token-bucket:lots': capacity 'lots': not a whole number");
    assertThatThrownBy(() -> BudgetSpec.parse("token-bucket:0"))
        .hasMessage("bad budget 'token-bucket:0': capacity '0': out of range (1..9223372036854775807)");
    assertThatThrownBy(() -> BudgetSpec.parse("grpc:2000"))
        .hasMessage("bad budget 'grpc:2000': max-tokens '2000': out of range (1..1000)");
    assertThatThrownBy(() -> BudgetSpec.parse("ratio:0.2:10:10"))
        .hasMessage("bad budget 'ratio:0.2:10:10': window '10': '10' has no unit; write 10s (or ms, m, h, ...)");
    assertThatThrownBy(() -> BudgetSpec.parse("token-bucket:10:20"))
        .hasMessageStartingWith("bad budget 'token-bucket:10:20': retryCost must not exceed capacity 10");
  }

  @Test
  void policySpecSplitsTheBudgetSuffix() {
    PolicySpec spec = PolicySpec.parse(" Full-Jitter:100ms:20s+budget ");
    assertThat(spec.text()).isEqualTo("Full-Jitter:100ms:20s+budget");
    assertThat(spec.base()).isEqualTo("full-jitter:100ms:20s");
    assertThat(spec.withBudget()).isTrue();
    assertThat(spec.strategy().name()).isEqualTo("full-jitter");
    assertThat(PolicySpec.parse("fixed").withBudget()).isFalse();
    assertThatThrownBy(() -> PolicySpec.parse("+budget")).hasMessage("policy '+budget' names no strategy");
    assertThatThrownBy(() -> PolicySpec.parse("fixed+brake")).hasMessageStartingWith(
        "bad policy 'fixed+brake': unknown suffix '+brake'; use +budget, +breaker[:rate%:window:wait:trials]");
  }

  @net.jqwik.api.Property(tries = 500)
  void theColonFormIsTheFactoryWithTheSameValues(
      @net.jqwik.api.ForAll @net.jqwik.api.constraints.LongRange(min = 1, max = 1_000_000_000_000L) long initialNanos,
      @net.jqwik.api.ForAll @net.jqwik.api.constraints.LongRange(min = 0, max = 1_000_000_000_000L) long extraNanos,
      @net.jqwik.api.ForAll @net.jqwik.api.constraints.IntRange(min = 100, max = 1000) int multiplierPercent) {
    Duration initial = Duration.ofNanos(initialNanos);
    Duration cap = Duration.ofNanos(initialNanos + extraNanos);
    double multiplier = multiplierPercent / 100.0;
    String spec = "exponential:" + Durations.format(initial) + ":" + multiplier + ":" + Durations.format(cap) + ":full";
    assertThat(described(spec)).isEqualTo(Backoff.exponential(initial, multiplier, cap, Jitter.full()).toString());
    assertThat(BackoffSpec.parse(spec).toBackoff().maxDelayNanos()).isEqualTo(
        Backoff.exponential(initial, multiplier, cap, Jitter.full()).maxDelayNanos());
  }
}
