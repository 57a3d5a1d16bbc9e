package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hedged requests through sendAsync, against a real loopback server; the hedging delay on a fake scheduler. */
@Timeout(20)
class HedgedExchangeTest {
  final FakeClock clock = new FakeClock();
  final FakeScheduler scheduler = new FakeScheduler(clock);
  final RecordingListener<HttpResponse<?>> listener = new RecordingListener<>();
  final CountingHttpClient http = new CountingHttpClient(
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());

  RetryingHttpClient client() {
    return RetryingHttpClient.builder(http)
        .policy(RetryPolicy.<HttpResponse<?>>builder()
            .maxAttempts(2)
            .hedging(Hedging.after(Duration.ofMillis(50)))
            .clock(clock)
            .listener(listener)
            .build())
        .scheduler(scheduler)
        .build();
  }

  static void awaitRequests(ScriptedHttpServer server, int count) throws InterruptedException {
    while (server.requestCount() < count) { // the test's timeout bounds this wait
      Thread.sleep(5);
    }
  }

  @Test
  void theHedgeAnswersFirstAndTheSlowExchangeIsCancelled() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(200, "slow").delay(Duration.ofSeconds(60)), Response.of(200, "fast"))) {
      CompletableFuture<HttpResponse<String>> call =
          client().sendAsync(HttpRequest.newBuilder(server.uri("/")).build(), BodyHandlers.ofString());
      awaitRequests(server, 1);
      assertThat(call).isNotDone();

      scheduler.advance(Duration.ofMillis(50)); // no answer within the hedging delay: the hedge goes out
      HttpResponse<String> response = call.get(10, TimeUnit.SECONDS);

      assertThat(response.body()).isEqualTo("fast");
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(http.asyncExchanges).hasSize(2);
      // The slow exchange was cancelled (the JDK's client fails it with its own CancellationException).
      Throwable slow = http.asyncExchanges.get(0).handle((r, t) -> t).get(10, TimeUnit.SECONDS);
      assertThat(Exchange.unwrap(slow)).isInstanceOf(CancellationException.class);
      assertThat(listener.summary()).containsExactly("hedge 2", "hedge won 2", "success 2 " + response);
    }
  }

  @Test
  void onlyTheWinnersBodyReachesTheCallersHandler() throws Exception {
    // The first response's headers come at once and its body trickles; the hedge's comes whole.
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(200, "trickled").trickle(Duration.ofMillis(100)), Response.of(200, "whole"))) {
      AtomicInteger applied = new AtomicInteger();
      HttpResponse.BodyHandler<String> handler = info -> {
        applied.incrementAndGet(); // a handler with a side effect (the CLI's prints the body as it arrives)
        return HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
      };
      CompletableFuture<HttpResponse<String>> call =
          client().sendAsync(HttpRequest.newBuilder(server.uri("/")).build(), handler);
      awaitRequests(server, 1);
      scheduler.advance(Duration.ofMillis(50)); // sends the hedge unless the first headers already won
      HttpResponse<String> response = call.get(10, TimeUnit.SECONDS);

      assertThat(response.body()).isIn("trickled", "whole");
      assertThat(applied).hasValue(1);
    }
  }

  @Test
  void aRequestThatMustNotBeRepeatedIsNeverHedged() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(201, "created").delay(Duration.ofMillis(300)), Response.of(201, "twice"))) {
      CompletableFuture<HttpResponse<String>> call = client().sendAsync(HttpRequest.newBuilder(server.uri("/"))
          .POST(HttpRequest.BodyPublishers.ofString("order")).build(), BodyHandlers.ofString());
      awaitRequests(server, 1);
      assertThat(scheduler.pending()).isZero(); // no hedge planned
      scheduler.advance(Duration.ofSeconds(1));

      assertThat(call.get(10, TimeUnit.SECONDS).body()).isEqualTo("created");
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(listener.kinds()).containsExactly(RecordingListener.Kind.SUCCESS);
    }
  }

  @Test
  void aRetryableStatusSendsTheHedgeAtOnceAndTheOriginalCanStillWin() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(200, "original").delay(Duration.ofMillis(300)), Response.of(503, "busy"))) {
      CompletableFuture<HttpResponse<String>> call =
          client().sendAsync(HttpRequest.newBuilder(server.uri("/")).build(), BodyHandlers.ofString());
      awaitRequests(server, 1);
      scheduler.advance(Duration.ofMillis(50)); // the hedge gets the 503; attempts are exhausted
      HttpResponse<String> response = call.get(10, TimeUnit.SECONDS);

      assertThat(response.body()).isEqualTo("original");
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(listener.kinds()).containsExactly(RecordingListener.Kind.HEDGE, RecordingListener.Kind.SUCCESS);
    }
  }

  @Test
  void whenEveryAttemptAnswersARetryableStatusTheCallerReadsTheLastBodyIntact() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy-1"), Response.of(503, "busy-2"))) {
      CompletableFuture<HttpResponse<String>> call =
          client().sendAsync(HttpRequest.newBuilder(server.uri("/")).build(), BodyHandlers.ofString());
      // The first 503 plans the hedge at once; it goes out only after that answer was judged (a hang guard,
      // bounded by the test's timeout, not a timing assertion).
      while (server.requestCount() < 2) {
        scheduler.runDue();
        Thread.sleep(5);
      }
      HttpResponse<String> response = call.get(10, TimeUnit.SECONDS);

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).isEqualTo("busy-2");
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  @Test
  void aStreamedLastRetryableBodyIsStillReadable() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy-1"), Response.of(503, "busy-2"))) {
      CompletableFuture<HttpResponse<java.io.InputStream>> call =
          client().sendAsync(HttpRequest.newBuilder(server.uri("/")).build(), BodyHandlers.ofInputStream());
      while (server.requestCount() < 2) {
        scheduler.runDue();
        Thread.sleep(5);
      }
      HttpResponse<java.io.InputStream> response = call.get(10, TimeUnit.SECONDS);
      try (java.io.InputStream body = response.body()) {
        assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("busy-2");
      }
      assertThat(response.statusCode()).isEqualTo(503);
    }
  }
}
