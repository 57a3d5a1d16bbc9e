package dev.backoff.http;

import static dev.backoff.testing.RecordingListener.Kind.ABORTED;
import static dev.backoff.testing.RecordingListener.Kind.EXHAUSTED;
import static dev.backoff.testing.RecordingListener.Kind.RETRY;
import static dev.backoff.testing.RecordingListener.Kind.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AttemptContext;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedBudget;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(20)
class RetryingHttpClientTest {
  static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  final FakeClock clock = new FakeClock();
  final RecordingSleeper sleeper = new RecordingSleeper(clock);
  final RecordingListener<HttpResponse<?>> listener = new RecordingListener<>();

  RetryPolicy.Builder<HttpResponse<?>> policy() {
    return RetryPolicy.<HttpResponse<?>>builder()
        .maxAttempts(4)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .clock(clock)
        .sleeper(sleeper)
        .listener(listener);
  }

  RetryingHttpClient.Builder client(RetryPolicy.Builder<HttpResponse<?>> policy) {
    return RetryingHttpClient.builder(HTTP).policy(policy.build())
        .wallClock(java.time.Clock.fixed(NOW, ZoneOffset.UTC));
  }

  static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).GET().build();
  }

  @Test
  void serviceUnavailableThenOkIsRetriedWithTheBackoff() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(503, "busy"),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/a")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
      assertThat(server.requestCount()).isEqualTo(3);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
      assertThat(listener.kinds()).containsExactly(RETRY, RETRY, SUCCESS);
      assertThat(listener.events().get(0).failureClass()).isEqualTo(FailureClass.THROTTLED);
    }
  }

  @Test
  void internalServerErrorIsRetriedAsTransient() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(500, "oops"), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(listener.events().get(0).failureClass()).isEqualTo(FailureClass.TRANSIENT);
    }
  }

  @Test
  void retryAfterInSecondsIsTheWaitWhenLongerThanTheBackoff() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(429, "slow down").header("Retry-After", "3"),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(3));
      assertThat(listener.events().get(0).failureClass()).isEqualTo(FailureClass.THROTTLED);
    }
  }

  @Test
  void backoffLongerThanRetryAfterWins() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "").header("Retry-After", "1"),
        Response.of(200, "ok"))) {
      client(policy().backoff(Backoff.fixed(Duration.ofSeconds(2)))).build()
          .send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"Sat, 21 Nov 2026 10:00:07 GMT", "Saturday, 21-Nov-26 10:00:07 GMT",
      "Sat Nov 21 10:00:07 2026"})
  void retryAfterAsAnHttpDateInEachFormIsMeasuredFromTheWallClock(String date) throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(429, "").header("Retry-After", date),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(7));
    }
  }

  @Test
  void retryAfterDateInThePastMeansNoExtraWait() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(503, "").header("Retry-After", "Sat, 21 Nov 2026 09:00:00 GMT"), Response.of(200, "ok"))) {
      client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"soon", "-5", "1.5", "+3", "99999999999999999999x", "Sat, 21 Nov 2026 10:00:07 UTC",
      "Sat, 31 Feb 2026 10:00:07 GMT", ""})
  void malformedRetryAfterFallsBackToTheBackoff(String value) throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "").header("Retry-After", value),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100));
    }
  }

  @Test
  void retryAfterBeyondTheMaximumPushbackEndsTheCallAtOnce() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(429, "come back in an hour").header("Retry-After", "3600"), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy().maxPushback(Duration.ofSeconds(10))).build()
          .send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(429);
      assertThat(response.body()).isEqualTo("come back in an hour");
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(sleeper.sleeps()).isEmpty();
      assertThat(listener.kinds()).containsExactly(EXHAUSTED);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"3600", "9223372037", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"})
  void retryAfterTooLongEndsTheCallHoweverLargeItIs(String value) throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "later").header("Retry-After", value),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(sleeper.sleeps()).isEmpty();
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"})
  void retryAfterBeyondNanosecondsEndsTheCallEvenWithTheLargestMaximumPushback(String value) throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "later").header("Retry-After", value),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy().maxPushback(Duration.ofNanos(Long.MAX_VALUE))).build()
          .send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(sleeper.sleeps()).isEmpty();
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    }
  }

  @Test
  void severalRetryAfterHeadersUseTheMostConservativeReadableOne() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(503, "").header("Retry-After", "garbage").header("Retry-After", "3600"), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    }
  }

  @Test
  void severalReadableRetryAfterHeadersUseTheLongest() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(503, "").header("Retry-After", "1").header("Retry-After", "5"), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(5));
    }
  }

  @Test
  void deadlineShorterThanRetryAfterEndsTheCallAtOnce() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "later").header("Retry-After", "5"),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy().maxElapsed(Duration.ofSeconds(2))).build()
          .send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(sleeper.sleeps()).isEmpty();
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    }
  }

  @Test
  void exhaustedRetriesReturnTheLastResponseWithItsBodyInTheCallersForm() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy {n}").header("Retry-After", "0"))) {
      HttpResponse<String> response = client(policy().maxAttempts(3)).build()
          .send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).isEqualTo("busy 3");
      assertThat(response.headers().firstValue("Retry-After")).hasValue("0");
      assertThat(response.uri()).isEqualTo(server.uri("/"));
      assertThat(server.requestCount()).isEqualTo(3);
      assertThat(listener.kinds()).containsExactly(RETRY, RETRY, EXHAUSTED);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    }
  }

  @Test
  void lastResponseBodyCanBeReplayedAsBytesLinesOrStream() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(502, "line one\nline two"))) {
      RetryingHttpClient http = client(policy().maxAttempts(2)).build();

      assertThat(http.send(get(server.uri("/")), BodyHandlers.ofByteArray()).body())
          .isEqualTo("line one\nline two".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      assertThat(http.send(get(server.uri("/")), BodyHandlers.ofLines()).body().collect(Collectors.toList()))
          .containsExactly("line one", "line two");
      try (java.io.InputStream in = http.send(get(server.uri("/")), BodyHandlers.ofInputStream()).body()) {
        assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
            .isEqualTo("line one\nline two");
      }
      assertThat(http.send(get(server.uri("/")), BodyHandlers.discarding()).body()).isNull();
    }
  }

  @Test
  void headIsRetriedAndItsEmptyLastResponseIsReturned() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, ""))) {
      HttpRequest head = HttpRequest.newBuilder(server.uri("/")).method("HEAD", BodyPublishers.noBody()).build();
      HttpResponse<String> response = client(policy().maxAttempts(2)).build().send(head, BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).isEmpty();
      assertThat(server.requests()).extracting(r -> r.method()).containsExactly("HEAD", "HEAD");
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {400, 401, 403, 404, 408, 409, 422, 501, 505})
  void otherStatusesAreNotRetried(int status) throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(status, "no"), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(status);
      assertThat(response.body()).isEqualTo("no");
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(listener.kinds()).containsExactly(SUCCESS);
    }
  }

  @Test
  void addedStatusIsRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(408, "timeout"), Response.of(200, "ok"))) {
      RetryingHttpClient http = client(policy()).retryOnStatus(408).build();
      HttpResponse<String> response = http.send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(http.retryStatuses()).containsExactly(408, 429, 500, 502, 503, 504);
    }
  }

  @Test
  void replacedStatusSetRetriesOnlyThose() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"))) {
      RetryingHttpClient http = client(policy()).retryOnlyOnStatus(502).build();
      HttpResponse<String> response = http.send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).isEqualTo("busy");
      assertThat(server.requestCount()).isEqualTo(1);
    }
  }

  @Test
  void invalidStatusesAreRejectedByName() {
    assertThatThrownBy(() -> RetryingHttpClient.builder(HTTP).retryOnStatus(99))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("status must be between 100 and 599, was 99");
    assertThatThrownBy(() -> RetryingHttpClient.builder(HTTP).retryOnlyOnStatus(503, 600))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("status must be between 100 and 599, was 600");
    assertThatThrownBy(() -> RetryingHttpClient.builder(HTTP).attemptTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("attemptTimeout must be positive, was PT0S");
  }

  @Test
  void postWithoutIdempotencyKeyIsNotRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"))) {
      HttpRequest post = HttpRequest.newBuilder(server.uri("/orders")).POST(BodyPublishers.ofString("order")).build();
      HttpResponse<String> response = client(policy()).build().send(post, BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).isEqualTo("busy");
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(listener.kinds()).containsExactly(ABORTED);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
    }
  }

  @Test
  void postWithIdempotencyKeyIsRetriedAndSendsTheWholeBodyEachTime() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, ""), Response.of(502, ""),
        Response.of(201, "created"))) {
      HttpRequest post = HttpRequest.newBuilder(server.uri("/orders"))
          .header("Idempotency-Key", "8e03978e-40d5-43e8-bc93-6894a57f9324")
          .POST(BodyPublishers.ofString("{\"item\":\"book\",\"quantity\":2}")).build();
      HttpResponse<String> response = client(policy()).build().send(post, BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(201);
      assertThat(server.requests()).hasSize(3).allSatisfy(request -> {
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.body()).isEqualTo("{\"item\":\"book\",\"quantity\":2}");
        assertThat(request.header("Idempotency-key")).isEqualTo("8e03978e-40d5-43e8-bc93-6894a57f9324");
      });
    }
  }

  @Test
  void streamedBodyFromASupplierIsResentEachTime() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(500, ""), Response.of(200, "ok"))) {
      AtomicInteger opened = new AtomicInteger();
      HttpRequest put = HttpRequest.newBuilder(server.uri("/doc")).PUT(BodyPublishers.ofInputStream(() -> {
        opened.incrementAndGet();
        return new java.io.ByteArrayInputStream("x".repeat(100_000).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      })).build();
      client(policy()).build().send(put, BodyHandlers.ofString());

      assertThat(opened).hasValue(2);
      assertThat(server.requests()).extracting(r -> r.body().length()).containsExactly(100_000, 100_000);
    }
  }

  @Test
  void patchIsRetriedWhenTheClientOptsIn() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, ""), Response.of(200, "ok"))) {
      HttpRequest patch = HttpRequest.newBuilder(server.uri("/doc"))
          .method("PATCH", BodyPublishers.ofString("change")).build();
      HttpResponse<String> response = client(policy()).retryNonIdempotent().build()
          .send(patch, BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(server.requests()).extracting(r -> r.body()).containsExactly("change", "change");
    }
  }

  @Test
  void retriedResponsesAreReadToTheEndSoTheConnectionIsReused() throws Exception {
    String bigErrorPage = "e".repeat(64 * 1024);
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, bigErrorPage),
        Response.of(503, bigErrorPage), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.body()).isEqualTo("ok");
      List<Integer> ports = new ArrayList<>();
      server.requests().forEach(request -> ports.add(request.remotePort()));
      assertThat(ports).hasSize(3).containsOnly(ports.get(0)); // one connection served every attempt
    }
  }

  @Test
  void slowResponseTimesOutAndIsRetriedAsATimeout() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.hang(), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).attemptTimeout(Duration.ofMillis(300)).build()
          .send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.body()).isEqualTo("ok");
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(listener.events().get(0).failure()).isInstanceOf(HttpTimeoutException.class);
      assertThat(listener.events().get(0).failureClass()).isEqualTo(FailureClass.TIMEOUT);
    }
  }

  @Test
  void timeoutsUntilAttemptsRunOutRethrowTheLastTimeoutWithItsHistory() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.hang())) {
      HttpRequest request = HttpRequest.newBuilder(server.uri("/")).timeout(Duration.ofMillis(200)).build();
      Throwable thrown = catchThrowable(() -> client(policy().maxAttempts(2)).build()
          .send(request, BodyHandlers.ofString()));

      assertThat(thrown).isInstanceOf(HttpTimeoutException.class);
      assertThat(RetryHistory.of(thrown).attempts()).isEqualTo(2);
      assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
      assertThat(thrown.getSuppressed()).hasAtLeastOneElementOfType(HttpTimeoutException.class);
    }
  }

  @Test
  void resetConnectionsAreRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.reset(), Response.reset(),
        Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri()), BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
      // The JDK client itself retries an idempotent request once after a lost connection, so the two
      // resets cost one or two of our attempts; ours are the ones the listener sees.
      assertThat(server.connections()).isEqualTo(3);
      assertThat(listener.kinds()).contains(RETRY).last().isEqualTo(SUCCESS);
      assertThat(listener.events().get(0).failure()).isInstanceOf(IOException.class);
    }
  }

  @Test
  void connectionClosedWithoutResponseIsRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.disconnect(), Response.of(200, "ok"))) {
      HttpResponse<String> response = client(policy()).build().send(get(server.uri("/")), BodyHandlers.ofString());

      assertThat(response.body()).isEqualTo("ok");
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  @Test
  void refusedConnectionIsRetriedThenRethrownWithItsHistory() throws Exception {
    URI refused = refusedUri();
    Throwable thrown = catchThrowable(() -> client(policy().maxAttempts(3)).build()
        .send(get(refused), BodyHandlers.ofString()));

    assertThat(thrown).isInstanceOf(ConnectException.class);
    assertThat(RetryHistory.of(thrown).attempts()).isEqualTo(3);
    assertThat(sleeper.sleeps()).hasSize(2);
  }

  @Test
  void refusedConnectionIsRetriedEvenForAPostBecauseNothingWasSent() throws Exception {
    URI refused = refusedUri();
    HttpRequest post = HttpRequest.newBuilder(refused).POST(BodyPublishers.ofString("x")).build();
    Throwable thrown = catchThrowable(() -> client(policy().maxAttempts(2)).build()
        .send(post, BodyHandlers.ofString()));

    assertThat(thrown).isInstanceOf(ConnectException.class);
    assertThat(RetryHistory.of(thrown).attempts()).isEqualTo(2);
  }

  @Test
  void resetPostWithoutKeyIsNotRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.reset(), Response.of(200, "ok"))) {
      HttpRequest post = HttpRequest.newBuilder(server.uri()).POST(BodyPublishers.ofString("x")).build();
      Throwable thrown = catchThrowable(() -> client(policy()).build().send(post, BodyHandlers.ofString()));

      assertThat(thrown).isInstanceOf(IOException.class);
      assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
      assertThat(server.connections()).isEqualTo(1);
    }
  }

  @Test
  void tlsErrorsAreNeverRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "ok"))) {
      URI https = URI.create(server.uri().toString().replace("http:", "https:"));
      Throwable thrown = catchThrowable(() -> client(policy()).build().send(get(https), BodyHandlers.ofString()));

      assertThat(thrown).isInstanceOf(IOException.class);
      assertThat(hasCause(thrown, SSLException.class)).isTrue();
      // One attempt of ours. The JDK's HttpClient may itself open the connection a second time when the
      // handshake is reset (its own connect retry, jdk.httpclient.disableRetryConnect; seen on JDK 25 now and
      // then): that is inside one attempt, never a retry of ours, and never more than once.
      assertThat(RetryHistory.of(thrown).attempts()).isEqualTo(1);
      assertThat(server.connections()).isBetween(1, 2);
      assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.ABORTED);
      assertThat(sleeper.sleeps()).isEmpty();
    }
  }

  @Test
  void interruptionWhileWaitingEndsTheCallAndKeepsTheFlag() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"))) {
      sleeper.interruptAfter(0);
      RetryingHttpClient http = client(policy()).build();
      try {
        assertThatThrownBy(() -> http.send(get(server.uri("/")), BodyHandlers.ofString()))
            .isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(server.requestCount()).isEqualTo(1);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.INTERRUPTED);
    }
  }

  @Test
  void budgetsArePerHostAndARefusalStopsTheCall() throws Exception {
    List<String> hosts = new ArrayList<>();
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"))) {
      RetryingHttpClient http = client(policy()).budgetPerHost(host -> {
        hosts.add(host);
        return ScriptedBudget.refusing();
      }).build();
      URI byAddress = server.uri("/");
      URI byName = URI.create("http://LOCALHOST:" + server.port() + "/");

      HttpResponse<String> first = http.send(get(byAddress), BodyHandlers.ofString());
      http.send(get(byAddress), BodyHandlers.ofString());
      http.send(get(byName), BodyHandlers.ofString());

      assertThat(first.statusCode()).isEqualTo(503);
      assertThat(hosts).containsExactly("127.0.0.1", "localhost");
      assertThat(server.requestCount()).isEqualTo(3);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
      assertThat(((ScriptedBudget) http.budgetFor("127.0.0.1")).acquires()).isEqualTo(2);
      assertThat(((ScriptedBudget) http.budgetFor("localhost")).acquires()).isEqualTo(1);
      assertThat(http.budgetFor("example.org")).isNull();
    }
  }

  @Test
  void anExhaustedBudgetForOneHostLeavesAnotherHostsRetriesAlone() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"))) {
      RetryingHttpClient http = client(policy().maxAttempts(3))
          .budgetPerHost(host -> dev.backoff.RetryBudgets.grpcThrottling(10, 0.1)).build();
      URI hostA = server.uri("/");
      URI hostB = URI.create("http://localhost:" + server.port() + "/");

      int calls = 0;
      do {
        http.send(get(hostA), BodyHandlers.ofString());
        calls++;
      } while (listener.last().stopReason() != StopReason.BUDGET_EXHAUSTED && calls < 20);
      int before = server.requestCount();
      http.send(get(hostB), BodyHandlers.ofString());

      assertThat(listener.last().stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
      assertThat(server.requestCount() - before).isEqualTo(3);
      assertThat(calls).isLessThan(20);
      assertThat(http.budgetFor("127.0.0.1").level()).isLessThan(http.budgetFor("localhost").level());
    }
  }

  @Test
  void attemptTimeoutIsShortenedToWhatIsLeftBeforeTheDeadline() {
    RetryingHttpClient http = client(policy().maxElapsed(Duration.ofSeconds(2))).build();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).timeout(Duration.ofSeconds(10))
        .header("X-Kept", "yes").build();

    // 1.5 s of the 2 s gone: 500 ms left.
    HttpRequest attempt = http.attemptRequest(request, http.attemptTimeoutNanos(request, 500_000_000L));

    assertThat(attempt.timeout()).hasValue(Duration.ofMillis(500));
    assertThat(attempt.headers().firstValue("X-Kept")).hasValue("yes");
    assertThat(http.attemptRequest(request, http.attemptTimeoutNanos(request, -5_000_000_000L)).timeout())
        .hasValue(Duration.ofMillis(1));
  }

  @Test
  void attemptTimeoutAppliesOnlyToRequestsWithoutTheirOwn() {
    RetryingHttpClient http = client(policy()).attemptTimeout(Duration.ofSeconds(3)).build();
    HttpRequest bare = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).build();
    HttpRequest own = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).timeout(Duration.ofSeconds(1)).build();

    assertThat(http.attemptRequest(bare, http.attemptTimeoutNanos(bare, AttemptContext.NO_DEADLINE)).timeout())
        .hasValue(Duration.ofSeconds(3));
    assertThat(http.attemptRequest(own, http.attemptTimeoutNanos(own, AttemptContext.NO_DEADLINE))).isSameAs(own);
  }

  static URI refusedUri() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    return URI.create("http://127.0.0.1:" + port + "/");
  }

  static boolean hasCause(Throwable thrown, Class<? extends Throwable> type) {
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
