package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedBudget;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedHttpServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The attempt timeout and the deadline bound the whole exchange, body included (HttpRequest.timeout alone
 * stops at the headers). A server trickles a 503's body one byte every 10 ms; the timers are fired by hand
 * (a FakeScheduler), so nothing depends on how fast this machine is.
 */
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ExchangeTimeoutTest {
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  final FakeClock clock = new FakeClock();
  final RecordingSleeper sleeper = new RecordingSleeper(clock);
  final FakeScheduler timers = new FakeScheduler(new FakeClock());
  final ExecutorService caller = Executors.newSingleThreadExecutor();
  RecordingScheduler retries;

  @AfterEach
  void stop() {
    caller.shutdownNow();
    if (retries != null) {
      retries.shutdownNow();
    }
  }

  RetryPolicy.Builder<HttpResponse<?>> policy(int attempts) {
    return RetryPolicy.<HttpResponse<?>>builder().maxAttempts(attempts).backoff(Backoff.fixed(Duration.ZERO))
        .clock(clock).sleeper(sleeper);
  }

  RetryingHttpClient.Builder client(RetryPolicy.Builder<HttpResponse<?>> policy) {
    retries = new RecordingScheduler(true);
    return RetryingHttpClient.builder(HTTP).policy(policy.build()).attemptTimeout(Duration.ofSeconds(1))
        .timeoutScheduler(timers).scheduler(retries);
  }

  static ScriptedHttpServer trickling() throws Exception {
    return new ScriptedHttpServer(Response.ofLength(503, 1 << 20).trickle(Duration.ofMillis(10)));
  }

  /** Waits for the body of response {@code n} to begin, then fires the one attempt timer pending. */
  void fireTimerOnceBodyBegins(ScriptedHttpServer server, int n) throws InterruptedException {
    while (server.bodiesStarted() < n) {
      Thread.sleep(1); // bounded by the test's timeout
    }
    assertThat(timers.pending()).isEqualTo(1); // the attempt's timer: earlier ones were cancelled
    assertThat(timers.runNext()).isTrue();
  }

  static Throwable cause(Future<?> call) {
    Throwable thrown = catchThrowable(call::get);
    assertThat(thrown).isInstanceOf(ExecutionException.class);
    return thrown.getCause();
  }

  @Test
  void sendEndsEachTricklingAttemptWithATimeout() throws Exception {
    try (ScriptedHttpServer server = trickling()) {
      RetryingHttpClient http = client(policy(3)).build();
      Future<HttpResponse<String>> call = caller.submit(
          () -> http.send(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.ofString()));
      for (int attempt = 1; attempt <= 3; attempt++) {
        fireTimerOnceBodyBegins(server, attempt);
      }

      Throwable failure = cause(call);
      assertThat(failure).isInstanceOf(HttpTimeoutException.class)
          .hasMessage("no complete response within 1s (the attempt's timeout)");
      assertThat(RetryHistory.of(failure).attempts()).isEqualTo(3);
      assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
      assertThat(server.requestCount()).isEqualTo(3);
      assertThat(timers.pending()).isZero();
    }
  }

  @Test
  void withoutItsOwnTimeoutTheClientTimesEachAttemptWithThePolicys() throws Exception {
    try (ScriptedHttpServer server = trickling()) {
      retries = new RecordingScheduler(true);
      RetryingHttpClient http = RetryingHttpClient.builder(HTTP)
          .policy(policy(2).attemptTimeout(Duration.ofMillis(700)).build())
          .timeoutScheduler(timers).scheduler(retries).build();
      Future<HttpResponse<String>> call = caller.submit(
          () -> http.send(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.ofString()));
      fireTimerOnceBodyBegins(server, 1);
      fireTimerOnceBodyBegins(server, 2);

      Throwable failure = cause(call);
      assertThat(failure).isInstanceOf(HttpTimeoutException.class)
          .hasMessage("no complete response within 700ms (the attempt's timeout)");
      assertThat(RetryHistory.of(failure).attempts()).isEqualTo(2);
      assertThat(timers.delays()).containsExactly(Duration.ofMillis(700), Duration.ofMillis(700));
    }
  }

  @Test
  void sendAsyncEndsEachTricklingAttemptWithATimeout() throws Exception {
    try (ScriptedHttpServer server = trickling()) {
      CompletableFuture<HttpResponse<String>> call = client(policy(2)).build()
          .sendAsync(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.ofString());
      fireTimerOnceBodyBegins(server, 1);
      fireTimerOnceBodyBegins(server, 2);

      Throwable failure = cause(call);
      assertThat(failure).isInstanceOf(HttpTimeoutException.class);
      assertThat(RetryHistory.of(failure).attempts()).isEqualTo(2);
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  @Test
  void theTimerStillRunsWhileTheLastBodyIsHandedToTheCaller() throws Exception {
    // A retry looks possible, so 10 bytes are read ahead; the budget then refuses, and the rest of the body
    // is streamed to the caller's handler: the timer ends that too.
    try (ScriptedHttpServer server = trickling()) {
      RetryingHttpClient http = client(policy(3).budget(refusing())).readAheadLimit(10).build();
      Future<HttpResponse<String>> call = caller.submit(
          () -> http.send(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.ofString()));
      fireTimerOnceBodyBegins(server, 1);

      assertThat(cause(call)).isInstanceOf(HttpTimeoutException.class);
      assertThat(server.requestCount()).isEqualTo(1);
    }
  }

  @Test
  @Tag("slow")
  void realTimersBoundEveryAttemptAndTheDeadline() throws Exception {
    try (ScriptedHttpServer server = trickling()) {
      RetryingHttpClient http = RetryingHttpClient.builder(HTTP)
          .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(3).backoff(Backoff.fixed(Duration.ZERO))
              .build())
          .attemptTimeout(Duration.ofMillis(500))
          .build();
      Throwable failure = catchThrowable(
          () -> http.send(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.ofString()));

      assertThat(failure).isInstanceOf(HttpTimeoutException.class);
      assertThat(RetryHistory.of(failure).attempts()).isEqualTo(3);
      assertThat(server.requestCount()).isEqualTo(3);
    }
    try (ScriptedHttpServer server = trickling()) {
      RetryingHttpClient http = RetryingHttpClient.builder(HTTP)
          .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(5).maxElapsed(Duration.ofSeconds(1))
              .build())
          .build();
      Throwable failure = catchThrowable(() -> http.sendAsync(HttpRequest.newBuilder(server.uri()).build(),
          BodyHandlers.ofString()).join());

      assertThat(failure).hasCauseInstanceOf(HttpTimeoutException.class);
      assertThat(RetryHistory.of(failure.getCause()).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
      assertThat(server.requestCount()).isEqualTo(1);
    }
  }

  /** A budget that never grants a retry, so a retry looks possible until the engine asks it. */
  static RetryBudget refusing() {
    return ScriptedBudget.refusing();
  }
}
