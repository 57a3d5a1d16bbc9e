package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] SMALL = {"--clients", "300", "--duration", "60s", "--faults", "pause@20s+10s",
      "--policies", "fixed,exponential"};

  @TempDir Path directory;

  private static String[] args(String... extra) {
    List<String> all = new ArrayList<>(List.of("simulate"));
    all.addAll(List.of(SMALL));
    all.addAll(List.of(extra));
    return all.toArray(new String[0]);
  }

  @Test
  void jsonHasTheDocumentedShape() throws Exception {
    CliRunner result = CliRunner.run(args("--format", "json"));
    assertThat(result.exitCode).isZero();
    assertThat(result.err).isEmpty();
    JsonNode root = JSON.readTree(result.out);
    assertThat(root.size()).isEqualTo(1);
    JsonNode policies = root.get("policies");
    assertThat(policies.size()).isEqualTo(2);
    JsonNode first = policies.get(0);
    assertThat(first.get("name").asText()).isEqualTo("fixed");
    List<String> summaryKeys = new ArrayList<>();
    first.get("summary").fieldNames().forEachRemaining(summaryKeys::add);
    assertThat(summaryKeys).startsWith("baselineGoodput", "recovered", "recoverySeconds", "peakConcurrency",
        "amplification", "successRatio");
    assertThat(first.get("summary").get("recovered").isBoolean()).isTrue();
    JsonNode recovery = first.get("summary").get("recoverySeconds");
    assertThat(recovery.isNull() || recovery.isInt()).isTrue();
    JsonNode series = first.get("series");
    assertThat(series.size()).isEqualTo(60);
    List<String> seriesKeys = new ArrayList<>();
    series.get(0).fieldNames().forEachRemaining(seriesKeys::add);
    assertThat(seriesKeys).startsWith("t", "goodput", "timeouts", "concurrency", "latencySeconds");
    assertThat(series.get(59).get("t").asInt()).isEqualTo(59);
    assertThat(series.get(10).get("latencySeconds").asDouble()).isEqualTo(0.1);
  }

  @Test
  void tableShowsTheSummaryAndASparklinePerPolicyAndTheSeedsLinesOnlyWithTimeline() {
    CliRunner result = CliRunner.run(args());
    assertThat(result.exitCode).isZero();
    List<String> lines = result.out.lines().toList();
    assertThat(lines.get(0)).startsWith("policy").contains("recovered", "amplification", "p99 (successes)");
    // header, rule, 2 rows, blank, "why:", 2 reasons, blank, legend, 2 sparklines, marks
    assertThat(lines).hasSize(2 + 2 + 1 + 1 + 2 + 1 + 1 + 2 + 1);
    assertThat(lines.get(5)).isEqualTo("why:");
    assertThat(lines.get(6)).startsWith("fixed        ");
    assertThat(lines.get(7)).startsWith("exponential  ");
    assertThat(lines.get(9)).startsWith("goodput over time, one character per 1 second: ").endsWith("^ = pause@20s+10s");
    assertThat(lines.get(10)).matches("fixed        [·▁-█]{60}");
    assertThat(lines.get(11)).matches("exponential  [·▁-█]{60}");
    assertThat(lines.get(12)).isEqualTo(" ".repeat(13 + 20) + "^".repeat(10));
    assertThat(result.out).doesNotContain("OK:").doesNotContain("== fixed ==");

    CliRunner timeline = CliRunner.run(args("--timeline"));
    assertThat(timeline.exitCode).isZero();
    assertThat(timeline.out).containsPattern("  5s  OK: \\d+\\.\\d\\d req/sec, errors: \\d+\\.\\d\\d req/sec, timedout: \\d+\\.\\d\\d req/sec \\| concurrency: \\d+, latency: ");
    assertThat(timeline.out).startsWith("== fixed ==\n").contains("== exponential ==").endsWith(result.out);
    assertThat(timeline.out.lines().filter(line -> line.contains("OK: ")).count()).isEqualTo(2 * 12);
  }

  @Test
  void timelineBelongsToTheTableOfOneRun() {
    assertUsage(CliRunner.run(args("--timeline", "--format", "json")), "--timeline");
    assertUsage(CliRunner.run(args("--timeline", "--tipping-point")), "--tipping-point");
    assertThat(CliRunner.run("simulate", "--help").out).contains("--timeline");
  }

  @Test
  void csvHasOneRowPerPolicyAndSecond() {
    CliRunner result = CliRunner.run(args("--format", "csv"));
    assertThat(result.exitCode).isZero();
    assertThat(result.out.lines().count()).isEqualTo(1 + 2 * 60);
    assertThat(result.out).startsWith("policy,t,newRequests,attempts,goodput,");
  }

  @Test
  void sameSeedSameBytesOtherSeedOtherBytes() {
    String a = CliRunner.run(args("--format", "json", "--seed", "11")).out;
    String b = CliRunner.run(args("--format", "json", "--seed", "11")).out;
    String c = CliRunner.run(args("--format", "json", "--seed", "12")).out;
    assertThat(a).isEqualTo(b).isNotEqualTo(c);
  }

  @Test
  void scenarioFileKeysAreOverriddenByFlags() throws Exception {
    Path file = directory.resolve("scenario.yaml");
    Files.writeString(file, "clients: 300\nduration: 40s\nfaults: [pause@20s+5s]\npolicies: [fixed]\nseed: 5\n");
    CliRunner fromFile = CliRunner.run("simulate", "--scenario", file.toString(), "--format", "json");
    assertThat(fromFile.exitCode).isZero();
    assertThat(JSON.readTree(fromFile.out).get("policies").get(0).get("series").size()).isEqualTo(40);
    CliRunner overridden = CliRunner.run("simulate", "--scenario", file.toString(), "--duration", "30s",
        "--format", "json");
    assertThat(JSON.readTree(overridden.out).get("policies").get(0).get("series").size()).isEqualTo(30);
  }

  @Test
  void badInputExitsTwoNamingKeyAndValue() throws Exception {
    assertUsage(CliRunner.run("simulate", "--timeout", "-1s"), "timeout: duration must not be negative, was '-1s'");
    assertUsage(CliRunner.run("simulate", "--policies", "fixed,nope"), "unknown policy 'nope'");
    assertUsage(CliRunner.run("simulate", "--faults", "pause@500s+1s"), "lies outside the run");
    assertUsage(CliRunner.run("simulate", "--clients", "1000000000"), "clients: 1000000000 clients would need");
    assertUsage(CliRunner.run("simulate", "--format", "xml"), "xml");
    Path file = directory.resolve("bad.json");
    Files.writeString(file, "{\"clients\": 10, \"colour\": \"blue\"}");
    assertUsage(CliRunner.run("simulate", "--scenario", file.toString()), "unknown key 'colour'");
    assertUsage(CliRunner.run("simulate", "--scenario", directory.resolve("missing.yaml").toString()),
        "missing.yaml: no such file");
  }

  private static void assertUsage(CliRunner result, String message) {
    assertThat(result.exitCode).as(result.err).isEqualTo(2);
    assertThat(result.err).contains(message).doesNotContain("Exception");
    assertThat(result.out).isEmpty();
  }

  @Test
  void reportDirectoryGetsHtmlJsonAndCsv() throws Exception {
    CliRunner result = CliRunner.run(args("--report", directory.toString(), "--format", "json"));
    assertThat(result.exitCode).isZero();
    assertThat(Files.readString(directory.resolve("simulation.html"))).contains("data-charts-drawn").doesNotContain("https://");
    assertThat(Files.readString(directory.resolve("simulation.json"))).isEqualTo(result.out);
    assertThat(directory.resolve("simulation.csv")).exists();
    assertThat(Files.readString(directory.resolve("simulation-summary.csv")))
        .isEqualTo(CliRunner.run(args("--format", "summary-csv")).out);
  }

  @Test
  void everyScenarioKeyIsAFlag() {
    String help = CliRunner.run("simulate", "--help").out;
    for (dev.backoff.sim.Scenario.Key key : dev.backoff.sim.Scenario.keys()) {
      assertThat(help).contains("--" + key.name());
    }
  }

  @Test
  @Tag("slow")
  void tippingPointScanReportsEveryLengthInEachFormat() throws Exception {
    String[] scan = {"simulate", "--clients", "1000", "--duration", "200s", "--faults", "pause@30s+10s", "--policies",
        "fixed,storm-exponential-full-jitter+budget", "--tipping-point", "--grid", "10s", "--resolution", "5s"};
    CliRunner json = CliRunner.run(ScheduleCommandTest.with(scan, "--format", "json"));
    assertThat(json.exitCode).as(json.err).isZero();
    JsonNode root = JSON.readTree(json.out);
    assertThat(root.get("scan").get("upToSeconds").asInt()).isEqualTo(50);
    JsonNode fixed = root.get("policies").get(0);
    assertThat(fixed.get("policy").asText()).isEqualTo("fixed");
    List<Integer> lengths = new ArrayList<>();
    for (JsonNode length : fixed.get("lengths")) {
      lengths.add(length.get("faultSeconds").asInt());
      assertThat(length.get("verdicts").size()).isEqualTo(1);
    }
    assertThat(lengths).startsWith(1).endsWith(50).contains(10, 20, 30, 40).isSorted();
    assertThat(root.get("scan").get("runs").asInt()).isEqualTo(2 * lengths.size());
    CliRunner csv = CliRunner.run(ScheduleCommandTest.with(scan, "--format", "csv"));
    assertThat(csv.out.lines().skip(1).filter(line -> line.startsWith("fixed,")).map(line -> line.split(",")[1])
        .map(Integer::valueOf).toList()).isEqualTo(lengths);
    CliRunner table = CliRunner.run(scan);
    assertThat(table.out).contains("\nfixed:\n", "\nstorm-exponential-full-jitter+budget:\n")
        .doesNotContain("recovers from every fault length");
    assertUsage(CliRunner.run(ScheduleCommandTest.with(scan, "--format", "summary-csv")), "backoff: --format summary-csv: the "
        + "tipping-point scan has one CSV");
    assertUsage(CliRunner.run("simulate", "--tipping-point", "--grid", "0s"),
        "backoff: --grid: must be a whole number of seconds, at least 1s, was 0s");
    assertUsage(CliRunner.run("simulate", "--tipping-point", "--resolution", "1500ms"),
        "backoff: --resolution: must be a whole number of seconds, at least 1s, was 1.5s");
    // Durations take a unit here as in every other flag; a bare number gets the hint.
    CliRunner bare = CliRunner.run("simulate", "--tipping-point", "--resolution", "2");
    assertThat(bare.exitCode).isEqualTo(2);
    assertThat(bare.err).contains("--resolution").contains("2s");
    assertUsage(CliRunner.run(ScheduleCommandTest.with(scan, "--report", "out")), "backoff: --report: the tipping-point scan writes no "
        + "report");
  }

  @Test
  void contentionJsonHasTheDocumentedShape() throws Exception {
    CliRunner result = CliRunner.run("contention", "--clients", "5,20", "--runs", "3", "--format", "json");
    assertThat(result.exitCode).as(result.err).isZero();
    JsonNode results = JSON.readTree(result.out).get("results");
    assertThat(results.size()).isEqualTo(2 * 6);
    JsonNode row = results.get(0);
    List<String> keys = new ArrayList<>();
    row.fieldNames().forEachRemaining(keys::add);
    assertThat(keys).containsExactly("strategy", "clients", "calls", "timeMs");
    assertThat(row.get("strategy").asText()).isEqualTo("none");
    assertThat(row.get("calls").asDouble()).isGreaterThanOrEqualTo(5.0);
  }

  @Test
  void contentionBadInputExitsTwo() {
    assertUsage(CliRunner.run("contention", "--runs", "0"), "runs: 0 is out of range (1..1000000)");
    assertUsage(CliRunner.run("contention", "--strategies", "full-jitter,psychic"), "unknown policy 'psychic'");
    assertUsage(CliRunner.run("contention", "--strategies", "full"), "unknown policy 'full'; did you mean 'full-jitter'?");
    assertUsage(CliRunner.run("contention", "--cap", "1ms"), "cap: must be at least base");
  }
}
