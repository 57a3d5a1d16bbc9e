package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(20)
class HttpCommandTest {
  // Real waits, kept tiny: the command sleeps for real.
  static final String[] FAST = {"--strategy", "fixed", "--initial", "1ms"};

  static CliRunner http(String... args) {
    String[] all = new String[args.length + FAST.length + 1];
    all[0] = "http";
    System.arraycopy(FAST, 0, all, 1, FAST.length);
    System.arraycopy(args, 0, all, 1 + FAST.length, args.length);
    return CliRunner.run(all);
  }

  @Test
  void unavailableThenOkPrintsTheBodyAndOneLinePerAttempt() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "hello\n"))) {
      CliRunner result = http(server.uri("/api").toString());

      assertThat(result.exitCode).isZero();
      assertThat(result.out).isEqualTo("hello\n");
      assertThat(result.err.lines()).containsExactly(
          "attempt 1: 503, retrying in 1ms (throttled)",
          "attempt 2: 200");
    }
  }

  @Test
  void seedsCaseOf429WithRetryAfterAnd500() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(429, "slow down").header("Retry-After", "0"),
        Response.of(500, "oops"), Response.of(200, "{\"ok\":true}"))) {
      CliRunner result = http("--max-attempts", "5", server.uri("/api").toString());

      assertThat(result.exitCode).isZero();
      assertThat(result.out).isEqualTo("{\"ok\":true}");
      assertThat(result.err.lines()).containsExactly(
          "attempt 1: 429 (Retry-After: 0), retrying in 1ms (throttled)",
          "attempt 2: 500, retrying in 1ms (transient)",
          "attempt 3: 200");
    }
  }

  /**
   * --adaptive: the first 429 enables the limiter at its minimum rate (0.5/s, one token), attempt 2 takes
   * that token, and attempt 3 waits for the next (about 2 s, for real), reported on its own line.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow")
  void adaptiveRateLimitingWaitsForATokenAfterThrottles() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(429, "slow down"),
        Response.of(429, "slow down"), Response.of(200, "ok"))) {
      CliRunner result = http("--adaptive", "--max-attempts", "3", server.uri("/api").toString());

      assertThat(result.exitCode).as(result.err).isZero();
      assertThat(result.out).isEqualTo("ok");
      List<String> lines = result.err.lines().toList();
      assertThat(lines).hasSize(4);
      assertThat(lines.get(0)).isEqualTo("attempt 1: 429, retrying in 1ms (throttled)");
      assertThat(lines.get(1)).isEqualTo("attempt 2: 429, retrying in 1ms (throttled)");
      assertThat(lines.get(2)).matches("backoff: waiting [0-9.]+m?s for the adaptive rate limiter \\([0-9.]+ requests/s\\)");
      assertThat(lines.get(3)).isEqualTo("attempt 3: 200");
    }
  }

  @Test
  void waitHeaderReadsRetryAfterMsOnlyWhenAskedTo() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(503, "busy").header("retry-after-ms", "250"), Response.of(200, "ok"))) {
      CliRunner result = http("--wait-header", "retry-after-ms", server.uri("/api").toString());

      assertThat(result.exitCode).as(result.err).isZero();
      assertThat(result.err.lines()).containsExactly(
          "attempt 1: 503 (retry-after-ms: 250), retrying in 250ms (throttled)",
          "attempt 2: 200");
    }
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(503, "busy").header("retry-after-ms", "250"), Response.of(200, "ok"))) {
      CliRunner result = http(server.uri("/api").toString()); // opt-in: without the flag, the backoff's 1ms

      assertThat(result.exitCode).as(result.err).isZero();
      assertThat(result.err.lines()).containsExactly(
          "attempt 1: 503, retrying in 1ms (throttled)",
          "attempt 2: 200");
    }
  }

  @Test
  void unknownWaitHeaderIsAUsageErrorWithASuggestion() {
    CliRunner result = http("--wait-header", "retry-after-msec", "http://127.0.0.1:1/");

    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("--wait-header: unknown wait header 'retry-after-msec'; did you mean 'retry-after-ms'?");
  }

  @Test
  void exhaustedRetriesExitThreeWithTheLastBody() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "still busy"))) {
      CliRunner result = http("--max-attempts", "2", server.uri("/api").toString());

      assertThat(result.exitCode).isEqualTo(HttpCommand.GAVE_UP).isEqualTo(3);
      assertThat(result.out).isEqualTo("still busy");
      assertThat(result.err.lines()).containsExactly(
          "attempt 1: 503, retrying in 1ms (throttled)",
          "attempt 2: 503, gave up: attempts exhausted");
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void retryAfterBeyondTheMaximumGivesUpAtOnce() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(429, "later").header("Retry-After", "3600"))) {
      CliRunner result = http("--max-retry-after", "30s", server.uri("/api").toString());

      assertThat(result.exitCode).isEqualTo(3);
      assertThat(result.err.lines()).containsExactly(
          "attempt 1: 429 (Retry-After: 3600), gave up: server asked to wait longer than allowed");
      assertThat(server.requests()).hasSize(1);
    }
  }

  @Test
  void deadlineShorterThanRetryAfterGivesUpAtOnce() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "later").header("Retry-After", "20"))) {
      CliRunner result = http("--deadline", "5s", server.uri("/api").toString());

      assertThat(result.exitCode).isEqualTo(3);
      assertThat(result.err).contains("gave up: deadline exceeded");
      assertThat(server.requests()).hasSize(1);
    }
  }

  @Test
  void statusThatIsNotRetriedExitsFour() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(404, "no such thing"))) {
      CliRunner result = http(server.uri("/api").toString());

      assertThat(result.exitCode).isEqualTo(HttpCommand.NOT_SUCCESSFUL).isEqualTo(4);
      assertThat(result.out).isEqualTo("no such thing");
      assertThat(result.err.lines()).containsExactly("attempt 1: 404");
    }
  }

  @Test
  void postWithoutKeyIsNotRetriedAndWithKeyIsRetriedWithTheSameBody() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(503, "busy"),
        Response.of(201, "created"))) {
      CliRunner once = http("--data", "order=1", server.uri("/api").toString());

      assertThat(once.exitCode).isEqualTo(4);
      assertThat(once.err.lines()).containsExactly("attempt 1: 503, not retried: not retryable");

      CliRunner retried = http("--data", "order=1", "-H", "Idempotency-Key: abc-123", server.uri("/api").toString());

      assertThat(retried.exitCode).isZero();
      assertThat(retried.out).isEqualTo("created");
      assertThat(server.requests()).extracting(HttpCommandTest::keyAndBody).containsExactly(
          "POST key=null body=order=1", "POST key=abc-123 body=order=1", "POST key=abc-123 body=order=1");
    }
  }

  @Test
  void dataFromAFileIsSentWithTheGivenMethod(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("doc.json");
    Files.writeString(file, "{\"a\":1}", StandardCharsets.UTF_8);
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(500, ""), Response.of(200, "ok"))) {
      CliRunner result = http("-X", "PUT", "--data", "@" + file, server.uri("/api").toString());

      assertThat(result.exitCode).isZero();
      assertThat(server.requests()).extracting(HttpCommandTest::keyAndBody)
          .containsExactly("PUT key=null body={\"a\":1}", "PUT key=null body={\"a\":1}");
    }
  }

  @Test
  void addedRetryStatusIsRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(408, "slow"), Response.of(200, "ok"))) {
      CliRunner result = http("--retry-status", "408", server.uri("/api").toString());

      assertThat(result.exitCode).isZero();
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void refusedConnectionsExhaustTheAttemptsAndExitThree() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    CliRunner result = http("--max-attempts", "2", "http://127.0.0.1:" + port + "/");

    assertThat(result.exitCode).isEqualTo(3);
    assertThat(result.out).isEmpty();
    assertThat(result.err.lines()).hasSize(3);
    assertThat(result.err.lines().skip(2).findFirst().orElseThrow())
        .startsWith("backoff: cannot connect to 127.0.0.1:" + port + ": ")
        .contains("(is the server running, and is the port right?)")
        .endsWith("(2 attempts, attempts exhausted)");
  }

  @Test
  void aUrlWithoutSchemeIsAUsageErrorThatSaysWhatToType() {
    CliRunner result = http("127.0.0.1:8080");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err.lines().findFirst().orElseThrow())
        .isEqualTo("backoff: URL '127.0.0.1:8080' has no scheme; did you mean 'http://127.0.0.1:8080'?");
    assertThat(result.err).doesNotContain("Illegal character").doesNotContain("\tat ");
    assertThat(http("localhost:8080/api").err).contains("did you mean 'http://localhost:8080/api'?");
  }

  @Test
  void usageErrorsExitTwoWithOneLineAndAHint() {
    for (String[] args : new String[][] {
        {"not a url"}, {"ftp://example.org/file"}, {"http:///no-host"}, {"-H", "NoColon", "http://127.0.0.1:1/"},
        {"-H", "Bad Name: x", "http://127.0.0.1:1/"}, {"-H", "Host: example.org", "http://127.0.0.1:1/"},
        {"-X", "GET POST", "http://127.0.0.1:1/"}, {"--data", "@/no/such/file", "http://127.0.0.1:1/"},
        {"--retry-status", "700", "http://127.0.0.1:1/"}, {"--timeout", "0ms", "http://127.0.0.1:1/"},
        {"--max-retry-after", "soon", "http://127.0.0.1:1/"}, {}}) {
      CliRunner result = http(args);

      assertThat(result.exitCode).as(String.join(" ", args)).isEqualTo(2);
      assertThat(result.err.lines()).as(String.join(" ", args)).hasSize(2);
      assertThat(result.err).contains("--help").doesNotContain("Exception:");
    }
  }

  @Test
  void badHeaderMessageNamesTheFlagAndValue() {
    CliRunner result = http("-H", "NoColon", "http://127.0.0.1:1/");
    assertThat(result.err).startsWith("backoff: --header 'NoColon' is not of the form 'Name: value'");
  }

  @Test
  void durationsAreFormattedShortly() {
    assertThat(HttpCommand.format(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(HttpCommand.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(HttpCommand.format(Duration.ofSeconds(2))).isEqualTo("2s");
    assertThat(HttpCommand.format(Duration.ofNanos(1500))).isEqualTo("1us");
    // The one duration format, which the parser reads back: 123s, not 2m3s or PT2M3S.
    assertThat(HttpCommand.format(Duration.ofSeconds(123))).isEqualTo("123s");
    assertThat(HttpCommand.format(Duration.ofMinutes(2))).isEqualTo("2m");
    assertThat(HttpCommand.format(Duration.ofNanos(1_786_400_000L))).isEqualTo("1.786s");
    assertThat(HttpCommand.format(Duration.ZERO)).isEqualTo("0s");
  }

  /** "METHOD key=<Idempotency-Key> body=<body>" of a request the server read. */
  static String keyAndBody(RecordedRequest request) {
    return request.method() + " key=" + request.header("Idempotency-Key") + " body=" + request.body();
  }

  @Test
  void hedgeSendsASecondRequestWhenTheFirstIsSlowAndPrintsOnlyTheWinnersBody() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(200, "slow\n").delay(Duration.ofSeconds(30)), Response.of(200, "fast\n"))) {
      CliRunner result = http("--hedge", "50ms:1", server.uri("/api").toString());

      assertThat(result.exitCode).isZero();
      assertThat(result.out).isEqualTo("fast\n");
      assertThat(result.err.lines().toList()).hasSize(2);
      assertThat(result.err.lines().toList().get(0)).startsWith("attempt 2: sent as a hedge at ");
      // The server answers the first request to arrive slowly: the hedge's, if the first attempt's request
      // was slower than the 50 ms hedging delay to arrive (a busy machine), so either attempt may win.
      assertThat(result.err.lines().toList().get(1)).matches("attempt [12]: 200 \\(first of 2 attempts\\)");
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void hedgeRejectsABadValueNamingIt() {
    CliRunner badCount = http("--hedge", "50ms:0", "http://localhost:1/");
    assertThat(badCount.exitCode).isEqualTo(2);
    assertThat(badCount.err).contains("--hedge '50ms:0': the number of hedges must be at least 1, was 0");
    CliRunner badDelay = http("--hedge", "soon", "http://localhost:1/");
    assertThat(badDelay.exitCode).isEqualTo(2);
    assertThat(badDelay.err).contains("--hedge 'soon'");
    CliRunner tooMany = http("--hedge", "50ms:5", "--max-attempts", "3", "http://localhost:1/");
    assertThat(tooMany.exitCode).isEqualTo(2);
    assertThat(tooMany.err).contains("maxHedges(5) needs maxAttempts of at least 6");
  }
}
