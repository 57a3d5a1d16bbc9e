package dev.backoff.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryEvent;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.Sleeper;
import dev.backoff.StopReason;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The interceptor against OkHttp's MockWebServer on loopback, with fake time for the waits. */
class BackoffInterceptorTest {
  static final MediaType TEXT = MediaType.get("text/plain");
  static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

  final MockWebServer server = new MockWebServer();
  final FakeClock clock = new FakeClock();
  final RecordingSleeper sleeper = new RecordingSleeper(clock);
  final List<String> events = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void start() throws IOException {
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  RetryPolicy.Builder<Response> policy() {
    return RetryPolicy.<Response>builder()
        .maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .clock(clock)
        .sleeper(sleeper)
        .listener(new RetryListener<>() {
          @Override
          public void onRetryScheduled(RetryEvent<Response> event) {
            events.add("retry after " + event.delay().toMillis() + " ms");
          }

          @Override
          public void onSuccess(RetryEvent<Response> event) {
            events.add("success after " + event.attempts());
          }

          @Override
          public void onExhausted(RetryEvent<Response> event) {
            events.add("exhausted " + event.stopReason());
          }

          @Override
          public void onAborted(RetryEvent<Response> event) {
            events.add("aborted " + event.stopReason());
          }
        });
  }

  static OkHttpClient client(BackoffOkHttp backoff) {
    // OkHttp's own silent retry of a lost connection is off, so that each attempt here is one exchange.
    return new OkHttpClient.Builder().retryOnConnectionFailure(false).addInterceptor(backoff.interceptor()).build();
  }

  static MockResponse status(int code, String body, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body(body);
    for (int i = 0; i < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    return builder.build();
  }

  Request get() {
    return new Request.Builder().url(server.url("/resource")).build();
  }

  /** The total of the recorded sleeps: the interceptor waits in slices, to notice a cancel. */
  Duration slept() {
    return sleeper.sleeps().stream().reduce(Duration.ZERO, Duration::plus);
  }

  @Test
  void a503WithRetryAfterInSecondsWaitsThatLongThenSucceeds() throws Exception {
    server.enqueue(status(503, "busy", "Retry-After", "2"));
    server.enqueue(status(200, "hello"));

    try (Response response = client(BackoffOkHttp.of(policy().build())).newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.body().string()).isEqualTo("hello");
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(slept()).isEqualTo(Duration.ofSeconds(2)); // max(Retry-After, backoff)
    assertThat(sleeper.sleeps()).allSatisfy(slice -> assertThat(slice).isLessThanOrEqualTo(Duration.ofMillis(20)));
    assertThat(events).containsExactly("retry after 2000 ms", "success after 2");
  }

  @Test
  void a429WithAnHttpDateWaitsUntilThatDateOnTheWallClock() throws Exception {
    server.enqueue(status(429, "slow down", "Retry-After", "Mon, 23 Nov 2026 12:00:03 GMT"));
    server.enqueue(status(200, "hello"));
    BackoffOkHttp backoff = BackoffOkHttp.builder().policy(policy().build())
        .rules(HttpRules.builder().wallClock(Clock.fixed(NOW, ZoneOffset.UTC)).build()).build();

    try (Response response = client(backoff).newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(200);
    }
    assertThat(slept()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aRetryAfterBeyondMaxPushbackReturnsTheResponseAtOnce() throws Exception {
    server.enqueue(status(503, "come back in an hour", "Retry-After", "3600"));

    try (Response response = client(BackoffOkHttp.of(policy().maxPushback(Duration.ofSeconds(30)).build()))
        .newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.body().string()).isEqualTo("come back in an hour");
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(events).containsExactly("exhausted PUSHBACK_TOO_LONG");
  }

  @Test
  void whenAttemptsRunOutTheLastResponseIsReturnedWithItsBodyAndEarlierOnesAreClosed() throws Exception {
    for (int i = 1; i <= 3; i++) {
      server.enqueue(status(500, "oops " + i));
    }

    try (Response response = client(BackoffOkHttp.of(policy().build())).newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(500);
      assertThat(response.body().string()).isEqualTo("oops 3");
    }
    // Every retried response was closed with its body read: all three exchanges used one connection.
    List<Integer> connections = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      connections.add(server.takeRequest().getConnectionIndex());
    }
    assertThat(connections).containsExactly(0, 0, 0);
    assertThat(events).containsExactly("retry after 100 ms", "retry after 100 ms", "exhausted ATTEMPTS_EXHAUSTED");
  }

  @Test
  void aConnectionDroppedBeforeTheResponseIsRetriedForAGet() throws Exception {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.ShutdownConnection.INSTANCE).build());
    server.enqueue(status(200, "hello"));

    try (Response response = client(BackoffOkHttp.of(policy().build())).newCall(get()).execute()) {
      assertThat(response.body().string()).isEqualTo("hello");
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aConnectionResetMidBodyOfARetryableResponseIsRetried() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).body("x".repeat(100_000))
        .onResponseBody(SocketEffect.ShutdownConnection.INSTANCE).build());
    server.enqueue(status(200, "hello"));

    try (Response response = client(BackoffOkHttp.of(policy().build())).newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.body().string()).isEqualTo("hello");
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aConnectionResetMidBodyOfAnAcceptedResponseIsTheCallersToSee() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).body("x".repeat(100_000))
        .onResponseBody(SocketEffect.ShutdownConnection.INSTANCE).build());

    try (Response response = client(BackoffOkHttp.of(policy().build())).newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(catchThrowable(() -> response.body().string())).isInstanceOf(IOException.class);
    }
    assertThat(server.getRequestCount()).isEqualTo(1); // a response handed over is never retried
  }

  @Test
  void aReadTimeoutIsRetried() throws Exception {
    // The first answer's headers come after the client's read timeout; the second at once.
    server.enqueue(new MockResponse.Builder().code(200).body("late").headersDelay(5, TimeUnit.SECONDS).build());
    server.enqueue(status(200, "hello"));
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    BackoffOkHttp backoff = BackoffOkHttp.of(policy().listener(new RetryListener<>() {
      @Override
      public void onRetryScheduled(RetryEvent<Response> event) {
        failures.add(event.failure());
      }
    }).build());
    OkHttpClient client = client(backoff).newBuilder().readTimeout(Duration.ofMillis(200)).build();

    try (Response response = client.newCall(get()).execute()) {
      assertThat(response.body().string()).isEqualTo("hello");
    }
    assertThat(failures).singleElement().isInstanceOf(SocketTimeoutException.class);
  }

  @Test
  void theCallTimeoutIsTheCallsDeadlineSoNoWaitOutlastsIt() throws Exception {
    server.enqueue(status(503, "busy", "Retry-After", "5"));
    OkHttpClient client = client(BackoffOkHttp.of(policy().build())).newBuilder()
        .callTimeout(Duration.ofSeconds(2)).build();

    try (Response response = client.newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(503); // a 5 s wait would end past the 2 s call timeout
      assertThat(response.body().string()).isEqualTo("busy");
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(events).containsExactly("exhausted DEADLINE_EXCEEDED");
  }

  @Test
  void aPostIsNotRetriedUnlessItsKeyOrTheRulesAllowIt() throws Exception {
    Request post = new Request.Builder().url(server.url("/orders")).post(RequestBody.create("order", TEXT)).build();
    server.enqueue(status(503, "busy"));

    try (Response response = client(BackoffOkHttp.of(policy().build())).newCall(post).execute()) {
      assertThat(response.code()).isEqualTo(503);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(events).containsExactly("aborted NOT_RETRYABLE");

    server.enqueue(status(503, "busy"));
    server.enqueue(status(201, "created"));
    try (Response response = client(BackoffOkHttp.of(policy().build()))
        .newCall(post.newBuilder().header("Idempotency-Key", "order-17").build()).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    server.enqueue(status(503, "busy"));
    server.enqueue(status(201, "created"));
    BackoffOkHttp postAllowed = BackoffOkHttp.builder().policy(policy().build())
        .rules(HttpRules.builder().retryMethods("POST").build()).build();
    try (Response response = client(postAllowed).newCall(post).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }
    server.takeRequest();
    for (int i = 0; i < 4; i++) {
      assertThat(server.takeRequest().getBody().utf8()).as("each attempt sends the whole body").isEqualTo("order");
    }
  }

  @Test
  void aOneShotBodyIsNeverSentTwiceEvenWhenEveryMethodMayBeRetried() throws Exception {
    RequestBody oneShot = new RequestBody() {
      @Override
      public MediaType contentType() {
        return TEXT;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        sink.writeUtf8("streamed once");
      }

      @Override
      public boolean isOneShot() {
        return true;
      }
    };
    server.enqueue(status(503, "busy"));
    BackoffOkHttp everything = BackoffOkHttp.builder().policy(policy().build())
        .rules(HttpRules.builder().retryNonIdempotent().build()).build();

    try (Response response = client(everything)
        .newCall(new Request.Builder().url(server.url("/")).put(oneShot).build()).execute()) {
      assertThat(response.code()).isEqualTo(503);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void cancellingTheCallWhileItWaitsToRetryStopsWithNoFurtherAttempt() throws Exception {
    server.enqueue(status(503, "busy", "Retry-After", "10"));
    server.enqueue(status(200, "never sent"));
    AtomicReference<Call> call = new AtomicReference<>();
    List<Long> slices = Collections.synchronizedList(new ArrayList<>());
    Sleeper cancellingSleeper = nanos -> {
      slices.add(nanos);
      if (slices.size() == 3) {
        call.get().cancel(); // another thread would do this; the next check sees it
      }
    };
    BackoffOkHttp backoff = BackoffOkHttp.of(policy().sleeper(cancellingSleeper).build());
    call.set(client(backoff).newCall(get()));

    Throwable thrown = catchThrowable(() -> call.get().execute());

    assertThat(thrown).isInstanceOf(IOException.class).hasMessage("Canceled");
    assertThat(slices).hasSize(3); // it stopped waiting at the first check after the cancel
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(events).containsExactly("retry after 10000 ms", "aborted CANCELLED");
  }

  @Test
  void cancellingTheCallDuringAnAttemptStartsNoOther() throws Exception {
    AtomicReference<Call> call = new AtomicReference<>();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        call.get().cancel(); // cancelled before the answer is sent
        return status(503, "busy");
      }
    });
    call.set(client(BackoffOkHttp.of(policy().build())).newCall(get()));

    Throwable thrown = catchThrowable(() -> call.get().execute());

    // OkHttp's own failure for the cancelled exchange ("Socket closed", "Canceled"...), unchanged.
    assertThat(thrown).isInstanceOf(IOException.class);
    assertThat(events).containsExactly("aborted CANCELLED");
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void anInterruptWhileWaitingEndsTheCallWithAnInterruptedIoExceptionAndKeepsTheFlag() throws Exception {
    server.enqueue(status(503, "busy"));
    server.enqueue(status(200, "never sent"));
    BackoffOkHttp backoff = BackoffOkHttp.of(policy().sleeper(new RecordingSleeper(clock).interruptAfter(0)).build());

    Throwable thrown = catchThrowable(() -> client(backoff).newCall(get()).execute());

    assertThat(Thread.interrupted()).isTrue(); // and cleared for the next test
    assertThat(thrown).isInstanceOf(InterruptedIOException.class).hasCauseInstanceOf(InterruptedException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aResponseNotRetriedAfterAllIsHandedOverWholeThoughItWasReadAhead() throws Exception {
    String body = "0123456789".repeat(20_000); // 200 000 bytes, beyond the 64 KiB read-ahead
    server.enqueue(status(503, body));
    BackoffOkHttp refusing = BackoffOkHttp.of(policy().budget(ScriptedBudget.refusing()).build());

    try (Response response = client(refusing).newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.body().string()).isEqualTo(body);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(events).containsExactly("exhausted BUDGET_EXHAUSTED");
  }

  @Test
  void aFailureThatStopsTheCallIsThrownUnchangedWithItsHistory() throws Exception {
    for (int i = 0; i < 3; i++) {
      server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.ShutdownConnection.INSTANCE).build());
    }

    Throwable thrown = catchThrowable(() -> client(BackoffOkHttp.of(policy().build())).newCall(get()).execute());

    assertThat(thrown).isInstanceOf(IOException.class);
    assertThat(RetryHistory.of(thrown).attempts()).isEqualTo(3);
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void okHttpsOwnEnqueueWorksThroughTheInterceptorTooHoldingADispatcherThread() throws Exception {
    server.enqueue(status(503, "busy"));
    server.enqueue(status(200, "hello"));
    java.util.concurrent.CompletableFuture<String> body = new java.util.concurrent.CompletableFuture<>();

    client(BackoffOkHttp.of(policy().build())).newCall(get()).enqueue(new okhttp3.Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        body.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call call, Response response) throws IOException {
        try (response) {
          body.complete(response.code() + " " + response.body().string());
        }
      }
    });

    assertThat(body.get(10, TimeUnit.SECONDS)).isEqualTo("200 hello");
  }

  @Test
  void theSharedRulesKnowOkHttpsOwnFailuresByName() {
    assertThat(HttpRules.isRetryableFailure(
        new okhttp3.internal.http2.StreamResetException(okhttp3.internal.http2.ErrorCode.REFUSED_STREAM))).isTrue();
  }

  @Test
  void builderArgumentsAreChecked() {
    assertThat(catchThrowable(() -> BackoffOkHttp.builder().policy(null)))
        .isInstanceOf(NullPointerException.class).hasMessage("policy must not be null");
    assertThat(catchThrowable(() -> BackoffOkHttp.builder().rules(null)))
        .isInstanceOf(NullPointerException.class).hasMessage("rules must not be null");
    assertThat(catchThrowable(() -> BackoffOkHttp.builder().scheduler(null)))
        .isInstanceOf(NullPointerException.class).hasMessage("scheduler must not be null");
    BackoffOkHttp backoff = BackoffOkHttp.of(policy().build());
    assertThat(backoff.interceptor()).isSameAs(backoff.interceptor());
    assertThat(backoff.rules()).isSameAs(HttpRules.defaults());
  }
}
