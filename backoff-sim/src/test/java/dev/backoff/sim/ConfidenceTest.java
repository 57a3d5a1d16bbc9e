package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfidenceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Scenario ONE_POLICY = Scenario.of(Map.of("clients", 200, "duration", "60s", "faults",
      "pause@20s+10s", "policies", "fixed", "seed", 100));

  /** Ten hand-made runs: eight recovered after 1..8 s, one late after 30 s, one not recovered. */
  private static List<Summary> tenRuns() {
    List<Summary> runs = new ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      runs.add(new Summary(RecoveryVerdict.RECOVERED, 100, i, 500 + i, 1 + i / 10.0, 0.99, 99, 0.1 * i, 1000, 1100));
    }
    runs.add(new Summary(RecoveryVerdict.LATE, 100, 30, 900, 2.0, 0.9, 80, 3.0, 1000, 2000));
    runs.add(new Summary(RecoveryVerdict.NOT_RECOVERED, 100, null, 5000, 20.0, 0.5, 0, Double.NaN, 1000, 20000));
    return runs;
  }

  @Test
  void theStatisticsOfHandMadeRunsAreExact() {
    Confidence c = Confidence.of(ONE_POLICY, 10, tenRuns());
    assertThat(c.firstSeed()).isEqualTo(100);
    assertThat(c.lastSeed()).isEqualTo(109);
    Confidence.PolicyStats p = c.policies().get(0);
    assertThat(p.name()).isEqualTo("fixed");
    assertThat(p.recoveredCount()).isEqualTo(8); // late does not count as recovered
    assertThat(p.recoveredShare()).isEqualTo(0.8);
    assertThat(p.recoveredInterval().lower()).isCloseTo(0.49016247153664183, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(p.verdicts()).containsExactly(Map.entry(RecoveryVerdict.RECOVERED, 8), Map.entry(RecoveryVerdict.LATE, 1),
        Map.entry(RecoveryVerdict.NOT_RECOVERED, 1));
    Stats.Sample recovery = p.sample(Metric.RECOVERY_TIME); // the runs that came back: 1..8 and 30
    assertThat(recovery.size()).isEqualTo(9);
    assertThat(recovery.missing()).isEqualTo(1);
    assertThat(recovery.median()).isEqualTo(new Stats.Estimate(5, 2, 8)); // n = 9: ranks 2 and 8
    Stats.Sample peak = p.sample(Metric.PEAK_CONCURRENCY);
    assertThat(peak.size()).isEqualTo(10);
    assertThat(peak.median()).isEqualTo(new Stats.Estimate(505.5, 502, 900));
    assertThat(p.sample(Metric.P99).size()).isEqualTo(9);
    assertThat(p.values(Metric.RECOVERED)).containsExactly(1, 1, 1, 1, 1, 1, 1, 1, 0, 0);
    Confidence.PolicyStats same = Confidence.PolicyStats.of("fixed", tenRuns());
    assertThat(same.runs()).isEqualTo(p.runs());
    assertThat(same.sample(Metric.PEAK_CONCURRENCY).median()).isEqualTo(peak.median());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Confidence.PolicyStats.of("fixed", List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("runs must not be empty");
  }

  @Test
  void theTableCsvAndJsonSayTheSame() throws Exception {
    Confidence c = Confidence.of(ONE_POLICY, 10, tenRuns());
    String table = ConfidenceOutput.table(c);
    assertThat(table).startsWith("1 policy over 10 seeds (seeds 100..109); 95% intervals: recovered by Wilson's "
        + "score, means by Student's t, medians and p90 by order statistics.\n");
    List<String> lines = table.lines().toList();
    assertThat(lines.get(3)).matches("policy  recovered    95% interval +recovery +amplification +peak conc\\. +success +p99 \\(successes\\)");
    assertThat(lines.get(5)).startsWith("fixed        8/10  [49.0%, 94.3%]  5s [2s, 8s]");
    assertThat(table).containsPattern("\nfixed +peak concurrency +10 ").contains("  fixed  8 yes, 1 late, 1 NO\n")
        .contains("\nwhy, run by run:\n  fixed\n    seed 100  yes   yes\n")
        .endsWith("    seed 108  late  late\n    seed 109  NO    NO\n");
    String summaryCsv = ConfidenceOutput.summaryCsv(c);
    assertThat(summaryCsv.lines().toList()).hasSize(1 + 6)
        .contains("fixed,recovered,10,0,0.800000,0.490162,0.943318,,,,,,,,")
        .anyMatch(line -> line.startsWith("fixed,recovery-time,9,1,"));
    String csv = ConfidenceOutput.csv(c);
    assertThat(csv.lines().toList()).hasSize(11).element(10)
        .isEqualTo("fixed,109,not-recovered,false,,5000,20.0000,0.5000,,100.000,0.000,1000,20000,NO");
    JsonNode json = JSON.readTree(ConfidenceOutput.json(c));
    assertThat(json.get("seeds").toString()).isEqualTo("{\"first\":100,\"last\":109,\"count\":10}");
    JsonNode policy = json.get("policies").get(0);
    assertThat(policy.get("recovered").toString())
        .isEqualTo("{\"count\":8,\"share\":0.8,\"lower\":0.490162,\"upper\":0.943318}");
    assertThat(policy.get("verdicts").toString()).isEqualTo("{\"recovered\":8,\"late\":1,\"not-recovered\":1}");
    assertThat(policy.get("perSeed").size()).isEqualTo(10);
    assertThat(policy.get("perSeed").get(9).toString())
        .isEqualTo("{\"seed\":109,\"verdict\":\"not-recovered\",\"verdictReason\":\"NO\"}");
    JsonNode recovery = policy.get("metrics").get("recoverySeconds");
    assertThat(recovery.get("median").toString()).isEqualTo("{\"value\":5.0,\"lower\":2.0,\"upper\":8.0}");
    assertThat(recovery.get("p90").get("upper").isNull()).isTrue(); // unbounded with 9 runs
    assertThat(recovery.get("values").size()).isEqualTo(10);
    assertThat(recovery.get("values").get(9).isNull()).isTrue();
    List<String> metrics = new ArrayList<>();
    policy.get("metrics").fieldNames().forEachRemaining(metrics::add);
    assertThat(metrics).containsExactly("recoverySeconds", "amplification", "peakConcurrency", "successRatio",
        "p99SuccessLatencySeconds");
  }

  @Test
  void theSameSeedsGiveTheSameBytesForAnyThreadCountAndOneSeedIsTheScenariosRun() throws Exception {
    Scenario scenario = Scenario.of(Map.of("clients", 200, "duration", "60s", "faults", "pause@20s+10s",
        "policies", "fixed,full-jitter:100ms:20s"));
    Confidence one = Confidence.run(scenario, 7, 1, null);
    Confidence three = Confidence.run(scenario, 7, 3, null);
    assertThat(ConfidenceOutput.table(three)).isEqualTo(ConfidenceOutput.table(one));
    assertThat(ConfidenceOutput.json(three)).isEqualTo(ConfidenceOutput.json(one));
    assertThat(ConfidenceOutput.csv(three)).isEqualTo(ConfidenceOutput.csv(one));
    assertThat(ConfidenceOutput.summaryCsv(three)).isEqualTo(ConfidenceOutput.summaryCsv(one));
    assertThat(ConfidenceOutput.html(three)).isEqualTo(ConfidenceOutput.html(one));
    SimulationResult single = Simulator.run(scenario);
    Confidence seed = Confidence.run(scenario, 1, 2, null);
    for (int i = 0; i < 2; i++) {
      assertThat(seed.policies().get(i).runs()).containsExactly(single.policies().get(i).summary());
      assertThat(one.policies().get(i).runs().get(0)).isEqualTo(single.policies().get(i).summary());
    }
  }

  @Test
  void theHtmlPageHasAChartPerMetricAndEscapesNames() {
    Scenario scenario = Scenario.of(Map.of("clients", 200, "duration", "60s", "faults", "pause@20s+10s",
        "policies", "fixed", "seed", 100));
    String html = ConfidenceOutput.html(Confidence.of(scenario, 10, tenRuns()));
    assertThat(html).startsWith("<!DOCTYPE html>").endsWith("</html>\n").doesNotContain("<script");
    assertThat(html.split("<svg ", -1)).hasSize(1 + 6);
    assertThat(html).contains("data-title=\"Runs that recovered\"", "data-title=\"Recovery time (runs that came back)\"",
        "data-title=\"Amplification\"", "data-title=\"Peak concurrency\"", "data-title=\"Success ratio\"",
        "data-title=\"P99 of successes\"");
    // Ten dots per metric, nine where a run has no such number.
    String amplification = html.substring(html.indexOf("data-title=\"Amplification\""));
    amplification = amplification.substring(0, amplification.indexOf("</svg>"));
    assertThat(amplification.split("class=\"run\"", -1)).hasSize(11);
    assertThat(html).containsPattern("<p>Scenario: [^<]*clients 200[^<]*; the rest at the defaults</p>");
    assertThat(Svg.escape("a<b>&\"'")).isEqualTo("a&lt;b&gt;&amp;&quot;&#39;");
  }
}
