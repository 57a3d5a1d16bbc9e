package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backoff.spec.ExperimentPolicies;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code backoff simulate} as a user meets it: the reported misleading verdicts, the tipping point's
 * sentences, the attempt limit of a scenario, and durations and names as the user wrote them.
 */
class SimulateVerdictsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path directory;

  private static List<String> rows(String table) {
    List<String> lines = table.lines().toList();
    int blank = lines.indexOf("");
    return lines.subList(2, blank);
  }

  private static void assertDownBeforeTheFault(CliRunner result) {
    assertThat(result.exitCode).as(result.err).isZero();
    List<String> rows = rows(result.out);
    assertThat(rows).hasSize(4);
    for (String row : rows) {
      String[] cells = row.split("\\s{2,}");
      assertThat(cells[3]).as(row).isEqualTo("down before the fault");
      assertThat(cells[4]).as(row).isEqualTo("-"); // no recovery time
      assertThat(cells[9]).as(row).isEqualTo("-"); // no p99 without successes, not 0µs
    }
    assertThat(result.out).doesNotContain(" yes ").doesNotContain("0µs")
        .contains("\u00b7 = none (nothing succeeded in any run)");
  }

  @Test
  void aTimeoutNothingCanMeetIsDownBeforeTheFaultNotRecovered() {
    assertDownBeforeTheFault(CliRunner.run("simulate", "--timeout", "500us"));
  }

  @Test
  @Tag("slow")
  void twentyThousandClientsOverloadTheServerBeforeTheFault() {
    assertDownBeforeTheFault(CliRunner.run("simulate", "--clients", "20000"));
  }

  @Test
  void jsonAndBothCsvsSayTheSame() throws Exception {
    String[] small = {"simulate", "--clients", "50", "--duration", "60s", "--faults", "pause@30s+5s", "--timeout",
        "500us", "--policies", "fixed"};
    JsonNode summary = JSON.readTree(CliRunner.run(with(small, "--format", "json")).out)
        .get("policies").get(0).get("summary");
    assertThat(summary.get("verdict").asText()).isEqualTo("down-before-fault");
    assertThat(summary.get("recovered").asBoolean()).isFalse();
    assertThat(summary.get("recoverySeconds").isNull()).isTrue();
    assertThat(summary.get("p99SuccessLatencySeconds").isNull()).isTrue();
    CliRunner csv = CliRunner.run(with(small, "--format", "summary-csv"));
    assertThat(csv.exitCode).as(csv.err).isZero();
    long baselineAttempts = 0;
    JsonNode series = JSON.readTree(CliRunner.run(with(small, "--format", "json")).out).get("policies").get(0)
        .get("series");
    for (int t = 15; t < 30; t++) {
      baselineAttempts += series.get(t).get("attempts").asLong();
    }
    assertThat(csv.out).isEqualTo("policy,verdict,recovered,baselineGoodput,goodputAfterFault,recoverySeconds,"
        + "peakConcurrency,amplification,successRatio,p99SuccessLatencySeconds,logicalRequests,attempts,"
        + "unfinishedRequests,verdictReason\n"
        + "fixed,down-before-fault,false,0.000,0.000,," + summary.get("peakConcurrency").asText() + ","
        + summary.get("amplification").decimalValue().setScale(4) + ",0.0000,,"
        + summary.get("logicalRequests").asText() + "," + summary.get("attempts").asText() + ","
        + summary.get("unfinishedRequests").asText() + ",no request succeeded in the baseline window (15s to 30s) ("
        + baselineAttempts + " attempts)\n");
    // Per second: a second without successes has empty client latencies, not 0.
    String second = CliRunner.run(with(small, "--format", "csv")).out.lines().skip(11).findFirst().orElseThrow();
    assertThat(second).startsWith("fixed,10,").endsWith(",,,");
  }

  @Test
  @Tag("slow")
  void theTippingPointScanSaysWhyNoLengthComesBack() throws Exception {
    CliRunner down = CliRunner.run("simulate", "--clients", "50", "--duration", "60s", "--faults", "pause@30s+5s",
        "--timeout", "500us", "--policies", "fixed", "--tipping-point");
    assertThat(down.exitCode).as(down.err).isZero();
    // 60 s leave no room to lengthen a fault at 30 s: only 1 s is tested.
    assertThat(down.out).isEqualTo("The first fault, pause@30s+5s, at 1 length from 1s to 1s: every 5s, and every "
        + "1s between two lengths whose outcome differs; seed 3; 1 run.\n"
        + "Each cell: the seeds in which the server came back (verdict yes or late) of those run. Lengths not listed "
        + "were not tested.\n\n"
        + "fault  fixed\n   1s    0/1\n\n"
        + "fixed:\n  did not come back on every seed even at the shortest length, 1s\n"
        + "  fails at 1s: 0 of 1 seed came back (the others: 1 down before the fault)\n");
    String[] nearTheKnee = {"simulate", "--clients", "4000", "--duration", "200s", "--faults", "pause@60s+10s",
        "--policies", "fixed", "--tipping-point", "--format", "json"};
    JsonNode policy = JSON.readTree(CliRunner.run(nearTheKnee).out).get("policies").get(0);
    assertThat(policy.get("recoversUpToSeconds").isNull()).isTrue();
    assertThat(policy.get("firstFailingSeconds").asInt()).isEqualTo(1);
    assertThat(policy.get("failing").toString()).isEqualTo("[{\"fromSeconds\":1,\"toSeconds\":20,"
        + "\"fewestCameBack\":0,\"mostCameBack\":0,\"notBack\":{\"not-recovered\":5}}]");
  }

  @Test
  void aScenariosAttemptLimitAppliesToPresetsAndExperimentPoliciesToo() throws Exception {
    // The flag: one attempt means no retry at all, whatever the policy's own limit.
    CliRunner once = CliRunner.run("simulate", "--policies", "aws-standard,storm-fixed,google-cloud", "--max-attempts",
        "1", "--clients", "300", "--duration", "60s", "--faults", "pause@20s+10s", "--format", "json");
    assertThat(once.exitCode).as(once.err).isZero();
    for (JsonNode policy : JSON.readTree(once.out).get("policies")) {
      assertThat(policy.get("summary").get("amplification").asDouble()).as(policy.get("name").asText()).isEqualTo(1.0);
    }
    // The file: two attempts bound every policy; without the key the presets keep their own limits.
    Path file = directory.resolve("limited.yaml");
    Files.writeString(file, "clients: 300\nduration: 60s\nfaults: [pause@20s+10s]\n"
        + "policies: [fixed, aws-standard, storm-exponential]\nmax-attempts: 2\n");
    CliRunner limited = CliRunner.run("simulate", "--scenario", file.toString(), "--format", "json");
    assertThat(limited.exitCode).as(limited.err).isZero();
    for (JsonNode policy : JSON.readTree(limited.out).get("policies")) {
      JsonNode s = policy.get("summary");
      assertThat(s.get("attempts").asLong()).as(policy.get("name").asText())
          .isLessThanOrEqualTo(2 * s.get("logicalRequests").asLong())
          .isGreaterThan(s.get("logicalRequests").asLong()); // the pause made them retry, once
    }
  }

  @Test
  void durationsAndFaultsAreEchoedAsTheUserWroteThem() throws Exception {
    assertUsage(CliRunner.run("simulate", "--duration", "1m", "--faults", "pause@90s+30s"),
        "faults: 'pause@90s+30s' lies outside the run of 1m");
    assertUsage(CliRunner.run("simulate", "--duration", "PT20S"), "lies outside the run of PT20S");
    Path file = directory.resolve("short.yaml");
    Files.writeString(file, "duration: 1m\nfaults:\n  - type: pause\n    at: 90s\n    length: 30s\n");
    assertUsage(CliRunner.run("simulate", "--scenario", file.toString()), "lies outside the run of 1m");
    CliRunner minutes = CliRunner.run("simulate", "--clients", "100", "--duration", "3m", "--faults", "pause@1m+30s",
        "--policies", "fixed");
    assertThat(minutes.exitCode).as(minutes.err).isZero();
    assertThat(minutes.out).contains("^ = pause@1m+30s\n").doesNotContain("PT");
  }

  @Test
  void aScenarioFileAcceptsEveryNameThatStrategiesLists() throws Exception {
    String strategies = CliRunner.run("strategies").out;
    List<String> names = new ArrayList<>(ExperimentPolicies.allNames());
    for (String name : names) {
      assertThat(strategies).contains("  " + name);
    }
    Path file = directory.resolve("all.yaml");
    Files.writeString(file, "clients: 10\nduration: 5s\nfaults: none\npolicies: [" + String.join(", ", names) + "]\n");
    CliRunner all = CliRunner.run("simulate", "--scenario", file.toString(), "--format", "json");
    assertThat(all.exitCode).as(all.err).isZero();
    List<String> simulated = new ArrayList<>();
    JSON.readTree(all.out).get("policies").forEach(policy -> simulated.add(policy.get("name").asText()));
    assertThat(simulated).isEqualTo(names);
  }

  private static String[] with(String[] base, String... extra) {
    List<String> all = new ArrayList<>(List.of(base));
    all.addAll(List.of(extra));
    return all.toArray(new String[0]);
  }

  private static void assertUsage(CliRunner result, String message) {
    assertThat(result.exitCode).as(result.err).isEqualTo(2);
    assertThat(result.err).contains(message).doesNotContain("Exception");
    assertThat(result.out).isEmpty();
  }
}
