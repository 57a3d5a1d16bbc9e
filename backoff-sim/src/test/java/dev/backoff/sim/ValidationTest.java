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
  // Double quotes, not the default single ones: several messages start with a quoted value ('ten' is not a
  // duration), which JUnit 6's stricter CSV reader would take for a quoted field.
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "colour|blue|unknown key 'colour'",
      "timeout|-2s|must not be negative, was '-2s'",
      "think-mean|0s|must be positive, was 0s",
      "duration|ten|'ten' is not a duration",
      "timeout|10|'10' has no unit; write 10s",
      "think-mean|2.5|'2.5' has no unit; write 2.5s",
      "duration|10.5s|whole number of seconds",
      "clients|0|0 is out of range (1..2147483647)",
      "clients|-5|-5 is out of range (1..2147483647)",
      "clients|18446744073709551626|18446744073709551626 is out of range (1..2147483647)",
      "clients|1e999999999|is out of range (1..2147483647)",
      "clients|2.5|not a whole number: '2.5'",
      "seed|18446744073709551616|18446744073709551616 is out of range (-9223372036854775808..9223372036854775807)",
      "reject-status|4294967799|must be 503 or 429, was 4294967799",
      "backlog|4294967808|4294967808 is out of range (0..100000000)",
      "budget|grpc:4294967306|bad budget 'grpc:4294967306': max-tokens '4294967306': out of range (1..1000)",
      "duration|NaN|'NaN' is not a duration",
      "policies|fixd|unknown policy 'fixd'",
      "policies|exponential:100ms:2:20s:full:3|exponential takes at most 4 parameters (exponential[:INITIAL:MULTIPLIER:CAP:JITTER])",
      "policies|exponential:100ms:x|multiplier 'x': not a number",
      "policies|exponential:100|initial '100': '100' has no unit; write 100s",
      "policies|full-jitter:1s:100ms|bad strategy 'full-jitter:1s:100ms': cap 100ms is below initial 1s",
      "policies|aws-standard:1s|the preset 'aws-standard' takes no parameters",
      "policies|fixed+brake|unknown suffix '+brake'",
      "policies|fixed+breaker:120%|breaker failure rate '120%': out of range (0..100]%",
      "policies|fixed+hedge|+hedge needs a delay",
      "breaker-scope|global|global",
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
      "max-attempts|0|0 is out of range (1..2147483647)",
      "max-attempts|4294967297|4294967297 is out of range (1..2147483647)",
  })
  void badValuesAreRefusedNamingKeyAndValue(String key, String value, String message) {
    Object parsed = key.equals("faults") ? List.of(value.split(";")) : value;
    assertThatThrownBy(() -> Scenario.of(Map.of(key, parsed)))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith(key + ": ")
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((ScenarioException) e).key()).isEqualTo(key));
  }

  /** Files give Integer, Long, BigInteger and Double where flags give strings: both must be exact. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "clients|18446744073709551626|clients: 18446744073709551626 is out of range (1..2147483647)",
      "seed|99999999999999999999|seed: 99999999999999999999 is out of range",
      "reject-status|4294967799|reject-status: must be 503 or 429, was 4294967799",
      "workers|4294967306|workers: 4294967306 is out of range (0..10000000)",
      "clients|1.0e20|clients: 1.0e20 is out of range (1..2147483647)",
      "duration|.nan|not valid YAML: ",
      "timeout|10|timeout: '10' has no unit; write 10s",
      "think-mean|2.5|think-mean: '2.5' has no unit; write 2.5s",
  })
  void fileValuesAreParsedExactlyLikeFlags(String key, String value, String message) throws Exception {
    java.nio.file.Path yaml = java.nio.file.Files.createTempFile("scenario", ".yaml");
    try {
      java.nio.file.Files.writeString(yaml, key + ": " + value + "\n");
      assertThatThrownBy(() -> ScenarioFiles.read(yaml)).isInstanceOf(ScenarioException.class)
          .satisfies(e -> assertThat(e.getMessage()).containsIgnoringCase(message));
      if (!value.startsWith(".")) {
        // The same value as a flag (a string) gives the same message.
        assertThatThrownBy(() -> Scenario.of(Map.of(key, value))).hasMessageStartingWith(message);
      }
      if (value.startsWith("1.0")) {
        assertThatThrownBy(() -> Scenario.of(Map.of(key, 1.0e20))).hasMessage("clients: 1.0E20 is out of range (1..2147483647)");
      }
    } finally {
      java.nio.file.Files.delete(yaml);
    }
  }

  @Test
  void aKeyGivenTwiceIsRefusedNotSilentlyOverwritten() {
    assertThatThrownBy(() -> ScenarioFiles.parseMap("clients: 10\ntimeout: 1s\nclients: 20\n", "a.yaml"))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("a.yaml: key 'clients' appears twice (line 3");
    assertThatThrownBy(() -> ScenarioFiles.parseMap("{\"seed\": 1, \"seed\": 2}", "b.json"))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("b.json: key 'seed' appears twice");
    assertThatThrownBy(() -> ScenarioFiles.parseMap("faults:\n  - {type: pause, at: 1s, at: 2s, length: 1s}\n", "c.yaml"))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("c.yaml: key 'at' appears twice");
    assertThat(ScenarioFiles.parseMap("clients: 10\ntimeout: 1s\n", "d.yaml")).containsOnlyKeys("clients", "timeout");
  }

  @Test
  void nonFiniteNumbersFromTheApiAreRefused() {
    assertThatThrownBy(() -> Scenario.of(Map.of("duration", Double.NaN))).hasMessage("duration: not a finite duration: 'NaN'");
    assertThatThrownBy(() -> Scenario.of(Map.of("clients", Double.POSITIVE_INFINITY)))
        .hasMessage("clients: not a finite number: 'Infinity'");
    assertThatThrownBy(() -> Scenario.of(Map.of("knee-factor", Double.NaN))).hasMessageStartingWith("knee-factor: not a finite number");
  }

  @Test
  void contentionNumbersAreExactToo() {
    assertThatThrownBy(() -> Contention.run(Map.of("clients", new java.math.BigInteger("18446744073709551626"))))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("clients: 18446744073709551626 is out of range (1..100000)");
    assertThatThrownBy(() -> Contention.run(Map.of("seed", new java.math.BigInteger("18446744073709551619"))))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("seed: 18446744073709551619 is out of range");
    assertThatThrownBy(() -> Contention.run(Map.of("runs", 4294967297L)))
        .isInstanceOf(ScenarioException.class).hasMessage("runs: 4294967297 is out of range (1..1000000)");
  }

  @Test
  @org.junit.jupiter.api.Timeout(60) // a guard: without the bound this would run for days
  void contentionWorkIsBoundedByAnEstimateBeforeAnythingRuns() {
    assertThatThrownBy(() -> Contention.run(Map.of("clients", "100000")))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("clients: about ")
        .hasMessageContaining("30 runs of 6 strategies at 100000 clients")
        .hasMessageContaining("more than the limit of 200000000");
    assertThatThrownBy(() -> Contention.run(Map.of("clients", "10,5000", "runs", 30)))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("clients: about ");
    // The defaults are far below the limit.
    double defaults = 0;
    for (String strategy : Contention.STRATEGIES) {
      for (int n = 10; n <= 190; n += 20) {
        defaults += 30 * Contention.estimatedCalls(strategy, n);
      }
    }
    assertThat(defaults).isLessThan(Contention.MAX_ESTIMATED_CALLS / 20.0);
  }

  @Test
  void contentionEstimatesAreAboveWhatRunsDo() {
    for (String strategy : Contention.STRATEGIES) {
      for (int n : new int[] {10, 190, 1000}) {
        double measured = Contention.run(Map.of("clients", n, "runs", 1, "strategies", strategy)).get(0).calls();
        assertThat(Contention.estimatedCalls(strategy, n)).as(strategy + " at " + n).isGreaterThanOrEqualTo(measured);
      }
    }
  }

  @Test
  void contentionReportsProgressUpToTheWhole() {
    List<Integer> seen = new java.util.ArrayList<>();
    Contention.run(Map.of("clients", "10,50", "runs", 3), seen::add);
    assertThat(seen).hasSize(6 * 2 * 3 + 1).isSorted().endsWith(1000);
    assertThat(seen.get(0)).isBetween(0, 999);
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
    Scenario s = Scenario.of(Map.of("timeout", "1500ms", "think-mean", "2.5s", "duration", "2m",
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
  void bareStrategyNamesTakeTheCoreDefaults() {
    Scenario s = Scenario.of(Map.of("policies", "full-jitter,decorrelated-v2,gaussian"));
    assertThat(s.policyNames()).containsExactly("full-jitter", "decorrelated-v2", "gaussian");
    dev.backoff.RetryPolicy<Object> policy = s.policies.get(0).build(Integer.MAX_VALUE, null);
    assertThat(policy.backoff().maxDelayNanos()).isEqualTo(
        dev.backoff.spec.BackoffSpec.of("full-jitter").toBackoff().maxDelayNanos());
  }

  @Test
  void everyPresetOfTheCoreIsAPolicy() {
    for (dev.backoff.Preset preset : dev.backoff.Preset.values()) {
      assertThat(PolicySpec.parse(preset.id(), false).build(Integer.MAX_VALUE, null).maxAttempts())
          .isEqualTo(preset.maxAttempts());
    }
  }

  @Test
  void theDocumentedExampleScenariosAreValid() throws Exception {
    java.nio.file.Path examples = java.nio.file.Path.of("..", "docs", "scenarios");
    assertThat(examples).isDirectory();
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(examples)) {
      List<java.nio.file.Path> yaml = files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
      assertThat(yaml).isNotEmpty();
      for (java.nio.file.Path file : yaml) {
        assertThat(ScenarioFiles.read(file).policies).as(file.toString()).isNotEmpty();
      }
    }
    // seed-003.yaml spells out the defaults.
    Scenario seed = ScenarioFiles.read(examples.resolve("seed-003.yaml"));
    assertThat(Output.json(Simulator.run(seed.with("duration", "100s"))))
        .isEqualTo(Output.json(Simulator.run(Scenario.defaults().with("duration", "100s"))));
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
