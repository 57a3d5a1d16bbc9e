package dev.backoff.httpclient5;

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
 * A server streams a 100 MB body with a retryable status; the client runs in a forked JVM with a 32 MB
 * heap, so buffering any response whole (or even a third of it) fails the call with an OutOfMemoryError.
 * Retried responses must be released after a bounded read; the last one streams to the caller whole.
 */
@Tag("slow")
class HugeBodyTest {
  static final long BODY = 100L * 1024 * 1024;
  /** What a discarded response may have taken from the server: read-ahead, client and kernel buffers. */
  static final long DISCARD_BOUND = 32L * 1024 * 1024;

  @ParameterizedTest(name = "{0}, {1} attempts, {2}")
  @CsvSource({
      "classic, 3, budget",
      "async, 3, budget",
      "classic, 3, refusing-budget",
      "async, 3, refusing-budget"})
  void aHugeRetryableBodyIsNeverBufferedWhole(String client, int attempts, String budget) throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503, BODY))) {
      ForkedJvm.Result result = fork(client, Integer.toString(attempts), budget, server.uri().toString());

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("status=503", "bytes=" + BODY); // every byte checked, in order
      int expectedAttempts = budget.equals("refusing-budget") ? 1 : attempts;
      assertThat(server.requestCount()).isEqualTo(expectedAttempts);
      List<Long> written = awaitConnections(server, expectedAttempts);
      // Retried responses: read to the bound, then their connection closed, never read to their end.
      assertThat(written).filteredOn(bytes -> bytes < DISCARD_BOUND).hasSize(expectedAttempts - 1);
      assertThat(written).filteredOn(bytes -> bytes == BODY).hasSize(1);
      String line = result.output().lines().filter(l -> l.startsWith("status=")).findFirst().orElseThrow();
      System.out.println("HugeBodyTest " + client + "/" + attempts + "/" + budget + ": " + line
          + ", body bytes sent per connection " + written);
    }
  }

  static List<Long> awaitConnections(ScriptedHttpServer server, int count) throws InterruptedException {
    for (int i = 0; i < 500 && server.bodyBytesSent().size() < count; i++) {
      Thread.sleep(10); // the server thread records a connection just after the client closed it
    }
    return server.bodyBytesSent();
  }

  static ForkedJvm.Result fork(String... args) throws InterruptedException {
    return ForkedJvm.run(HugeBodyClientMain.class, List.of("-Xmx32m"), Duration.ofSeconds(90), args);
  }
}
