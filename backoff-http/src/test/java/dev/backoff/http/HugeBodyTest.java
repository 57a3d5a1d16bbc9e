package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ForkedJvm;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedHttpServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A server streams a 150 MB body with a retryable status; the client runs in a forked JVM with a 32 MB
 * heap, so buffering any response whole (or even a fifth of it) fails the call with an OutOfMemoryError.
 */
@Tag("slow")
class HugeBodyTest {
  static final long BODY = 150L * 1024 * 1024;

  @ParameterizedTest(name = "{0}, {1}, {2} attempts, {3}")
  @CsvSource({
      "send, discarding, 3, budget",
      "async, discarding, 3, budget",
      "send, stream, 1, budget",
      "async, stream, 3, budget",
      "send, stream, 3, refusing-budget",
      "async, stream, 3, refusing-budget"})
  void aHugeRetryableBodyIsNeverBufferedWhole(String mode, String handler, int attempts, String budget)
      throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503, BODY))) {
      ForkedJvm.Result result = fork(mode, handler, Integer.toString(attempts), budget, server.uri().toString());

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("status=503");
      if (handler.equals("stream")) {
        assertThat(result.output()).contains("bytes=" + BODY); // and every byte was checked in order
      }
      int expectedAttempts = budget.equals("refusing-budget") ? 1 : attempts;
      assertThat(server.requestCount()).isEqualTo(expectedAttempts);
      // Retried responses: read ahead to the limit, then closed, never read to their end.
      List<Long> written = awaitConnections(server, expectedAttempts);
      assertThat(written).filteredOn(bytes -> bytes < BODY).hasSize(expectedAttempts - 1);
      assertThat(written).filteredOn(bytes -> bytes == BODY).hasSize(1);
      System.out.println("HugeBodyTest " + mode + "/" + handler + "/" + attempts + "/" + budget + ": "
          + result.output().strip() + ", body bytes sent per connection " + written);
    }
  }

  static List<Long> awaitConnections(ScriptedHttpServer server, int count) throws InterruptedException {
    for (int i = 0; i < 500 && server.bodyBytesSent().size() < count; i++) {
      Thread.sleep(10); // the server thread records a connection just after the client closed it
    }
    return server.bodyBytesSent();
  }

  static ForkedJvm.Result fork(String... args) throws InterruptedException {
    return ForkedJvm.run(HugeBodyClientMain.class, List.of("-Xmx32m"), Duration.ofSeconds(60), args);
  }
}
