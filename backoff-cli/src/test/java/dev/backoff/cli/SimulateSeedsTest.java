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

class SimulateSeedsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] SMALL = {"--clients", "200", "--duration", "60s", "--faults", "pause@20s+10s",
      "--policies", "fixed,full-jitter:100ms:20s"};

  @TempDir Path directory;

  private static String[] args(String... extra) {
    List<String> all = new ArrayList<>(List.of("simulate"));
    all.addAll(List.of(SMALL));
    all.addAll(List.of(extra));
    return all.toArray(new String[0]);
  }

  @Test
  void everyFormatIsTheSameForAnyThreadCount() {
    for (String format : List.of("table", "csv", "summary-csv", "json")) {
      CliRunner one = CliRunner.run(args("--seeds", "6", "--threads", "1", "--format", format));
      CliRunner three = CliRunner.run(args("--seeds", "6", "--threads", "3", "--format", format));
      assertThat(one.exitCode).as(one.err).isZero();
      assertThat(one.err).isEmpty();
      assertThat(three.out).as(format).isEqualTo(one.out);
    }
  }

  @Test
  void theTableHasARowPerPolicyAndTheCsvARowPerRun() throws Exception {
    CliRunner table = CliRunner.run(args("--seeds", "6", "--seed", "10"));
    assertThat(table.exitCode).as(table.err).isZero();
    List<String> lines = table.out.lines().toList();
    assertThat(lines.get(0)).startsWith("2 policies over 6 seeds (seeds 10..15); 95% intervals: ");
    assertThat(lines.get(3)).startsWith("policy ").contains("recovered", "95% interval", "amplification", "p99 (successes)");
    assertThat(lines.get(5)).matches("fixed +\\d/6  \\[.*");
    assertThat(lines.get(6)).matches("full-jitter:100ms:20s +\\d/6  \\[.*");
    CliRunner csv = CliRunner.run(args("--seeds", "6", "--seed", "10", "--format", "csv"));
    assertThat(csv.out.lines().toList()).hasSize(1 + 12).element(1).asString().startsWith("fixed,10,");
    // Seed 10 of the runs over seeds is exactly the single run with --seed 10.
    CliRunner single = CliRunner.run(args("--seed", "10", "--format", "summary-csv"));
    String singleFixed = single.out.lines().toList().get(1); // policy,verdict,recovered,baseline,after,recovery,...
    String seedsFixed = csv.out.lines().toList().get(1);
    String[] a = singleFixed.split(",", -1);
    String[] b = seedsFixed.split(",", -1);
    assertThat(b[2]).isEqualTo(a[1]); // verdict
    assertThat(b[4]).isEqualTo(a[5]); // recovery seconds
    assertThat(b[5]).isEqualTo(a[6]); // peak concurrency
    assertThat(b[6]).isEqualTo(a[7]); // amplification
    // Each run's reason is the single run's, in the CSV, the JSON and the table.
    String reason = JSON.readTree(CliRunner.run(args("--seed", "10", "--format", "json")).out).get("policies")
        .get(0).get("summary").get("verdictReason").asText();
    assertThat(reason).isNotBlank();
    assertThat(seedsFixed).endsWith(reason.contains(",") ? ",\"" + reason.replace("\"", "\"\"") + "\"" : "," + reason);
    assertThat(JSON.readTree(CliRunner.run(args("--seeds", "6", "--seed", "10", "--format", "json")).out)
        .get("policies").get(0).get("perSeed").get(0).get("verdictReason").asText()).isEqualTo(reason);
    assertThat(table.out).contains("\nwhy, run by run:\n  fixed\n    seed 10  ").contains("  " + reason + "\n");
    JsonNode json = JSON.readTree(CliRunner.run(args("--seeds", "6", "--format", "json")).out);
    assertThat(json.get("seeds").get("count").asInt()).isEqualTo(6);
    assertThat(json.get("confidence").asDouble()).isEqualTo(0.95);
    assertThat(json.get("policies").size()).isEqualTo(2);
    assertThat(json.get("policies").get(1).get("metrics").get("amplification").get("values").size()).isEqualTo(6);
  }

  @Test
  void theReportHasTheFourFiles() throws Exception {
    Path report = directory.resolve("out");
    CliRunner result = CliRunner.run(args("--seeds", "3", "--report", report.toString()));
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(result.err).isEqualTo("backoff: report written to " + report.resolve("seeds.html") + "\n");
    assertThat(Files.readString(report.resolve("seeds.html"))).contains("<svg ").doesNotContain("<script");
    assertThat(Files.readString(report.resolve("seeds.json"))).isEqualTo(
        CliRunner.run(args("--seeds", "3", "--format", "json")).out);
    assertThat(Files.readString(report.resolve("seeds.csv")).lines()).hasSize(7);
    assertThat(Files.readString(report.resolve("seeds-summary.csv")).lines()).hasSize(1 + 2 * (6 + 9)); // 6 headline and 9 storm-protection numbers
  }

  @Test
  @Tag("slow")
  void tippingPointsOverSeedsCountTheSeedsThatCameBackAtEachLength() throws Exception {
    String[] tipping = {"simulate", "--duration", "200s", "--policies", "storm-exponential-full-jitter", "--seeds",
        "3", "--tipping-point", "--grid", "10s", "--resolution", "5s"};
    CliRunner text = CliRunner.run(tipping);
    assertThat(text.exitCode).as(text.err).isZero();
    assertThat(text.out).contains("; 3 seeds (3 to 5); ").contains("\n   1s                            3/3\n");
    List<String> withJson = new ArrayList<>(List.of(tipping));
    withJson.addAll(List.of("--format", "json", "--threads", "1"));
    String one = CliRunner.run(withJson.toArray(new String[0])).out;
    withJson.set(withJson.size() - 1, "2");
    assertThat(CliRunner.run(withJson.toArray(new String[0])).out).isEqualTo(one);
    JsonNode json = JSON.readTree(one);
    assertThat(json.get("scan").get("seeds").toString()).isEqualTo("{\"first\":3,\"last\":5,\"count\":3}");
    JsonNode policy = json.get("policies").get(0);
    for (JsonNode length : policy.get("lengths")) {
      assertThat(length.get("verdicts").size()).isEqualTo(3);
      int cameBack = 0;
      for (JsonNode verdict : length.get("verdicts")) {
        cameBack += verdict.asText().equals("recovered") || verdict.asText().equals("late") ? 1 : 0;
      }
      assertThat(length.get("cameBack").asInt()).isEqualTo(cameBack);
    }
    // The 10 s pause sinks full jitter on these seeds while 20 s does not.
    assertThat(policy.get("monotone").asBoolean()).isFalse();
    assertThat(text.out).contains("\n  not monotone: ");
  }

  @Test
  void badSeedAndThreadValuesAreUsageErrors() {
    assertUsage(CliRunner.run(args("--seeds", "0")), "backoff: --seeds: must be at least 1, was 0");
    assertUsage(CliRunner.run(args("--seeds", "many")), "--seeds");
    assertUsage(CliRunner.run(args("--seeds", "3", "--threads", "0")), "backoff: --threads: must be at least 1, was 0");
    assertUsage(CliRunner.run(args("--threads", "2")), "backoff: --threads: sets how many runs over seeds go at once; add --seeds COUNT");
    assertUsage(CliRunner.run(args("--seeds", "2", "--timeline")), "--timeline");
    assertUsage(CliRunner.run(args("--seeds", "2", "--tipping-point", "--report", "out")),
        "backoff: --report: the tipping-point scan writes no report");
    assertUsage(CliRunner.run(args("--seeds", "3", "--seed", "9223372036854775806")),
        "backoff: seeds: 3 seeds from seed 9223372036854775806 would pass the largest seed");
  }

  private static void assertUsage(CliRunner result, String message) {
    assertThat(result.exitCode).as(result.err).isEqualTo(2);
    assertThat(result.err.lines().toList()).as(result.err).hasSize(2);
    assertThat(result.err).contains(message).doesNotContain("Exception");
    assertThat(result.out).isEmpty();
  }
}
