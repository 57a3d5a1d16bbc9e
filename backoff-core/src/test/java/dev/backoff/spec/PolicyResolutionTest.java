package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Preset;
import dev.backoff.RetryPolicy;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** One resolution of a policy's name, and the edits sweeps and the advisor make to a spec. */
class PolicyResolutionTest {
  private static final long MS = 1_000_000L;
  private static final RandomGenerator ZERO = () -> 0L;

  @Test
  void aBareStrategyMeansTheLibrarysDefaultPolicyWithThatStrategy() {
    RetryPolicy<Object> library = RetryPolicy.builder().build();
    for (String name : BackoffSpec.strategyNames()) {
      RetryPolicy<Object> policy = PolicySpec.parse(name).builder().build();
      assertThat(policy.maxAttempts()).as(name).isEqualTo(library.maxAttempts()).isEqualTo(3);
      assertThat(policy.maxElapsed()).as(name).isEqualTo(library.maxElapsed());
      assertThat(policy.backoff().toString()).as(name).isEqualTo(BackoffSpec.parse(name).toBackoff().toString());
      assertThat(policy.name()).isEqualTo(name);
    }
    // full-jitter is the library's own default backoff.
    assertThat(PolicySpec.parse("full-jitter").builder().build().backoff().toString())
        .isEqualTo(library.backoff().toString());
  }

  @Test
  void aPresetKeepsItsOwnLimitsAndAnExperimentPolicyHasNone() {
    for (Preset preset : Preset.values()) {
      RetryPolicy<Object> policy = PolicySpec.parse(preset.id() + "+budget").builder().build();
      RetryPolicy<Object> own = preset.policy().build();
      assertThat(policy.maxAttempts()).as(preset.id()).isEqualTo(own.maxAttempts());
      assertThat(policy.maxElapsed()).as(preset.id()).isEqualTo(own.maxElapsed());
      assertThat(policy.backoff().toString()).as(preset.id()).isEqualTo(own.backoff().toString());
      assertThat(policy.name()).isEqualTo(preset.id() + "+budget");
    }
    for (String name : ExperimentPolicies.names()) {
      RetryPolicy<Object> policy = PolicySpec.parse(name).builder().build();
      assertThat(policy.maxAttempts()).as(name).isEqualTo(Integer.MAX_VALUE);
      assertThat(PolicySpec.parse(name).experimentPolicy()).isEqualTo(name);
    }
    assertThat(PolicySpec.parse("storm-fixed").backoff().delayNanos(7, 0, 0, ZERO)).isEqualTo(100 * MS);
    assertThat(PolicySpec.parse("Exponential-Full-Jitter").experimentPolicy()).isEqualTo("storm-exponential-full-jitter");
    assertThat(PolicySpec.parse("exponential").experimentPolicy()).isNull();
    assertThat(PolicySpec.names()).startsWith("storm-fixed").contains("full-jitter", "aws-standard");
  }

  @Test
  void hedgingComesWithTheNameAndMustFitTheAttemptLimit() {
    assertThat(PolicySpec.parse("full-jitter+hedge:50ms:2").builder().build().hedging().maxHedges()).isEqualTo(2);
    assertThatThrownBy(() -> PolicySpec.parse("full-jitter+hedge:50ms:3").builder().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
    assertThat(PolicySpec.parse("storm-fixed+hedge:50ms:5").builder().build().hedging().maxHedges()).isEqualTo(5);
  }

  @Test
  void anUnknownOrFormerNameIsRefusedWithTheNameToUse() {
    assertThatThrownBy(() -> PolicySpec.parse("full+budget").builder())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown policy 'full'; did you mean 'full-jitter'? (its name in every command); "
            + "known: storm-fixed, ");
    assertThatThrownBy(() -> PolicySpec.parse("decorrelatedV2").backoff())
        .hasMessageStartingWith("unknown policy 'decorrelatedv2'; did you mean 'decorrelated-v2'?");
    assertThatThrownBy(() -> PolicySpec.parse("equal").builder()).hasMessageContaining("did you mean 'equal-jitter'?");
    assertThatThrownBy(() -> PolicySpec.parse("psychic").builder())
        .hasMessageStartingWith("unknown policy 'psychic'; known: ").hasMessageNotContaining("did you mean");
    assertThatThrownBy(() -> PolicySpec.parse("storm-fixed:1s").builder())
        .hasMessage("bad policy 'storm-fixed:1s': the experiment policy 'storm-fixed' takes no parameters (its values "
            + "are fixed)");
    assertThatThrownBy(() -> PolicySpec.parse("full-jitter:1s:100ms").builder())
        .hasMessage("bad strategy 'full-jitter:1s:100ms': cap 100ms is below initial 1s");
  }

  @Test
  void oneParameterIsEditedAtItsPositionAndTheSuffixesKept() {
    assertThat(PolicySpec.parse("full-jitter").withParameter("cap", "5s").text()).isEqualTo("full-jitter::5s");
    assertThat(PolicySpec.parse("exponential:200ms:3+budget+breaker:50%").withParameter("multiplier", "1.5").text())
        .isEqualTo("exponential:200ms:1.5+budget+breaker:50%");
    assertThat(PolicySpec.parse("full-jitter::5s").withParameter("cap", "").text()).isEqualTo("full-jitter");
    assertThat(PolicySpec.parse("fixed").withParameter("initial", "1s").backoff().delayNanos(1, 0, 0, ZERO))
        .isEqualTo(1000 * MS);
    assertThat(PolicySpec.parse("proportional").withParameter("jitter-factor", "0.2").text())
        .isEqualTo("proportional::::0.2");
    assertThatThrownBy(() -> PolicySpec.parse("fixed").withParameter("cap", "1s"))
        .hasMessage("policy 'fixed' has no cap (fixed[:DELAY])");
    for (String fixed : new String[] {"aws-standard+budget", "storm-exponential", "none", "google-cloud:32s"}) {
      assertThatThrownBy(() -> PolicySpec.parse(fixed).withParameter("initial", "1s"))
          .hasMessage("policy '" + fixed + "' has fixed parameters (a preset or a named policy), so initial cannot be "
              + "varied");
    }
    assertThatThrownBy(() -> PolicySpec.parse("full-jitter").withParameter("initial", "1x"))
        .hasMessageStartingWith("bad strategy 'full-jitter:1x': initial '1x'");
  }

  @Test
  void aDefaultFillsOnlyAParameterTheSpecLeavesOut() {
    assertThat(BackoffSpec.parse("full-jitter").withDefault("initial", "5ms").withDefault("cap", "2s").text())
        .isEqualTo("full-jitter:5ms:2s");
    assertThat(BackoffSpec.parse("full-jitter:1ms").withDefault("initial", "5ms").withDefault("cap", "2s").text())
        .isEqualTo("full-jitter:1ms:2s");
    assertThat(BackoffSpec.parse("fixed").withDefault("cap", "2s").text()).isEqualTo("fixed");
    assertThat(BackoffSpec.parse("aws-standard").withDefault("initial", "5ms").text()).isEqualTo("aws-standard");
    assertThat(BackoffSpec.parse("exponential").parameterKeys()).containsExactly("initial", "multiplier", "cap", "jitter");
    assertThat(BackoffSpec.parse("aws-standard").parameterKeys()).isEmpty();
  }

  @Test
  void aSuffixsSettingsComeFromItsParametersAloneWithTheSameMessages() {
    assertThat(PolicySpec.Breaker.of()).isEqualTo(PolicySpec.Breaker.DEFAULT);
    assertThat(PolicySpec.Breaker.of("25%", null, "1m", null)).isEqualTo(PolicySpec.parse("x+breaker:25%::1m").breaker());
    assertThatThrownBy(() -> PolicySpec.Breaker.of("150%")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("breaker failure rate '150%': out of range (0..100]%");
    assertThat(PolicySpec.Adaptive.of(null)).isEqualTo(PolicySpec.Adaptive.DEFAULT);
    assertThat(PolicySpec.Adaptive.of("fail").failFast()).isTrue();
    assertThatThrownBy(() -> PolicySpec.Adaptive.of("soon")).hasMessageStartingWith("adaptive max-wait 'soon': use wait");
    assertThat(PolicySpec.Hedge.of("50ms", "2")).isEqualTo(new PolicySpec.Hedge(50 * MS, 2));
    assertThat(PolicySpec.Hedge.of("50ms", null)).isEqualTo(PolicySpec.parse("x+hedge:50ms").hedge());
    assertThatThrownBy(() -> PolicySpec.Hedge.of("50ms", "0")).hasMessage("hedge max-hedges '0': out of range (1..10)");
  }
}
