package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SweepTest {
  private static final Scenario SMALL = Scenario.of(Map.of("clients", 200, "duration", "60s", "faults",
      "pause@20s+10s", "policies", "fixed,full-jitter:100ms:20s"));

  @Test
  void rangesExpandExactly() {
    assertThat(Sweep.Parameter.parse("clients=500..5000:500").values()).containsExactly("500", "1000", "1500",
        "2000", "2500", "3000", "3500", "4000", "4500", "5000");
    assertThat(Sweep.Parameter.parse("initial=50ms..1s").values()).containsExactly("50ms", "145ms", "240ms", "335ms",
        "430ms", "525ms", "620ms", "715ms", "810ms", "905ms", "1s");
    assertThat(Sweep.Parameter.parse("pause=5s..120s:5s").values()).hasSize(24).startsWith("5s", "10s")
        .endsWith("115s", "2m");
    assertThat(Sweep.Parameter.parse("multiplier=1.5..3:0.5").values()).containsExactly("1.5", "2", "2.5", "3");
    assertThat(Sweep.Parameter.parse("knee-factor=0.1..0.3:0.1").values()).containsExactly("0.1", "0.2", "0.3");
    // Eleven points rounded to whole numbers, the duplicate dropped.
    assertThat(Sweep.Parameter.parse("clients=1..10").values()).containsExactly("1", "2", "3", "4", "5", "6", "7",
        "8", "9", "10");
    assertThat(Sweep.Parameter.parse("clients=100..250:100").values()).containsExactly("100", "200");
    assertThat(Sweep.Parameter.parse("timeout=2s,500ms,1m").values()).containsExactly("2s", "500ms", "1m");
    Sweep.Parameter server = Sweep.Parameter.parse("server=knee,pool");
    assertThat(server.values()).containsExactly("knee", "pool");
    assertThat(server.numeric()).isFalse();
    assertThat(server.positions()).containsExactly(0, 1);
    assertThat(Sweep.Parameter.parse("pause=500ms..2s:500ms").positions()).containsExactly(0.5, 1, 1.5, 2);
    assertThat(Sweep.Parameter.parse("cap=5s").values()).containsExactly("5s");
  }

  @Test
  void badRangesNameTheBadPartAndShowTheForm() {
    assertBad("clients", "clients: not KEY=RANGE; write e.g. clients=500..5000:500, pause=5s..120s:5s or initial=50ms..1s");
    assertBad("clients=", "clients=: no values after '='; write e.g. clients=500..5000:500");
    assertBad("clients=500..x", "clients=500..x: the end 'x' is not a whole number; write e.g. clients=500..5000:500");
    assertBad("clients=1.5..3", "clients=1.5..3: the start '1.5' is not a whole number");
    assertBad("clients=5000..500", "clients=5000..500: the range runs backwards (5000 is after 500); write clients=500..5000");
    assertBad("pause=5s..60s:0s", "pause=5s..60s:0s: the step 0s must be positive; write e.g. pause=5s..120s:5s");
    assertBad("pause=5s..60s:", "pause=5s..60s:: no step after ':'");
    assertBad("pause=5..60s", "pause=5..60s: the start '5': '5' has no unit");
    assertBad("clients=1..100000:1", "clients=1..100000:1: 100000 points, more than 1000; use a larger step");
    assertBad("nope=1..2", "nope=1..2: unknown key 'nope'; use a scenario key");
    assertBad("seed=1..5", "seed=1..5: the seeds are set by --seeds");
    assertBad("policies=fixed", "policies=fixed: the policies are compared at every point; set them with --policies");
    assertBad("server=knee..pool", "server=knee..pool: 'server' takes words, not a range; list them: server=a,b");
    assertBad("clients=1,1", "clients=1,1: the value 1 is listed twice");
    assertBad("clients=1,,2", "clients=1,,2: an empty value in the list");
  }

  @Test
  void policyParametersGoWhereTheirStrategysGrammarPutsThem() {
    assertThat(Sweep.withPolicyParameter(List.of("full-jitter", "full-jitter:100ms:20s+budget"), "initial", "50ms"))
        .containsExactly("full-jitter:50ms", "full-jitter:50ms:20s+budget");
    assertThat(Sweep.withPolicyParameter(List.of("exponential:100ms:2:20s:full+budget"), "cap", "5s"))
        .containsExactly("exponential:100ms:2:5s:full+budget");
    assertThat(Sweep.withPolicyParameter(List.of("exponential"), "multiplier", "3")).containsExactly("exponential::3");
    assertThat(Sweep.withPolicyParameter(List.of("full-jitter:100ms:20s+budget+breaker:50%:20:30s:3"), "cap", "5s"))
        .containsExactly("full-jitter:100ms:5s+budget+breaker:50%:20:30s:3");
    assertThat(Sweep.withPolicyParameter(List.of("linear"), "increment", "10ms")).containsExactly("linear::10ms");
    assertThat(Sweep.withPolicyParameter(List.of("fixed:1s"), "initial", "2s")).containsExactly("fixed:2s");
    assertThat(Sweep.withPolicyParameter(List.of("gaussian"), "jitter-factor", "0.2")).containsExactly("gaussian::::0.2");
    assertThatThrownBy(() -> Sweep.withPolicyParameter(List.of("fixed"), "cap", "1s"))
        .hasMessage("policies: policy 'fixed' has no cap (fixed[:DELAY])");
    assertThatThrownBy(() -> Sweep.withPolicyParameter(List.of("storm-exponential"), "initial", "1s"))
        .hasMessageStartingWith("policies: policy 'storm-exponential' has fixed parameters");
    assertThatThrownBy(() -> Sweep.withPolicyParameter(List.of("aws-standard+budget"), "cap", "1s"))
        .hasMessageStartingWith("policies: policy 'aws-standard+budget' has fixed parameters");
  }

  @Test
  void everyPointIsBuiltAndCheckedBeforeAnythingRuns() {
    assertThatThrownBy(() -> Sweep.runs(SMALL, List.of(Sweep.Parameter.parse("pause=10s..60s:10s")), 2))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("pause=50s: faults: ");
    assertThatThrownBy(() -> Sweep.runs(SMALL, List.of(Sweep.Parameter.parse("cap=10ms,1s")), 2))
        .isInstanceOf(ScenarioException.class).hasMessage("cap=10ms: policies: policy 'fixed' has no cap (fixed[:DELAY])");
    Scenario jittered = SMALL.with("policies", List.of("full-jitter"));
    assertThatThrownBy(() -> Sweep.runs(jittered, List.of(Sweep.Parameter.parse("cap=10ms,1s")), 2))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("cap=10ms: policies: ");
    assertThatThrownBy(() -> Sweep.runs(SMALL, List.of(Sweep.Parameter.parse("crash=1s,2s")), 2))
        .hasMessage("crash=1s: faults: the scenario has no crash fault to vary (faults: [pause@20s+10s]); add one, "
            + "e.g. --faults crash@60s+30s");
    Sweep.Parameter clients = Sweep.Parameter.parse("clients=100,200");
    assertThatThrownBy(() -> Sweep.runs(SMALL, List.of(clients, clients), 2)).hasMessage(
        "clients is swept twice; give each parameter once");
    assertThat(Sweep.runs(SMALL, List.of(clients, Sweep.Parameter.parse("pause=2s..8s:2s")), 3)).isEqualTo(2 * 4 * 2 * 3);
    assertThat(Sweep.totalSeconds(SMALL, List.of(Sweep.Parameter.parse("duration=60s,120s")), 1)).isEqualTo(2 * 60 + 2 * 120);
  }

  @Test
  void aPointIsTheScenarioWithThatValueOverTheSeedsForAnyThreadCount() throws Exception {
    List<Sweep.Parameter> parameters = List.of(Sweep.Parameter.parse("clients=100,300"),
        Sweep.Parameter.parse("pause=5s,15s"));
    Sweep one = Sweep.run(SMALL, parameters, 3, 1, null);
    Sweep three = Sweep.run(SMALL, parameters, 3, 3, null);
    for (Metric metric : Metric.values()) {
      assertThat(SweepOutput.table(three, metric)).isEqualTo(SweepOutput.table(one, metric));
      assertThat(SweepOutput.html(three, metric)).isEqualTo(SweepOutput.html(one, metric));
    }
    assertThat(SweepOutput.csv(three)).isEqualTo(SweepOutput.csv(one));
    assertThat(SweepOutput.json(three)).isEqualTo(SweepOutput.json(one));
    Sweep.Point point = one.points().get(3); // clients=300, pause=15s
    assertThat(point.values()).containsExactly("300", "15s");
    Confidence alone = Confidence.run(SMALL.with(Map.of("clients", 300, "faults", "pause@20s+15s")), 3, 2, null);
    for (int p = 0; p < 2; p++) {
      assertThat(point.policies().get(p).runs()).isEqualTo(alone.policies().get(p).runs());
      assertThat(point.policies().get(p).name()).isEqualTo(SMALL.policyNames().get(p));
    }
  }

  @Test
  void outputsHaveTheirShapes() throws Exception {
    Sweep sweep = Sweep.run(SMALL, List.of(Sweep.Parameter.parse("clients=100,200,300")), 2, 2, null);
    List<String> table = SweepOutput.table(sweep, Metric.RECOVERED).lines().toList();
    assertThat(table.get(0)).isEqualTo("sweep of clients (3 values), 2 policies, 2 seeds each (seeds 3..4): 12 runs.");
    assertThat(table.get(3)).matches("clients +fixed +full-jitter:100ms:20s");
    assertThat(table).hasSize(3 + 2 + 3);
    assertThat(table.get(5)).matches("100 +\\d/2 \\[.*\\] +\\d/2 \\[.*\\]");
    assertThat(SweepOutput.csv(sweep).lines()).hasSize(1 + 6);
    assertThat(SweepOutput.csv(sweep).lines().findFirst().orElseThrow()).startsWith(
        "clients,policy,runs,recovered,recoveredShare,recoveredLower,recoveredUpper,recoverySecondsRuns,");
    String html = SweepOutput.html(sweep, Metric.P99);
    assertThat(html.split("<svg ", -1)).hasSize(1 + Metric.values().length);
    assertThat(html.indexOf("P99 of successes against clients")).isLessThan(html.indexOf("Share of runs that recovered against"));
    Sweep two = Sweep.run(SMALL, List.of(Sweep.Parameter.parse("clients=100,200"), Sweep.Parameter.parse("timeout=1s,2s")), 1, 2, null);
    assertThat(SweepOutput.html(two, Metric.RECOVERED).split("<svg ", -1)).hasSize(1 + 2 * Metric.values().length);
    assertThat(SweepOutput.html(two, Metric.RECOVERED).split("class=\"cell\"", -1)).hasSize(1 + 2 * 4 * Metric.values().length);
    assertThat(SweepOutput.table(two, Metric.AMPLIFICATION)).contains("fixed (rows: clients, columns: timeout)\n"
        + "clients \\ timeout").contains("full-jitter:100ms:20s (rows: clients, columns: timeout)");
  }

  private static void assertBad(String text, String message) {
    assertThatThrownBy(() -> Sweep.Parameter.parse(text)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
  }
}
