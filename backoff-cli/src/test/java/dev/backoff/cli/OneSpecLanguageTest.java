package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backoff.lab.LabServer;
import dev.backoff.spec.ExperimentPolicies;
import dev.backoff.spec.BackoffSpec;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every command accepts the same names, grammar and durations, with the same meaning. */
@Timeout(60)
class OneSpecLanguageTest {
  private static final String SPEC = "exponential:1ms:2:4ms:full";

  private static void assertUsage(CliRunner result, String message) {
    assertThat(result.exitCode).as(result.err).isEqualTo(2);
    assertThat(result.err).contains(message);
    assertThat(result.err.lines().count()).as(result.err).isEqualTo(2); // one line and the hint
    assertThat(result.err).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void theSameSpecIsAcceptedByScheduleSimulateLabRunAndHttp() throws Exception {
    String described = BackoffSpec.parse(SPEC).toBackoff().toString();
    CliRunner schedule = CliRunner.run("schedule", "--strategy", SPEC, "--retries", "3", "--samples", "50");
    assertThat(schedule.exitCode).as(schedule.err).isZero();
    assertThat(schedule.err).contains(described);

    CliRunner simulate = CliRunner.run("simulate", "--policies", SPEC + "," + SPEC + "+budget", "--clients", "20",
        "--duration", "10s", "--faults", "pause@2s+2s", "--format", "json");
    assertThat(simulate.exitCode).as(simulate.err).isZero();
    assertThat(new ObjectMapper().readTree(simulate.out).get("policies").get(0).get("name").asText()).isEqualTo(SPEC);

    CliRunner run = CliRunner.run("run", "--strategy", SPEC, "--max-attempts", "3", "--", "sh", "-c", "exit 3");
    assertThat(run.exitCode).as(run.err).isEqualTo(3);
    assertThat(run.err).contains("attempt 3 exited 3; giving up");

    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "hello\n"))) {
      CliRunner http = CliRunner.run("http", "--strategy", SPEC, server.uri("/api").toString());
      assertThat(http.exitCode).as(http.err).isZero();
      assertThat(http.err).contains("attempt 1: 503, retrying in");
    }

    try (LabServer server = LabServer.builder().start()) {
      CliRunner client = CliRunner.run("lab", "client", "--url", server.apiUri().toString(), "--clients", "2",
          "--think-mean", "100ms", "--timeout", "1s", "--policy", SPEC + "+budget", "--duration", "1s",
          "--format", "json");
      assertThat(client.exitCode).as(client.err).isZero();
      assertThat(client.out).startsWith("{\"policy\":\"" + SPEC + "+budget\"");
    }
    // The demo validates its policies before it starts anything.
    assertUsage(CliRunner.run("lab", "demo", "--policies", "exponential:1ms:x"), "multiplier 'x': not a number");
  }

  @Test
  void aBadSpecGetsTheSameMessageEverywhere() {
    String message = "bad strategy 'full-jitter:1s:100ms': cap 100ms is below initial 1s";
    assertUsage(CliRunner.run("schedule", "--strategy", "full-jitter:1s:100ms"), message);
    assertUsage(CliRunner.run("run", "--strategy", "full-jitter:1s:100ms", "--", "true"), message);
    assertUsage(CliRunner.run("http", "--strategy", "full-jitter:1s:100ms", "http://127.0.0.1:9/"), message);
    assertUsage(CliRunner.run("simulate", "--policies", "full-jitter:1s:100ms"), message);
    assertUsage(CliRunner.run("lab", "demo", "--policies", "full-jitter:1s:100ms"), message);
    assertUsage(CliRunner.run("lab", "client", "--policy", "full-jitter:1s:100ms", "--duration", "1s"), message);
  }

  @Test
  void theStormProtectionSuffixesMeanTheSameEverywhere() throws Exception {
    CliRunner simulate = CliRunner.run("simulate", "--policies", SPEC + "+budget+breaker:50%:10:5s", "--clients", "20",
        "--duration", "20s", "--faults", "crash@5s+10s", "--format", "json");
    assertThat(simulate.exitCode).as(simulate.err).isZero();
    com.fasterxml.jackson.databind.JsonNode policy = new ObjectMapper().readTree(simulate.out).get("policies").get(0);
    assertThat(policy.get("name").asText()).isEqualTo(SPEC + "+budget+breaker:50%:10:5s");
    assertThat(policy.get("summary").get("refused").asLong()).isPositive();
    assertThat(policy.get("series").get(10).get("breakerOpen").asDouble()).isPositive();
    CliRunner table = CliRunner.run("simulate", "--policies", "fixed,fixed+breaker", "--clients", "20",
        "--duration", "20s", "--faults", "crash@5s+10s");
    assertThat(table.exitCode).as(table.err).isZero();
    assertThat(table.out.lines().findFirst().orElseThrow()).endsWith("refused");

    try (LabServer server = LabServer.builder().start()) {
      CliRunner client = CliRunner.run("lab", "client", "--url", server.apiUri().toString(), "--clients", "2",
          "--think-mean", "100ms", "--timeout", "1s", "--policy", SPEC + "+breaker", "--duration", "1s",
          "--format", "json");
      assertThat(client.exitCode).as(client.err).isZero();
      assertThat(client.out).startsWith("{\"policy\":\"" + SPEC + "+breaker\"").contains("\"refused\":0");
    }
    String message = "bad policy 'fixed+breaker:150%': breaker failure rate '150%': out of range (0..100]%";
    assertUsage(CliRunner.run("simulate", "--policies", "fixed+breaker:150%"), message);
    assertUsage(CliRunner.run("lab", "demo", "--policies", "fixed+breaker:150%"), message);
    assertUsage(CliRunner.run("lab", "client", "--policy", "fixed+breaker:150%", "--duration", "1s"), message);
    assertThat(CliRunner.run("strategies").out).contains("+breaker[:rate%:window:wait:trials]",
        "+adaptive[:wait|fail|max-wait]", "+hedge:delay|pNN[:max-hedges][:key=value...]");
    CliRunner others = CliRunner.run("simulate", "--policies", "fixed+adaptive:fail,fixed+hedge:50ms", "--clients",
        "20", "--duration", "10s", "--faults", "none", "--format", "json");
    assertThat(others.exitCode).as(others.err).isZero();
    assertThat(others.out).contains("\"limiterFillRate\"", "\"hedgesSent\"");
    String hedge = "bad policy 'fixed+hedge': +hedge needs a delay, such as +hedge:50ms";
    assertUsage(CliRunner.run("simulate", "--policies", "fixed+hedge"), hedge);
    assertUsage(CliRunner.run("lab", "demo", "--policies", "fixed+hedge"), hedge);
    assertUsage(CliRunner.run("lab", "client", "--policy", "fixed+hedge", "--duration", "1s"), hedge);
  }

  @Test
  void theConcurrencySuffixIsCheckedByTheOneParserEverywhere() {
    String message = "bad policy 'fixed+concurrency:maxx=5': concurrency parameter 'maxx': unknown; did you mean "
        + "'max'?";
    assertUsage(CliRunner.run("lab", "client", "--policy", "fixed+concurrency:maxx=5", "--duration", "1s"), message);
    assertUsage(CliRunner.run("lab", "demo", "--policies", "fixed+concurrency:maxx=5"), message);
    assertUsage(CliRunner.run("simulate", "--policies", "fixed+concurrency:maxx=5"), message);
    assertUsage(CliRunner.run("lab", "client", "--policy", "fixed+concurrency:aimd:min=10:max=5", "--duration", "1s"),
        "bad policy 'fixed+concurrency:aimd:min=10:max=5': concurrency min 10 must not exceed max 5");
    // A good suffix gets through the parser to the simulator, which models it and counts its refusals.
    assertThat(CliRunner.run("simulate", "--policies", "fixed+concurrency:fixed=20", "--clients", "20",
        "--duration", "10s", "--faults", "pause@2s+2s").out)
        .contains("conc. shed first/retry");
    assertThat(CliRunner.run("strategies").out).contains("+concurrency[:gradient|aimd|fixed=n][:key=value...]",
        "retry-share");
    assertThat(CliRunner.run("lab", "client", "--help").out).contains("+concurrency[:gradient|aimd|fixed=n]");
  }

  @Test
  void aBareNumberIsRefusedWithTheSameHintEverywhere() {
    String hint = "'10' has no unit; write 10s";
    assertUsage(CliRunner.run("simulate", "--think-mean", "10"), hint);
    assertUsage(CliRunner.run("lab", "demo", "--think-mean", "10"), hint);
    assertUsage(CliRunner.run("lab", "client", "--think-mean", "10", "--duration", "1s"), hint);
    assertUsage(CliRunner.run("lab", "server", "--base-latency", "10", "--duration", "1s"), hint);
    assertUsage(CliRunner.run("schedule", "--strategy", "fixed", "--initial", "10"), hint);
    assertUsage(CliRunner.run("run", "--deadline", "10", "--", "true"), hint);
    assertUsage(CliRunner.run("http", "--timeout", "10", "http://127.0.0.1:9/"), hint);
    assertUsage(CliRunner.run("schedule", "--strategy", "fixed:10"), hint);
  }

  @Test
  void messagesEchoDurationsAsTheUserWritesThem() {
    assertUsage(CliRunner.run("tune", "--initial", "0s", "--multiplier", "2", "--at", "3s"),
        "initial must be positive, was 0s");
    assertUsage(CliRunner.run("run", "--deadline", "0s", "--", "true"), "--deadline must be positive, was 0s");
    assertUsage(CliRunner.run("http", "--timeout", "0s", "http://127.0.0.1:9/"), "--timeout must be positive, was 0s");
    assertUsage(CliRunner.run("lab", "demo", "--pause", "0s"), "--pause must be at least 1s, was 0s");
    assertUsage(CliRunner.run("lab", "client", "--think-mean", "0s", "--duration", "1s"),
        "--think-mean: must be positive, was 0s");
    for (CliRunner result : new CliRunner[] {CliRunner.run("tune", "--initial", "0s", "--multiplier", "2", "--at", "3s"),
        CliRunner.run("lab", "demo", "--pause", "0s")}) {
      assertThat(result.err).doesNotContain("PT");
    }
  }

  @Test
  void theLabsModelFlagsAreTheSimulatorsKeys() {
    assertUsage(CliRunner.run("lab", "server", "--knee-factor", "0.5", "--duration", "1s"),
        "--knee-factor: must be at least 1, was 0.5");
    assertUsage(CliRunner.run("simulate", "--knee-factor", "0.5"), "knee-factor: must be at least 1, was 0.5");
    assertThat(CliRunner.run("lab", "demo", "--think", "10s").exitCode).isEqualTo(2); // the old spelling is gone
    CliRunner help = CliRunner.run("lab", "demo", "--help");
    assertThat(help.out).contains("--think-mean", "--base-latency", "--knee-limit", "--knee-factor", "--knee-k",
        "--backlog", "--clients", "--timeout");
  }

  @Test
  void strategiesListsEveryNameTheCommandsAccept() {
    CliRunner strategies = CliRunner.run("strategies");
    assertThat(strategies.exitCode).isZero();
    for (String name : ExperimentPolicies.allNames()) {
      assertThat(strategies.out).contains(name);
      if (!name.equals("storm-exponential-original")) {
        assertThat(CliRunner.run("schedule", "--strategy", name, "--retries", "2", "--samples", "10").exitCode)
            .as(name).isZero();
      }
      assertThat(CliRunner.run("simulate", "--policies", name, "--clients", "10", "--duration", "5s",
          "--faults", "none", "--format", "csv").exitCode).as(name).isZero();
    }
    assertThat(strategies.out).contains("exponential[:INITIAL:MULTIPLIER:CAP:JITTER]", "+budget", "token-bucket");
  }

  @Test
  void bareFullJitterHasTheDocumentedTwentySecondCapEverywhere() {
    String capped = BackoffSpec.of("full-jitter").toBackoff().toString();
    assertThat(capped).contains("cap 20s");
    assertThat(CliRunner.run("schedule", "--strategy", "full-jitter", "--retries", "2", "--samples", "10").err)
        .contains(capped);
  }
}
