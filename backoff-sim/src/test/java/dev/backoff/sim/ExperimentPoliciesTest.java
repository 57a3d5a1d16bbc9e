package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.spec.BackoffSpec;
import dev.backoff.spec.ExperimentPolicies;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The experiment's clients in the simulator, and one meaning per name (the clients themselves: core). */
class ExperimentPoliciesTest {
  private static final long MS = 1_000_000L;

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
