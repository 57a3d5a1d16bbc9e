package dev.backoff.http;

import static dev.backoff.testing.RecordingListener.Kind.ABORTED;
import static dev.backoff.testing.RecordingListener.Kind.RETRY;
import static dev.backoff.testing.RecordingListener.Kind.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class RetryingHttpClientAsyncTest {
  final FakeClock clock = new FakeClock();
  final RecordingListener<HttpResponse<?>> listener = new RecordingListener<>();
  final CountingHttpClient http = new CountingHttpClient(
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
  RecordingScheduler scheduler;

  @AfterEach
  void stopScheduler() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  RetryingHttpClient client(boolean runAtOnce, int maxAttempts) {
    scheduler = new RecordingScheduler(runAtOnce);
    return RetryingHttpClient.builder(http)
        .policy(RetryPolicy.<HttpResponse<?>>builder()
            .maxAttempts(maxAttempts)
            .backoff(Backoff.fixed(Duration.ofMillis(100)))
            .clock(clock)
            .listener(listener)
            .build())
        .scheduler(scheduler)
        .build();
  }

  static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).build();
  }

  @Test
  void retriesAreScheduledWithTheBackoffAndRetryAfter() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"),
        Response.of(429, "").header("Retry-After", "2"), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(true, 4).sendAsync(get(server.uri("/")), BodyHandlers.ofString())
          .get(10, TimeUnit.SECONDS);

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
      assertThat(scheduler.delays()).containsExactly(100_000_000L, 2_000_000_000L);
      assertThat(http.sends).hasValue(3);
      assertThat(listener.kinds()).containsExactly(RETRY, RETRY, SUCCESS);
    }
  }

  @Test
  void firstTrySuccessSchedulesNothing() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "ok"))) {
      HttpResponse<String> response = client(true, 4).sendAsync(get(server.uri("/")), BodyHandlers.ofString())
          .get(10, TimeUnit.SECONDS);

      assertThat(response.body()).isEqualTo("ok");
      assertThat(scheduler.delays()).isEmpty();
      assertThat(listener.kinds()).containsExactly(SUCCESS);
    }
  }

  @Test
  void exhaustedRetriesCompleteWithTheLastResponse() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy {n}"))) {
      HttpResponse<String> response = client(true, 2).sendAsync(get(server.uri("/")), BodyHandlers.ofString())
          .get(10, TimeUnit.SECONDS);

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).isEqualTo("busy 2");
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    }
  }

  @Test
  void failuresAreUnwrappedAndCarryTheirHistory() throws Exception {
    URI refused = RetryingHttpClientTest.refusedUri();
    CompletableFuture<HttpResponse<String>> future = client(true, 3).sendAsync(get(refused), BodyHandlers.ofString());
    Throwable thrown = catchThrowable(() -> future.get(10, TimeUnit.SECONDS));

    assertThat(thrown).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ConnectException.class);
    assertThat(RetryHistory.of(thrown.getCause()).attempts()).isEqualTo(3);
    assertThat(http.sends).hasValue(3);
  }

  @Test
  void postWithoutIdempotencyKeyIsNotRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"))) {
      HttpRequest post = HttpRequest.newBuilder(server.uri("/")).POST(BodyPublishers.ofString("x")).build();
      HttpResponse<String> response = client(true, 4).sendAsync(post, BodyHandlers.ofString())
          .get(10, TimeUnit.SECONDS);

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(http.sends).hasValue(1);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
    }
  }

  @Test
  void cancellingDuringTheBackoffCancelsThePendingRetryAndStartsNoAttempt() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"))) {
      CompletableFuture<HttpResponse<String>> future = client(false, 5)
          .sendAsync(get(server.uri("/")), BodyHandlers.ofString());
      assertThat(scheduler.firstScheduled.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(future.cancel(true)).isTrue();

      assertThat(scheduler.futures()).singleElement().satisfies(pending -> assertThat(pending.isCancelled()).isTrue());
      assertThat(scheduler.getQueue()).isEmpty();
      // Even if the timer had fired in a race with the cancellation, the retry must not start.
      scheduler.commands().get(0).run();
      assertThat(http.sends).hasValue(1);
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(listener.kinds()).containsExactly(RETRY, ABORTED);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.CANCELLED);
    }
  }

  @Test
  void cancellingDuringAnAttemptStartsNoFurtherAttempt() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.hang())) {
      CompletableFuture<HttpResponse<String>> future = client(true, 5)
          .sendAsync(get(server.uri("/")), BodyHandlers.ofString());
      while (server.requestCount() == 0) {
        Thread.sleep(5); // bounded by the test's timeout
      }

      assertThat(future.cancel(true)).isTrue();

      assertThat(future).isCancelled();
      assertThat(scheduler.delays()).isEmpty();
      assertThat(http.sends).hasValue(1);
    }
  }

  @Test
  void aShutDownSchedulerEndsTheCallWithTheRejection() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"))) {
      RetryingHttpClient client = client(true, 3);
      scheduler.shutdown();
      CompletableFuture<HttpResponse<String>> future = client.sendAsync(get(server.uri("/")), BodyHandlers.ofString());
      Throwable thrown = catchThrowable(() -> future.get(10, TimeUnit.SECONDS));

      assertThat(thrown).hasCauseInstanceOf(RejectedExecutionException.class);
      assertThat(http.sends).hasValue(1);
    }
  }
}
