package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How {@code backoff http} prints bodies, and how its timeout and deadline bound them. */
@Timeout(20)
class HttpCommandBodyTest {
  static CliRunner http(String... args) {
    String[] all = new String[args.length + 5];
    System.arraycopy(new String[] {"http", "--strategy", "fixed", "--initial", "1ms"}, 0, all, 0, 5);
    System.arraycopy(args, 0, all, 5, args.length);
    return CliRunner.run(all);
  }

  @Test
  void anErrorBodyIsPrintedUpToTheLimitAndTheCutIsReported() throws Exception {
    String body = "x".repeat(200_000);
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(404, body))) {
      CliRunner result = http(server.uri("/api").toString());

      assertThat(result.exitCode).isEqualTo(HttpCommand.NOT_SUCCESSFUL);
      assertThat(result.out).isEqualTo(body.substring(0, HttpCommand.ERROR_BODY_LIMIT));
      assertThat(result.err.lines()).containsExactly("attempt 1: 404",
          "backoff: body cut after 65536 bytes of 200000 (error bodies are printed up to 65536 bytes; the rest"
              + " was not read)");
    }
  }

  @Test
  void anErrorBodyWithinTheLimitIsPrintedWholeWithoutANote() throws Exception {
    String body = "e".repeat(HttpCommand.ERROR_BODY_LIMIT);
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, body))) {
      CliRunner result = http("--max-attempts", "2", server.uri("/api").toString());

      assertThat(result.exitCode).isEqualTo(HttpCommand.GAVE_UP);
      assertThat(result.out).isEqualTo(body);
      assertThat(result.err).doesNotContain("cut");
    }
  }

  @Test
  void aSuccessfulBodyIsPrintedWholeAndDecodedAcrossReads() throws Exception {
    // Multi-byte characters at every offset: the decoder must carry a split character over to the next read.
    String body = "é€😀a".repeat(100_000);
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"),
        Response.of(200, body).header("Content-Type", "text/plain; charset=UTF-8"))) {
      CliRunner result = http(server.uri("/api").toString());

      assertThat(result.exitCode).isZero();
      assertThat(result.out).isEqualTo(body);
    }
  }

  @Test
  @Tag("slow")
  void theTimeoutAndDeadlineBoundATricklingBody() throws Exception {
    // 1 byte every 10 ms of a 1 MB body: reading it whole would take almost 3 hours.
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503,
        1 << 20).trickle(Duration.ofMillis(10)))) {
      long started = System.nanoTime();
      CliRunner result = http("--deadline", "3s", "--timeout", "1s", "--max-attempts", "3",
          server.uri().toString());

      assertThat(result.exitCode).as(result.err).isEqualTo(HttpCommand.GAVE_UP);
      assertThat(result.err.lines()).hasSize(4).allSatisfy(line -> assertThat(line).contains("HttpTimeoutException"));
      assertThat(result.err.lines()).element(0).asString().startsWith("attempt 1: HttpTimeoutException");
      assertThat(result.err.lines()).element(2).asString().startsWith("attempt 3: HttpTimeoutException");
      assertThat(server.requestCount()).isEqualTo(3);
      // A hang guard, not the assertion: the old client ran past 40 s here.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    }
  }
}
