package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.backoff.lab.LabServer;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The lab's commands in-process. Its tests run side by side: most wait out a lab run of a few seconds, each on a
 * server of its own on an ephemeral port (or none), and none asserts a timing.
 */
@Timeout(120)
@Execution(ExecutionMode.CONCURRENT)
class LabCommandTest {

  @Test
  void labNeedsASubcommand() {
    CliRunner result = CliRunner.run("lab");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("server, client, demo or calibrate");
  }

  @Test
  void serverFlagsAreValidatedByName() {
    CliRunner factor = CliRunner.run("lab", "server", "--knee-factor", "0.5", "--duration", "1s");
    assertThat(factor.exitCode).isEqualTo(2);
    assertThat(factor.err).contains("--knee-factor").contains("0.5");
    CliRunner k = CliRunner.run("lab", "server", "--knee-k", "0", "--duration", "1s");
    assertThat(k.exitCode).isEqualTo(2);
    assertThat(k.err).contains("--knee-k");
    CliRunner port = CliRunner.run("lab", "server", "--port", "70000");
    assertThat(port.exitCode).isEqualTo(2);
    assertThat(port.err).contains("--port").contains("70000");
  }

  @Test
  void serverPrintsTheSeedsStatusLineEverySecond() {
    CliRunner result = CliRunner.run("lab", "server", "--port", "0", "--duration", "2500ms");
    assertThat(result.exitCode).isZero();
    assertThat(result.out).contains("concurrency: 0, last delay: 0");
    assertThat(result.err).contains("http://127.0.0.1:").contains("/admin/pause").contains("/admin/reset");
  }

  @Test
  void clientRefusesAnythingButLoopback() {
    CliRunner result = CliRunner.run("lab", "client", "--url", "http://192.0.2.1/api", "--duration", "1s");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("--url").contains("loopback");
  }

  @Test
  void clientRejectsUnknownPoliciesAndBadNumbers() {
    CliRunner policy = CliRunner.run("lab", "client", "--policy", "sometimes", "--duration", "1s");
    assertThat(policy.exitCode).isEqualTo(2);
    assertThat(policy.err).contains("--policy").contains("sometimes");
    CliRunner clients = CliRunner.run("lab", "client", "--clients", "0", "--duration", "1s");
    assertThat(clients.exitCode).isEqualTo(2);
    assertThat(clients.err).contains("--clients").contains("0");
  }

  @Test
  void aFleetAboveUlimitIsRefusedWithTheFix() {
    // Only meaningful (and only safe) where a million sockets are more than the process may open.
    Assumptions.assumeTrue(ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
        && unix.getMaxFileDescriptorCount() < 1_000_000);
    CliRunner result = CliRunner.run("lab", "client", "--url", "http://127.0.0.1:9/api", "--clients", "1000000",
        "--duration", "1s");
    assertThat(result.exitCode).isEqualTo(1);
    assertThat(result.err).contains("ulimit -n is").contains("--clients 1000000").contains("raise it");
  }

  @Test
  void clientRunsAFleetAndPrintsTheSeedsLinesAndAJsonSummary() throws Exception {
    try (LabServer server = LabServer.builder().start()) {
      CliRunner result = CliRunner.run("lab", "client", "--url", server.apiUri().toString(), "--clients", "20",
          "--think-mean", "200ms", "--timeout", "1s", "--policy", "fixed", "--duration", "6s", "--format", "json");
      assertThat(result.exitCode).isZero();
      assertThat(result.err).containsPattern("OK: [0-9.]+ req/sec, errors: [0-9.]+ req/sec, timedout: [0-9.]+ req/sec");
      assertThat(result.out).startsWith("{\"policy\":\"fixed\",\"clients\":20,\"summary\":{\"baselineGoodput\":")
          .contains("\"recovered\":null", "\"p50SuccessLatencySeconds\":", "\"hedgeDelay\":null,\"series\":[{\"t\":0,");
      assertThat(server.stats().answered()).isPositive();
    }
  }

  @Test
  @org.junit.jupiter.api.Tag("slow")
  void clientsProgressGoesToStderrAndOnlyItsSummaryToStdout() throws Exception {
    try (LabServer server = LabServer.builder().start()) {
      CliRunner result = CliRunner.run("lab", "client", "--url", server.apiUri().toString(), "--clients", "20",
          "--think-mean", "200ms", "--timeout", "1s", "--policy", "fixed", "--duration", "6s");
      assertThat(result.exitCode).isZero();
      assertThat(result.err).containsPattern("OK: [0-9.]+ req/sec, errors: [0-9.]+ req/sec");
      assertThat(result.out).doesNotContain("OK: ").contains("baseline");
    }
  }

  @Test
  void demoRejectsUnknownPolicies() {
    CliRunner result = CliRunner.run("lab", "demo", "--policies", "fixed,bogus");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("--policies").contains("bogus");
    CliRunner pause = CliRunner.run("lab", "demo", "--pause", "0s");
    assertThat(pause.exitCode).isEqualTo(2);
    assertThat(pause.err).contains("--pause");
  }

  @Test
  void aShortDemoReportsLiveAndSimulatedResults() {
    CliRunner result = CliRunner.run("lab", "demo", "--clients", "30", "--think-mean", "500ms", "--timeout", "1s",
        "--warmup", "2s", "--pause", "1s", "--after", "2s", "--policies", "storm-exponential", "--max-connections", "500",
        "--format", "json");
    assertThat(result.exitCode).isZero();
    assertThat(result.err).contains("== storm-exponential", "server paused", "server resumed");
    assertThat(result.out).startsWith("{\"settings\":{\"clients\":30,")
        .contains("\"name\":\"storm-exponential\"", "\"summary\":{\"baselineGoodput\":", "\"simulator\":{\"baselineGoodput\":",
            "\"pausedAt\":2,\"resumedAt\":3");
  }

  @Test
  void aMalformedHedgeIsAUsageErrorNamingTheFlag() {
    CliRunner client = CliRunner.run("lab", "client", "--policy", "fixed+hedge:soon", "--duration", "1s");
    assertThat(client.exitCode).isEqualTo(2);
    assertThat(client.err).contains("--policy: bad policy 'fixed+hedge:soon': hedge delay 'soon'");
    CliRunner demo = CliRunner.run("lab", "demo", "--policies", "storm-exponential+hedge");
    assertThat(demo.exitCode).isEqualTo(2);
    assertThat(demo.err).contains("--policies: bad policy 'storm-exponential+hedge': +hedge needs a delay");
    CliRunner calibrate = CliRunner.run("lab", "calibrate", "--no-live", "--policies", "aws-standard+hedge:50ms:5");
    assertThat(calibrate.exitCode).isEqualTo(2);
    assertThat(calibrate.err).contains("--policies: policy 'aws-standard+hedge:50ms:5': hedging maxHedges(5)");
    CliRunner server = CliRunner.run("lab", "server", "--service-distribution", "gamma", "--duration", "1s");
    assertThat(server.exitCode).isEqualTo(2);
    assertThat(server.err).contains("--service-distribution must be fixed or exponential, was 'gamma'");
    CliRunner status = CliRunner.run("lab", "server", "--reject-status", "500", "--duration", "1s");
    assertThat(status.exitCode).isEqualTo(2);
    assertThat(status.err).contains("--reject-status must be 503 or 429, was 500");
  }

  @Test
  void aBadSlowTailIsAUsageErrorNamingTheFlag() {
    java.util.Map<java.util.List<String>, String> cases = new java.util.LinkedHashMap<>();
    cases.put(java.util.List.of("--slow-fraction", "1.5", "--slow-latency", "400ms"),
        "--slow-fraction must be from 0 to 1 (1 excluded), was 1.5");
    cases.put(java.util.List.of("--slow-fraction", "0.05"),
        "--slow-fraction 0.05 needs --slow-latency, such as --slow-latency 400ms");
    cases.put(java.util.List.of("--slow-latency", "400ms"), "--slow-latency needs --slow-fraction above 0");
    cases.put(java.util.List.of("--slow-fraction", "0.05", "--slow-latency", "50ms"),
        "--slow-latency 50ms must be above --base-latency 100ms");
    cases.put(java.util.List.of("--slow-fraction", "0.05", "--slow-latency", "400"), "--slow-latency");
    cases.forEach((flags, message) -> {
      java.util.List<String> arguments = new java.util.ArrayList<>(
          java.util.List.of("lab", "server", "--duration", "1s"));
      arguments.addAll(flags);
      CliRunner server = CliRunner.run(arguments.toArray(new String[0]));
      assertThat(server.exitCode).as(flags.toString()).isEqualTo(2);
      assertThat(server.err).as(flags.toString()).contains(message);
    });
  }

  @Test
  void calibrateComparesHedgesPerRequestWithTheSimulator() {
    CliRunner result = CliRunner.run("lab", "calibrate", "--no-live", "--seeds", "2", "--clients", "100",
        "--policies", "storm-exponential+hedge:150ms");
    assertThat(result.exitCode).isZero();
    assertThat(result.out).containsPattern(
        "storm-exponential\\+hedge:150ms: hedges per request live -, simulated median \\d\\.\\d{3} \\(counted alike");
  }

  @Test
  void aShortHedgedDemoReportsTheHedgesLiveAndSimulated() {
    CliRunner result = CliRunner.run("lab", "demo", "--clients", "30", "--think-mean", "500ms", "--timeout", "1s",
        "--warmup", "2s", "--pause", "1s", "--after", "2s", "--policies", "storm-exponential+hedge:200ms",
        "--max-connections", "500");
    assertThat(result.exitCode).isZero();
    // The pause holds every attempt past the hedging delay: hedges go out.
    assertThat(result.err).contains("| hedges: ");
    assertThat(result.out).containsPattern("storm-exponential\\+hedge:200ms: hedges [1-9][0-9]* sent, [0-9]+ won, "
        + "p99 [0-9.]+(ms|us|s); simulator: hedges [0-9]+ sent, [0-9]+ won, p99 ");
  }
}
