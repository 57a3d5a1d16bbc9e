package dev.backoff.conformance.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Two cases beside the hostile-server suite for the Spring adapters, whose clients (java.net.http and
 * {@code HttpURLConnection}) retry a request by themselves when its connection closes before any response:
 * a POST without an idempotency key must still reach the server once, and a GET's doubling is pinned.
 */
abstract class ClosedConnectionSuite extends HostileServerSuite {
  /**
   * The client's own retry of a request whose connection closed before any response (HttpURLConnection's
   * and java.net.http's both send an idempotent request once more, unseen by the interceptor): a POST
   * without an idempotency key must still reach the server once.
   */
  @Test
  void postWhoseConnectionClosesBeforeAResponseReachesTheServerOnce() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.disconnect());
          Exchange exchange = open(new Shape(4, Duration.ofMillis(10), null, null))) {
        assertThatThrownBy(() -> exchange.send("POST", server.uri("/orders"), "order"))
            .satisfies(failure -> assertThat(isClientError(failure)).as("%s: %s", adapter(), failure).isTrue());
        Thread.sleep(SETTLE.toMillis());
        assertThat(server.requests()).as("%s: a POST whose connection closed", adapter()).hasSize(1);
      }
    });
  }

  /**
   * The same for a GET: the client sends each attempt twice, and the adapter cannot see the second (docs say
   * so). Exact, so that a client that stops (or starts) doing this shows up here.
   */
  @Test
  void getWhoseConnectionClosesBeforeAResponseIsSentTwicePerAttempt() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.disconnect());
          Exchange exchange = open(new Shape(3, Duration.ofMillis(10), null, null))) {
        assertThatThrownBy(() -> exchange.send("GET", server.uri("/closing"), null))
            .satisfies(failure -> assertThat(isClientError(failure)).as("%s: %s", adapter(), failure).isTrue());
        Thread.sleep(SETTLE.toMillis());
        assertThat(server.requests()).as("%s: a GET whose connection closed, 3 attempts", adapter()).hasSize(6);
      }
    });
  }
}
