package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ValidationTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "colour|blue|unknown key 'colour'",
      "timeout|-2s|must not be negative, was -2s",
      "think-mean|0s|must be positive, was 0s",
      "duration|ten|not a duration: 'ten'",
      "duration|10.5s|whole number of seconds",
      "clients|0|must be at least 1, was 0",
      "clients|-5|must be at least 1, was -5",
      "policies|fixd|unknown policy 'fixd'",
      "policies|exponential:100ms:2|exponential takes INITIAL:MULTIPLIER:CAP",
      "policies|full-jitter:1s:100ms|cap must be at least the initial delay",
      "policies|fixed,fixed|listed twice",
      "faults|pause@500s+30s|lies outside the run",
      "faults|pause@390s+30s|lies outside the run",
      "faults|pause@60s|cannot read fault 'pause@60s'",
      "faults|melt@60s+1s|unknown fault type 'melt'",
      "faults|capacity@60s+1s:1.5|capacity fraction must be in (0, 1]",
      "faults|pause@60s+30s;pause@70s+5s|overlaps another pause",
      "server|mainframe|unknown value 'mainframe'",
      "knee-factor|0.5|must be at least 1",
      "reject-status|500|must be 503 or 429",
      "budget|infinite|unknown budget 'infinite'",
      "recheck|1s|longer than base-latency",
      "max-attempts|0|must be at least 1",
  })
  void badValuesAreRefusedNamingKeyAndValue(String key, String value, String message) {
    Object parsed = key.equals("faults") ? List.of(value.split(";")) : value;
    assertThatThrownBy(() -> Scenario.of(Map.of(key, parsed)))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith(key + ": ")
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((ScenarioException) e).key()).isEqualTo(key));
  }

  @Test
  void contradictoryParametersAreRefused() {
    assertThatThrownBy(() -> Scenario.of(Map.of("client", "open", "clients", 10)))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("clients: the open client model");
    assertThatThrownBy(() -> Scenario.of(Map.of("rate", 10)))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("rate: the closed client model");
    assertThatThrownBy(() -> Scenario.of(Map.of("server", "pool", "workers", 0)))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("workers");
    assertThatThrownBy(() -> Scenario.of(Map.of("client", "open", "rate", -1)))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("rate: must not be negative, was -1");
    assertThatThrownBy(() -> Scenario.of(Map.of("client", "open", "rate-profile", "spike", "rate-at", "500s")))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("rate-at");
  }

  @Test
  void absurdMemoryIsRefusedWithAMessage() {
    assertThatThrownBy(() -> Scenario.of(Map.of("clients", 1_000_000_000)))
        .isInstanceOf(ScenarioException.class)
        .hasMessageContaining("clients: 1000000000 clients would need about")
        .hasMessageContaining("MiB");
  }

  @Test
  void valuesInEveryAcceptedFormParse() {
    Scenario s = Scenario.of(Map.of("timeout", "1500ms", "think-mean", 2.5, "duration", "2m",
        "faults", List.of(Map.of("type", "latency", "at", "10s", "length", "5s", "value", "200ms"), "crash@30s+1s"),
        "policies", List.of("aws-standard", "decorrelated:10ms:1s+budget", "exponential:100ms:2:20s:gaussian=0.2")));
    assertThat(s.timeoutNanos).isEqualTo(1_500_000_000L);
    assertThat(s.thinkMeanNanos).isEqualTo(2_500_000_000L);
    assertThat(s.durationNanos).isEqualTo(120_000_000_000L);
    assertThat(s.faults).hasSize(2);
    assertThat(s.faults.get(0).value).isEqualTo(200_000_000.0);
    assertThat(s.policyNames()).containsExactly("aws-standard", "decorrelated:10ms:1s+budget",
        "exponential:100ms:2:20s:gaussian=0.2");
    assertThat(s.policies.get(1).withBudget).isTrue();
  }

  @Test
  void everyPresetOfTheCoreIsAPolicy() {
    for (dev.backoff.Preset preset : dev.backoff.Preset.values()) {
      assertThat(PolicySpec.parse(preset.id()).build(Integer.MAX_VALUE, null).maxAttempts())
          .isEqualTo(preset.maxAttempts());
    }
  }

  @Test
  void scenarioFilesUseTheSameKeys() throws Exception {
    java.nio.file.Path yaml = java.nio.file.Files.createTempFile("scenario", ".yaml");
    java.nio.file.Files.writeString(yaml, "clients: 50\ntimeout: 1s\nfaults:\n  - pause@10s+5s\npolicies: [fixed, exponential]\n");
    Scenario s = ScenarioFiles.read(yaml);
    assertThat(s.clients).isEqualTo(50);
    assertThat(s.policyNames()).containsExactly("fixed", "exponential");
    java.nio.file.Files.writeString(yaml, "{\"clients\": 50, \"speed\": 3}");
    assertThatThrownBy(() -> ScenarioFiles.read(yaml)).isInstanceOf(ScenarioException.class)
        .hasMessageContaining("unknown key 'speed'");
    java.nio.file.Files.writeString(yaml, "- just\n- a list\n");
    assertThatThrownBy(() -> ScenarioFiles.read(yaml)).isInstanceOf(ScenarioException.class)
        .hasMessageContaining("a mapping of keys");
    java.nio.file.Files.delete(yaml);
  }
}
