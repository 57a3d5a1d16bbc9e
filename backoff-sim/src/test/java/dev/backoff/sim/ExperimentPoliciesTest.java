package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.BackoffSpec;
import dev.backoff.spec.ExperimentPolicies;
import dev.backoff.testing.ScriptedRandom;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The experiment's clients as named policies, and one meaning per name. */
class ExperimentPoliciesTest {
  private static final long MS = 1_000_000L;

  private static long delay(Backoff backoff, int retry, double u) {
    return backoff.delayNanos(retry, 0, 0, new ScriptedRandom(u, u, u, u));
  }

  @Test
  void theExperimentsClients() {
    assertThat(delay(ExperimentPolicies.backoff("storm-fixed"), 1000, 0.3)).isEqualTo(100 * MS);
    Backoff exponential = ExperimentPolicies.backoff("storm-exponential");
    assertThat(delay(exponential, 2, 0.5)).isCloseTo(271_828_182L, within(2L));
    // at the 5 min cap the centre drops to 5 min / 1.3 so the ±3σ window fits under it
    assertThat(delay(exponential, 100, 0.5)).isCloseTo(230_769_230_769L, within(1_000L));
    RetryPolicy<Object> policy = ExperimentPolicies.policy("storm-exponential").build();
    assertThat(policy.maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    assertThat(ExperimentPolicies.canonical("Exponential-Full-Jitter")).isEqualTo("storm-exponential-full-jitter");
    assertThat(ExperimentPolicies.canonical("exponential-original")).isEqualTo("storm-exponential-original");
    assertThat(ExperimentPolicies.canonical("exponential")).isNull();
    assertThatThrownBy(() -> ExperimentPolicies.backoff("fixed")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown experiment policy 'fixed'");
  }

  @Test
  void exponentialIsTheGenericStrategyInTheSimulatorToo() {
    PolicySpec spec = PolicySpec.parse("exponential", false);
    assertThat(spec.build(Integer.MAX_VALUE, null).backoff().toString())
        .isEqualTo(BackoffSpec.of("exponential").toBackoff().toString());
    assertThat(spec.build(Integer.MAX_VALUE, null).backoff().toString())
        .isNotEqualTo(ExperimentPolicies.backoff("storm-exponential").toString());
    // A bare full-jitter is capped at the documented 20 s here as everywhere.
    assertThat(PolicySpec.parse("full-jitter", false).build(Integer.MAX_VALUE, null).backoff().maxDelayNanos())
        .isEqualTo(20_000 * MS);
  }

  @Test
  void anExplicitAttemptLimitAppliesToEveryPolicyAndWithoutOneEachKeepsItsOwn() {
    Scenario limited = Scenario.of(java.util.Map.of("policies", "storm-fixed,aws-standard,fixed,full-jitter",
        "max-attempts", 5));
    for (PolicySpec spec : limited.policies) {
      assertThat(spec.build(limited.maxAttempts, null).maxAttempts()).as(spec.name).isEqualTo(5);
    }
    Scenario unset = Scenario.of(java.util.Map.of("policies", "storm-fixed,aws-standard,fixed"));
    assertThat(unset.policies.get(0).build(unset.maxAttempts, null).maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    assertThat(unset.policies.get(1).build(unset.maxAttempts, null).maxAttempts()).isEqualTo(3); // the preset's
    // A bare strategy means what it means everywhere: the library's default of 3 attempts.
    assertThat(unset.policies.get(2).build(unset.maxAttempts, null).maxAttempts()).isEqualTo(3);
    Scenario unlimited = Scenario.of(java.util.Map.of("policies", "storm-fixed,aws-standard,fixed",
        "max-attempts", "unlimited"));
    for (PolicySpec spec : unlimited.policies) {
      assertThat(spec.build(unlimited.maxAttempts, null).maxAttempts()).as(spec.name).isEqualTo(Integer.MAX_VALUE);
    }
  }

  @Test
  void theSheddingPoolScenariosFiveAttemptsBoundEveryPolicy() throws Exception {
    // It sets max-attempts 5 and compares fixed, aws-standard and full-jitter with a budget; before, fixed
    // was the experiment's unlimited client and ignored it (amplification 17.5).
    Scenario scenario = ScenarioFiles.read(Path.of("..", "docs", "scenarios", "shedding-pool.yaml"));
    SimulationResult result = Simulator.run(scenario);
    for (PolicyResult policy : result.policies()) {
      assertThat(policy.summary().amplification()).as(policy.name()).isLessThanOrEqualTo(5.0);
      assertThat(policy.summary().attempts()).as(policy.name())
          .isLessThanOrEqualTo(5 * policy.summary().logicalRequests());
    }
  }
}
