package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backoff.Preset;
import dev.backoff.RetryPolicy;
import dev.backoff.lab.LabPolicies;
import dev.backoff.sim.Contention;
import dev.backoff.sim.Scenario;
import dev.backoff.spec.BackoffSpec;
import dev.backoff.spec.ExperimentPolicies;
import dev.backoff.spec.PolicySpec;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A bare name means one policy (attempts, deadline, backoff with its cap and jitter) through every command's
 * entry point: {@code run} and {@code http} (their policy flags), {@code simulate}, {@code advise} and
 * {@code sweep} (a scenario's policies), {@code contention}, the lab, and the library itself.
 */
@Timeout(120)
class OneMeaningPerNameTest {
  /** What a policy means, as far as its name decides it. */
  record Meaning(int maxAttempts, Duration maxElapsed, String backoff) {
    static Meaning of(RetryPolicy<?> policy) {
      return new Meaning(policy.maxAttempts(), policy.maxElapsed(), policy.backoff().toString());
    }
  }

  /** The library's meaning, from the library's own types rather than the spec layer's resolver. */
  private static Meaning library(String name) {
    for (Preset preset : Preset.values()) {
      if (preset.id().equals(name)) {
        return Meaning.of(preset.policy().build());
      }
    }
    if (ExperimentPolicies.canonical(name) != null) { // the experiment's clients retry without limit
      return new Meaning(Integer.MAX_VALUE, null, ExperimentPolicies.backoff(name).toString());
    }
    RetryPolicy<Object> defaults = RetryPolicy.builder().build();
    return new Meaning(defaults.maxAttempts(), defaults.maxElapsed(), BackoffSpec.of(name).toBackoff().toString());
  }

  @Test
  void everyNameMeansOnePolicyThroughEveryEntryPoint() {
    assertThat(library("full-jitter").maxAttempts()).isEqualTo(3);
    for (String name : PolicySpec.names()) {
      Meaning expected = library(name);
      Meaning simulated = Meaning.of(Scenario.of(Map.of("policies", name)).policy(name));
      assertThat(simulated).as("simulate, advise and sweep: " + name).isEqualTo(expected);
      BackoffSpec strategy = ExperimentPolicies.canonical(name) != null || BackoffSpec.of(name).isPreset() ? null
          : BackoffSpec.of(name);
      // contention's base and cap keys set the parameters a strategy leaves out: at the library's defaults
      // (and no cap for the uncapped ones), and its max-attempts at the name's own, it runs the same policy.
      Duration cap = strategy == null ? Duration.ofSeconds(1) : strategy.effectiveCap() != null
          ? strategy.effectiveCap() : Duration.ofSeconds(Long.MAX_VALUE);
      Meaning contention = Meaning.of(Contention.policy(PolicySpec.parse(name), BackoffSpec.DEFAULT_INITIAL, cap,
          expected.maxAttempts()));
      assertThat(contention).as("contention: " + name).isEqualTo(expected);
      if (ExperimentPolicies.canonical(name) != null && ExperimentPolicies.hasFirstRetryQuirk(name)) {
        continue; // the original client's quirk needs the simulator's think times: run and the lab refuse it
      }
      PolicyOptions flags = new PolicyOptions();
      flags.strategy.strategy = name;
      assertThat(Meaning.of(flags.builder().build())).as("run and http: " + name).isEqualTo(expected);
      assertThat(Meaning.of(LabPolicies.named(name).build())).as("lab: " + name).isEqualTo(expected);
    }
  }

  @Test
  void withoutAStrategyRunAndHttpUseTheLibrarysDefaultPolicy() {
    assertThat(Meaning.of(new PolicyOptions().builder().build())).isEqualTo(Meaning.of(RetryPolicy.builder().build()))
        .isEqualTo(library("full-jitter"));
  }

  @Test
  void aBareFullJitterRecoversFromALongLatencyFaultAsTheShippedPolicyDoes() throws Exception {
    // With unlimited retries (what a bare full-jitter meant in simulate before) the queue of timed-out retries
    // outlives the fault; the shipped policy gives up after 3 attempts and the server comes back.
    CliRunner shipped = CliRunner.run("simulate", "--policies", "full-jitter", "--faults", "latency@60s+60s:2s",
        "--format", "json");
    CliRunner unlimited = CliRunner.run("simulate", "--policies", "full-jitter", "--faults", "latency@60s+60s:2s",
        "--max-attempts", "unlimited", "--format", "json");
    assertThat(shipped.exitCode).as(shipped.err).isZero();
    assertThat(unlimited.exitCode).as(unlimited.err).isZero();
    JsonNode shippedSummary = new ObjectMapper().readTree(shipped.out).get("policies").get(0).get("summary");
    JsonNode unlimitedSummary = new ObjectMapper().readTree(unlimited.out).get("policies").get(0).get("summary");
    assertThat(shippedSummary.get("verdict").asText()).isEqualTo("recovered");
    assertThat(unlimitedSummary.get("verdict").asText()).isEqualTo("not-recovered");
    // The numbers docs/simulator.md quotes.
    assertThat(shippedSummary.get("peakConcurrency").asLong()).isEqualTo(571);
    assertThat(unlimitedSummary.get("peakConcurrency").asLong()).isEqualTo(33_063);
    assertThat(shippedSummary.get("attempts").asLong()).isLessThanOrEqualTo(3 * shippedSummary.get("logicalRequests").asLong());
  }
}
