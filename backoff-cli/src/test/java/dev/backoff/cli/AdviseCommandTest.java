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

class AdviseCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The retry-storm experiment, small: 200 clients at 100 requests/s, a 15 s pause, 120 s. */
  private static final String[] SMALL = {"--clients", "200", "--think-mean", "2s", "--duration", "120s",
      "--faults", "pause@30s+15s"};

  @TempDir Path directory;

  private static CliRunner advise(String... extra) {
    List<String> all = new ArrayList<>(List.of("advise"));
    all.addAll(List.of(SMALL));
    all.addAll(List.of(extra));
    return CliRunner.run(all.toArray(new String[0]));
  }

  @Test
  void aMetObjectiveExitsZeroAndItsSimulateArgumentsRunThePolicy() throws Exception {
    CliRunner result = advise("--objective", "recovers>=0.5,amplification<=1.3", "--seeds", "1", "--budget", "12",
        "--threads", "2", "--format", "json");
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(result.err).isEmpty();
    JsonNode root = JSON.readTree(result.out);
    assertThat(root.get("met").asBoolean()).isTrue();
    assertThat(root.get("search").get("runs").asInt()).isEqualTo(12);
    JsonNode recommended = root.get("recommended");
    String policy = recommended.get("policy").asText();
    assertThat(recommended.get("java").asText()).contains("RetryPolicy<Object> policy = ");
    assertThat(recommended.get("springProperties").get("backoff.policies.advised.strategy").asText())
        .isEqualTo(policy.replace("+budget", ""));
    List<String> simulate = new ArrayList<>(List.of("simulate"));
    simulate.addAll(List.of(SMALL));
    recommended.get("simulateArguments").forEach(argument -> simulate.add(argument.asText()));
    simulate.addAll(List.of("--format", "json"));
    CliRunner run = CliRunner.run(simulate.toArray(new String[0]));
    assertThat(run.exitCode).as(run.err).isZero();
    JsonNode summary = JSON.readTree(run.out).get("policies").get(0);
    assertThat(summary.get("name").asText()).isEqualTo(policy);
    // The advisor's first seed is the scenario's seed: simulate's one run is the advisor's run.
    assertThat(summary.get("summary").get("amplification").decimalValue().doubleValue())
        .isCloseTo(root.get("meeting").get(0).get("metrics").get("amplification").get("value").asDouble(),
            org.assertj.core.api.Assertions.within(0.0001));
  }

  @Test
  void theTableShowsTheRecommendationInEveryForm() {
    CliRunner result = advise("--objective", "recovers>=0.5", "--seeds", "1", "--budget", "3", "--threads", "1");
    assertThat(result.exitCode).isZero();
    assertThat(result.out).startsWith("searched 3 of 44 grid candidates and 0 refinements: 3 runs of 120 s, 1 seed "
        + "each (seed 3); stopped by the run budget (3)\nobjectives: recovers>=0.5\n");
    assertThat(result.out).contains("\nrecommended: ", "\nJava:\n  import dev.backoff.", "  RetryPolicy<Object> policy = ",
        "\nsimulate:\n  backoff simulate --policies ", "\nSpring (application.properties):\n"
            + "  backoff.policies.advised.strategy=");
  }

  @Test
  void noPolicyMeetingTheObjectivesExitsOneNamingTheBindingObjective() {
    CliRunner result = advise("--objective", "recovers>=0.5,p99<=1ms", "--seeds", "1", "--budget", "4");
    assertThat(result.exitCode).isEqualTo(1);
    assertThat(result.out).contains("no policy met every objective.\nno policy met p99<=1ms: the best was 100ms (");
    assertThat(result.out).doesNotContain("recommended:");
    assertThat(result.err).startsWith("backoff: no policy met every objective: no policy met p99<=1ms: the best was "
        + "100ms (");
    assertThat(result.err.lines().count()).isEqualTo(1);
  }

  @Test
  void badObjectivesAreUsageErrorsOfOneLineAndAHint() {
    CliRunner result = advise("--objective", "recovers>=0.95,p99<=10");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.out).isEmpty();
    assertThat(result.err.lines().toList()).hasSize(2);
    assertThat(result.err.lines().toList().get(0)).startsWith("backoff: --objective: bad objective 'p99<=10': "
        + "p99 value '10': ");
    assertThat(result.err.lines().toList().get(1)).isEqualTo("Objectives look like "
        + "'recovers>=0.95,amplification<=1.3,p99<=10s'; metrics: recovers, success-ratio, amplification, p99, "
        + "recovery-time, peak-concurrency. Try 'backoff advise --help'.");
    CliRunner unknown = advise("--objective", "latency<=1s");
    assertThat(unknown.exitCode).isEqualTo(2);
    assertThat(unknown.err).startsWith("backoff: --objective: bad objective 'latency<=1s': unknown metric 'latency'");
  }

  @Test
  void otherUsageErrorsExitTwo() {
    assertThat(advise().exitCode).isEqualTo(2);
    assertThat(advise().err).startsWith("backoff: Missing required option: '--objective=<objective>[,<objective>...]'");
    CliRunner seeds = advise("--objective", "recovers>=0.5", "--seeds", "0");
    assertThat(seeds.exitCode).isEqualTo(2);
    assertThat(seeds.err).startsWith("backoff: --seeds: seeds must be from 1 to 1000, was 0\n");
    CliRunner budget = advise("--objective", "recovers>=0.5", "--budget", "4");
    assertThat(budget.exitCode).isEqualTo(2);
    assertThat(budget.err).startsWith("backoff: --budget: the run budget must pay for at least one candidate (5 runs, "
        + "one per seed), was 4\n");
    CliRunner policies = advise("--objective", "recovers>=0.5", "--policies", "fixed");
    assertThat(policies.exitCode).isEqualTo(2);
    assertThat(policies.err).startsWith("backoff: unknown option '--policies' for 'backoff advise'");
    CliRunner format = advise("--objective", "recovers>=0.5", "--format", "xml");
    assertThat(format.exitCode).isEqualTo(2);
    assertThat(format.err).startsWith("backoff: --format: unknown format 'xml'; use table or json\n");
    CliRunner noFault = CliRunner.run("advise", "--clients", "200", "--duration", "60s", "--faults", "",
        "--objective", "recovers>=0.5");
    assertThat(noFault.exitCode).isEqualTo(2);
    assertThat(noFault.err).startsWith("backoff: faults: objective 'recovers>=0.5' asks about recovery");
  }

  @Test
  void sameArgumentsGiveTheSameBytesOnOneThreadOrTwo() {
    CliRunner one = advise("--objective", "recovers>=0.5,amplification<=1.2", "--seeds", "2", "--budget", "16",
        "--threads", "1");
    CliRunner two = advise("--objective", "recovers>=0.5,amplification<=1.2", "--seeds", "2", "--budget", "16",
        "--threads", "2");
    assertThat(one.exitCode).isZero();
    assertThat(two.out).isEqualTo(one.out);
    CliRunner json = advise("--objective", "recovers>=0.5,amplification<=1.2", "--seeds", "2", "--budget", "16",
        "--threads", "2", "--format", "json");
    CliRunner jsonAgain = advise("--objective", "recovers>=0.5,amplification<=1.2", "--seeds", "2", "--budget", "16",
        "--threads", "1", "--format", "json");
    assertThat(jsonAgain.out).isEqualTo(json.out);
  }

  @Test
  void aScenarioFilesPoliciesAttemptsAndBudgetAreReplaced() throws Exception {
    Path file = directory.resolve("small.yaml");
    Files.writeString(file, "clients: 200\nthink-mean: 2s\nduration: 120s\nfaults: [pause@30s+15s]\n"
        + "policies: [storm-fixed]\nmax-attempts: 2\nbudget: grpc\n");
    CliRunner fromFile = CliRunner.run("advise", "--scenario", file.toString(), "--objective", "recovers>=0.5",
        "--seeds", "1", "--budget", "3", "--format", "json");
    CliRunner fromFlags = advise("--objective", "recovers>=0.5", "--seeds", "1", "--budget", "3", "--format", "json");
    assertThat(fromFile.exitCode).as(fromFile.err).isZero();
    assertThat(fromFile.out).isEqualTo(fromFlags.out);
  }
}
