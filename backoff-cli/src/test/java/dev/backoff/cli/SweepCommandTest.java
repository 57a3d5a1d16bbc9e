package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] SMALL = {"--clients", "200", "--duration", "60s", "--faults", "pause@20s+10s"};

  @TempDir Path directory;

  private static String[] sweep(String... extra) {
    List<String> all = new ArrayList<>(List.of("sweep"));
    all.addAll(List.of(extra));
    all.addAll(List.of(SMALL));
    if (!all.contains("--policies")) {
      all.addAll(List.of("--policies", "fixed,full-jitter:100ms:20s"));
    }
    if (!all.contains("--seeds")) {
      all.addAll(List.of("--seeds", "2"));
    }
    return all.toArray(new String[0]);
  }

  @Test
  void oneParameterPrintsARowPerValueAndAColumnPerPolicy() {
    CliRunner result = CliRunner.run(sweep("pause=5s..15s:5s"));
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(result.err).isEmpty();
    List<String> lines = result.out.lines().toList();
    assertThat(lines.get(0)).isEqualTo("sweep of pause (3 values), 2 policies, 2 seeds each (seeds 3..4): 12 runs.");
    assertThat(lines.get(1)).isEqualTo("Share of runs that recovered (k/n, 95% Wilson interval).");
    assertThat(lines.get(3)).matches("pause +fixed +full-jitter:100ms:20s");
    assertThat(lines.subList(5, 8)).allMatch(line -> line.matches("(5s|10s|15s) +\\d/2 \\[.*\\] +\\d/2 \\[.*\\]"));
    CliRunner amplification = CliRunner.run(sweep("pause=5s..15s:5s", "--metric", "amplification"));
    assertThat(amplification.out).contains("Median amplification, with its 95% interval.");
  }

  @Test
  void theOutputIsTheSameForAnyThreadCountInEveryFormat() {
    for (String format : List.of("table", "csv", "json")) {
      CliRunner one = CliRunner.run(sweep("clients=100,200", "timeout=1s,2s", "--format", format, "--threads", "1"));
      CliRunner three = CliRunner.run(sweep("clients=100,200", "timeout=1s,2s", "--format", format, "--threads", "3"));
      assertThat(one.exitCode).as(one.err).isZero();
      assertThat(three.out).as(format).isEqualTo(one.out);
    }
  }

  @Test
  void jsonCarriesEveryMetricOfEveryPointAndTheReportHasItsFiles() throws Exception {
    Path report = directory.resolve("report");
    CliRunner result = CliRunner.run(sweep("initial=50ms,200ms", "--policies", "full-jitter,exponential:100ms:2:20s",
        "--format", "json", "--report", report.toString()));
    assertThat(result.exitCode).as(result.err).isZero();
    JsonNode json = JSON.readTree(result.out);
    assertThat(json.get("parameters").get(0).get("key").asText()).isEqualTo("initial");
    assertThat(json.get("points").size()).isEqualTo(2);
    JsonNode policy = json.get("points").get(1).get("policies").get(1);
    assertThat(policy.get("name").asText()).isEqualTo("exponential:100ms:2:20s");
    assertThat(policy.get("runs").asInt()).isEqualTo(2);
    List<String> metrics = new ArrayList<>();
    policy.get("metrics").fieldNames().forEachRemaining(metrics::add);
    assertThat(metrics).containsExactly("recoverySeconds", "amplification", "peakConcurrency", "successRatio",
        "p99SuccessLatencySeconds");
    assertThat(Files.readString(report.resolve("sweep.json"))).isEqualTo(result.out);
    assertThat(Files.readString(report.resolve("sweep.csv")).lines()).hasSize(1 + 4);
    assertThat(Files.readString(report.resolve("sweep.html"))).contains("<svg ").doesNotContain("<script");
    assertThat(result.err).isEqualTo("backoff: report written to " + report.resolve("sweep.html") + "\n");
  }

  @Test
  void badRangesAndOptionsExitTwoWithOneLineAndAHint() {
    assertUsage(CliRunner.run(sweep("clients=500..x")),
        "backoff: clients=500..x: the end 'x' is not a whole number; write e.g. clients=500..5000:500");
    assertUsage(CliRunner.run(sweep("clients=5000..500")), "the range runs backwards");
    assertUsage(CliRunner.run(sweep("pause=5s..60s:0s")), "the step 0s must be positive");
    assertUsage(CliRunner.run(sweep("wat=1..2")), "unknown key 'wat'");
    assertUsage(CliRunner.run(sweep("cap=1s..5s")), "backoff: cap=1s: policies: policy 'fixed' has no cap (fixed[:DELAY])");
    assertUsage(CliRunner.run(sweep("pause=10s..60s:10s")), "backoff: pause=50s: faults: ");
    assertUsage(CliRunner.run(sweep("clients=1,2", "--metric", "speed")), "backoff: --metric: unknown metric 'speed'; use "
        + "one of recovered, recovery-time, amplification, peak-concurrency, success, p99");
    assertUsage(CliRunner.run(sweep("clients=1,2", "--format", "xml")), "--format: unknown format 'xml'");
    assertUsage(CliRunner.run(sweep("clients=1,2", "--threads", "0")), "--threads: must be at least 1, was 0");
    assertUsage(CliRunner.run(sweep("clients=1,2", "--seeds", "0")), "--seeds: must be at least 1, was 0");
    assertUsage(CliRunner.run(sweep("clients=1,2", "timeout=1s,2s", "knee-k=1,2")), "");
    assertUsage(CliRunner.run("sweep"), "");
  }

  private static void assertUsage(CliRunner result, String message) {
    assertThat(result.exitCode).as(result.err).isEqualTo(2);
    assertThat(result.err.lines().toList()).as(result.err).hasSize(2);
    assertThat(result.err).contains(message).doesNotContain("Exception");
    assertThat(result.err.lines().toList().get(1)).contains("backoff sweep --help");
    assertThat(result.out).isEmpty();
  }
}
