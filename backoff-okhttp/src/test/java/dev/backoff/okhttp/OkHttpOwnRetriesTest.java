package dev.backoff.okhttp;

import static dev.backoff.okhttp.BackoffInterceptorTest.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.RecordingListener;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ProtocolException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * OkHttp's own retries against Backoff's, on MockWebServer: OkHttp repeats a request by itself when a 503 says
 * {@code Retry-After: 0} and after a lost connection, and its {@code Retry-After} parser throws past an
 * {@code int}. Each case first shows OkHttp alone doing it, then that a call through Backoff does not.
 */
class OkHttpOwnRetriesTest {
  final MockWebServer server = started(new MockWebServer());
  final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
  final ExecutorService dispatcherThreads = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "okhttp-dispatcher-under-test");
    thread.setDaemon(true);
    thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    return thread;
  });
  final OkHttpClient plain = new OkHttpClient.Builder().dispatcher(new Dispatcher(dispatcherThreads)).build();

  static MockWebServer started(MockWebServer server) {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return server;
  }

  @AfterEach
  void stop() {
    dispatcherThreads.shutdownNow();
    server.close();
  }

  static BackoffOkHttp backoff(Duration maxElapsed) {
    return backoff(maxElapsed, new RetryListener<>() {});
  }

  static BackoffOkHttp backoff(Duration maxElapsed, RetryListener<Response> listener) {
    RetryPolicy.Builder<Response> policy = RetryPolicy.<Response>builder()
        .listener(listener)
        .maxAttempts(4)
        .backoff(Backoff.fixed(Duration.ofMillis(10)));
    if (maxElapsed != null) {
      policy.maxElapsed(maxElapsed);
    }
    return BackoffOkHttp.of(policy.build());
  }

  Request post() {
    return new Request.Builder().url(server.url("/orders"))
        .post(RequestBody.create("order", MediaType.get("text/plain"))).build();
  }

  Request get() {
    return new Request.Builder().url(server.url("/resource")).build();
  }

  void enqueue(int times, MockResponse response) {
    for (int i = 0; i < times; i++) {
      server.enqueue(response);
    }
  }

  /** A response of 100 bytes, one every {@code unit}. */
  static MockResponse aByteEvery(int code, TimeUnit unit) {
    return new MockResponse.Builder().code(code).body("x".repeat(100)).throttleBody(1, 1, unit).build();
  }

  int sendAlone(Request request) throws IOException {
    try (Response response = plain.newCall(request).execute()) {
      return response.code();
    }
  }

  @Test
  void aPostAnswered503WithRetryAfterZeroIsSentOnceThroughTheInstalledInterceptor() throws Exception {
    enqueue(2, status(503, "busy", "Retry-After", "0"));
    assertThat(sendAlone(post())).isEqualTo(503);
    assertThat(server.getRequestCount()).as("OkHttp alone follows up").isEqualTo(2);

    enqueue(2, status(503, "busy", "Retry-After", "0"));
    OkHttpClient client = backoff(null).install(plain.newBuilder()).build();
    try (Response response = client.newCall(post()).execute()) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.header("Retry-After")).as("the caller still sees the header").isEqualTo("0");
    }
    assertThat(server.getRequestCount() - 2).isEqualTo(1);
  }

  @Test
  void aGetAnswered503WithRetryAfterZeroIsSentOncePerAttempt() throws Exception {
    enqueue(8, status(503, "busy", "Retry-After", "0"));
    OkHttpClient client = backoff(null).install(plain.newBuilder()).build();
    try (Response response = client.newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(503);
    }
    assertThat(server.getRequestCount()).isEqualTo(4);

    try (Response response = backoff(null).enqueue(plain, get()).get(10, TimeUnit.SECONDS)) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.header("Retry-After")).isEqualTo("0");
    }
    assertThat(server.getRequestCount() - 4).isEqualTo(4);
  }

  @Test
  void aPostAnswered503WithRetryAfterZeroIsSentOnceThroughEnqueueWhichLeavesTheClientAsItWas() throws Exception {
    enqueue(2, status(503, "busy", "Retry-After", "0"));
    try (Response response = backoff(null).enqueue(plain, post()).get(10, TimeUnit.SECONDS)) {
      assertThat(response.code()).isEqualTo(503);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(plain.networkInterceptors()).isEmpty();
    assertThat(plain.retryOnConnectionFailure()).isTrue();
  }

  @Test
  void aPostWhosePooledConnectionIsLostIsNotSentAgainByOkHttp() throws Exception {
    // A first call leaves its connection in the pool; the server drops it after reading the POST.
    MockResponse lost = new MockResponse.Builder().onResponseStart(SocketEffect.ShutdownConnection.INSTANCE).build();
    server.enqueue(status(200, "ok"));
    enqueue(5, lost);
    assertThat(sendAlone(get())).isEqualTo(200);
    assertThat(catchThrowable(() -> sendAlone(post()))).isInstanceOf(IOException.class);
    int alone = server.getRequestCount() - 1;
    assertThat(alone).as("OkHttp alone sends it again on new connections").isGreaterThanOrEqualTo(2);
    for (int left = 5 - alone; left > 0; left--) {
      sendAloneIgnoringFailure(); // use up the drops OkHttp did not reach
    }
    int before = server.getRequestCount();

    OkHttpClient client = backoff(null).install(plain.newBuilder()).build();
    server.enqueue(status(200, "ok"));
    server.enqueue(lost);
    assertThat(sendAlone(get())).isEqualTo(200);
    assertThat(catchThrowable(() -> client.newCall(post()).execute())).isInstanceOf(IOException.class);
    assertThat(server.getRequestCount() - before - 1).isEqualTo(1);

    before = server.getRequestCount();
    server.enqueue(status(200, "ok"));
    server.enqueue(lost);
    assertThat(sendAlone(get())).isEqualTo(200);
    Throwable failure = catchThrowable(() -> backoff(null).enqueue(plain, post()).get(10, TimeUnit.SECONDS));
    assertThat(failure).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class);
    assertThat(server.getRequestCount() - before - 1).isEqualTo(1);
  }

  private void sendAloneIgnoringFailure() {
    catchThrowable(() -> plain.newBuilder().retryOnConnectionFailure(false).build().newCall(get()).execute().close());
  }

  @Test
  void aRetryAfterPastAnIntEndsWithTheResponse() throws Exception {
    MockResponse absurd = status(503, "busy", "Retry-After", "2147483648");
    server.enqueue(absurd);
    assertThat(catchThrowable(() -> sendAlone(get()))).as("OkHttp's own parser")
        .isInstanceOf(NumberFormatException.class);

    server.enqueue(absurd);
    OkHttpClient client = backoff(Duration.ofSeconds(5)).install(plain.newBuilder()).build();
    try (Response response = client.newCall(get()).execute()) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.header("Retry-After")).isEqualTo("2147483648");
    }
    server.enqueue(absurd);
    try (Response response = backoff(Duration.ofSeconds(5)).enqueue(plain, get()).get(10, TimeUnit.SECONDS)) {
      assertThat(response.code()).isEqualTo(503);
    }
    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(uncaught).as("exceptions thrown on OkHttp's dispatcher threads").isEmpty();
  }

  @Test
  void withoutTheNetworkGuardARetryAfterPastAnIntIsAProtocolError() {
    server.enqueue(status(503, "busy", "Retry-After", "2147483648"));
    server.enqueue(status(200, "ok"));
    OkHttpClient client = plain.newBuilder().addInterceptor(backoff(null).interceptor()).build();
    Throwable failure = catchThrowable(() -> client.newCall(get()).execute());
    assertThat(failure).isInstanceOf(ProtocolException.class).hasMessageContaining("Retry-After")
        .hasCauseInstanceOf(NumberFormatException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void theInterceptorRefusesToRunAsANetworkInterceptor() {
    server.enqueue(status(200, "ok"));
    OkHttpClient client = plain.newBuilder().addNetworkInterceptor(backoff(null).interceptor()).build();
    assertThat(catchThrowable(() -> client.newCall(get()).execute()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("addInterceptor");
  }

  @Test
  void installAddsTheGuardOnce() {
    BackoffOkHttp backoff = backoff(null);
    OkHttpClient.Builder builder = backoff.install(backoff.install(new OkHttpClient.Builder()));
    assertThat(builder.networkInterceptors()).containsExactly(backoff.networkInterceptor());
    assertThat(builder.interceptors()).containsExactly(backoff.interceptor(), backoff.interceptor());
  }

  @Test
  void aBodyReadAheadCutByTheDeadlineStopsTheCallOnItsDeadline() throws Exception {
    // A 503 whose body stalls after its first byte: reading it ahead runs into the deadline of 500 ms.
    enqueue(2, aByteEvery(503, TimeUnit.HOURS));
    RecordingListener<Response> listener = new RecordingListener<>();
    OkHttpClient client = backoff(Duration.ofMillis(500), listener).install(plain.newBuilder()).build();
    assertThat(catchThrowable(() -> client.newCall(get()).execute().close()))
        .isInstanceOf(InterruptedIOException.class);
    Throwable failure = catchThrowable(() -> backoff(Duration.ofMillis(500), listener).enqueue(plain, get())
        .get(10, TimeUnit.SECONDS).close());
    assertThat(failure).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InterruptedIOException.class);
    assertThat(listener.stopReasons()).as("the interceptor's call, then enqueue's")
        .containsExactly(StopReason.DEADLINE_EXCEEDED, StopReason.DEADLINE_EXCEEDED);
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void maxElapsedBoundsTheCallersReadOfTheLastBody() throws Exception {
    // A 200 whose body comes at a byte a second: the call's deadline of 500 ms ends the read.
    enqueue(2, aByteEvery(200, TimeUnit.SECONDS));
    OkHttpClient client = backoff(Duration.ofMillis(500)).install(plain.newBuilder()).build();
    long start = System.nanoTime();
    Throwable failure = catchThrowable(() -> {
      try (Response response = client.newCall(get()).execute()) {
        response.body().string();
      }
    });
    assertThat(failure).isInstanceOf(InterruptedIOException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2500));

    start = System.nanoTime();
    failure = catchThrowable(() -> {
      try (Response response = backoff(Duration.ofMillis(500)).enqueue(plain, get()).get(10, TimeUnit.SECONDS)) {
        response.body().string();
      }
    });
    assertThat(failure).isInstanceOf(InterruptedIOException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2500));
  }
}
