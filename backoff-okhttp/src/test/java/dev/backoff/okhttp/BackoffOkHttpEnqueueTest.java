package dev.backoff.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BackoffOkHttp#enqueue} against MockWebServer: attempts are real enqueued calls; the waits are
 * tasks on a fake scheduler, run when the test advances its clock.
 */
class BackoffOkHttpEnqueueTest {
  final MockWebServer server = new MockWebServer();
  final FakeClock clock = new FakeClock();
  final FakeScheduler scheduler = new FakeScheduler(clock);
  final List<String> events = Collections.synchronizedList(new ArrayList<>());
  final OkHttpClient client = new OkHttpClient.Builder().retryOnConnectionFailure(false).build();

  @BeforeEach
  void start() throws IOException {
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  BackoffOkHttp backoff() {
    RetryPolicy<Response> policy = RetryPolicy.<Response>builder()
        .maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .clock(clock)
        .listener(new RetryListener<>() {
          @Override
          public void onRetryScheduled(RetryEvent<Response> event) {
            events.add("retry after " + event.delay().toMillis() + " ms");
          }

          @Override
          public void onExhausted(RetryEvent<Response> event) {
            events.add("exhausted " + event.stopReason());
          }

          @Override
          public void onAborted(RetryEvent<Response> event) {
            events.add("aborted " + event.stopReason());
          }
        })
        .build();
    return BackoffOkHttp.builder().policy(policy).scheduler(scheduler).build();
  }

  Request get() {
    return new Request.Builder().url(server.url("/resource")).build();
  }

  /** Waits (a hang guard, not a timing assertion) for an attempt that OkHttp completes on its own thread. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    for (int i = 0; i < 1_000 && !condition.getAsBoolean(); i++) {
      Thread.sleep(10);
    }
    assertThat(condition.getAsBoolean()).as(what).isTrue();
  }

  @Test
  void aRetryWaitsOnTheSchedulerNotOnAThread() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "2").body("busy").build());
    server.enqueue(new MockResponse.Builder().code(200).body("hello").build());

    CompletableFuture<Response> call = backoff().enqueue(client, get());
    await("the retry is scheduled", () -> scheduler.pending() == 1);

    // Nothing runs while the retry waits: no OkHttp call is in flight (OkHttp counts the first one until its
    // callback, which scheduled the retry, has returned), and no thread of ours is busy.
    await("no OkHttp call in flight", () -> client.dispatcher().runningCallsCount() == 0);
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(2));
    assertThat(call).isNotDone();

    scheduler.advance(Duration.ofSeconds(2));
    try (Response response = call.get(10, TimeUnit.SECONDS)) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.body().string()).isEqualTo("hello");
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(server.takeRequest().getConnectionIndex()).isEqualTo(server.takeRequest().getConnectionIndex());
  }

  @Test
  void cancellingWhileARetryWaitsStartsNoFurtherAttempt() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).body("busy").build());
    server.enqueue(new MockResponse.Builder().code(200).body("never sent").build());

    CompletableFuture<Response> call = backoff().enqueue(client, get());
    await("the retry is scheduled", () -> scheduler.pending() == 1);
    assertThat(call.cancel(true)).isTrue();
    scheduler.advance(Duration.ofMinutes(1));

    assertThat(scheduler.pending()).isZero();
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(events).containsExactly("retry after 100 ms", "aborted CANCELLED");
  }

  @Test
  void cancellingDuringAnAttemptCancelsTheOkHttpCall() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).body("late").headersDelay(10, TimeUnit.SECONDS).build());

    CompletableFuture<Response> call = backoff().enqueue(client, get());
    await("the request reached the server", () -> server.getRequestCount() == 1);
    call.cancel(true);

    await("the OkHttp call ended", () -> client.dispatcher().runningCallsCount() == 0);
    assertThat(scheduler.pending()).isZero();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aPostIsNotRetriedAndTheLastResponseIsTheOutcome() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).body("busy").build());
    Request post = new Request.Builder().url(server.url("/orders"))
        .post(RequestBody.create("order", MediaType.get("text/plain"))).build();

    try (Response response = backoff().enqueue(client, post).get(10, TimeUnit.SECONDS)) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.body().string()).isEqualTo("busy");
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();
    assertThat(events).containsExactly("aborted NOT_RETRYABLE");
  }

  @Test
  void failuresAreRetriedAndTheLastOneIsTheOutcome() throws Exception {
    for (int i = 0; i < 3; i++) {
      server.enqueue(new MockResponse.Builder()
          .onResponseStart(mockwebserver3.SocketEffect.ShutdownConnection.INSTANCE).build());
    }

    CompletableFuture<Response> call = backoff().enqueue(client, get());
    for (int retry = 1; retry <= 2; retry++) {
      int expected = retry;
      await("retry " + retry + " is scheduled", () -> scheduler.ran() == expected - 1 && scheduler.pending() == 1);
      scheduler.advance(Duration.ofMillis(100));
    }

    Throwable thrown = catchThrowable(() -> call.get(10, TimeUnit.SECONDS));
    assertThat(thrown).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class);
    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(events).containsExactly("retry after 100 ms", "retry after 100 ms", "exhausted ATTEMPTS_EXHAUSTED");
  }

  @Test
  void theCallbackGetsTheResponseOrTheFailure() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).body("hello").build());
    CompletableFuture<String> seen = new CompletableFuture<>();

    backoff().enqueue(client, get(), new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        seen.complete("failure " + e.getMessage());
      }

      @Override
      public void onResponse(Call call, Response response) throws IOException {
        try (response) {
          seen.complete(call.request().url().encodedPath() + " " + response.body().string());
        }
      }
    });
    assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo("/resource hello");

    server.enqueue(new MockResponse.Builder().code(503).body("busy").build());
    CompletableFuture<String> cancelled = new CompletableFuture<>();
    CompletableFuture<Response> call = backoff().enqueue(client, get(), new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        cancelled.complete("failure " + e.getMessage());
      }

      @Override
      public void onResponse(Call c, Response response) {
        response.close();
        cancelled.complete("response " + response.code());
      }
    });
    await("the retry is scheduled", () -> scheduler.pending() == 1);
    call.cancel(true);
    assertThat(cancelled.get(10, TimeUnit.SECONDS)).isEqualTo("failure Canceled");
  }

  @Test
  void argumentsAreChecked() {
    BackoffOkHttp backoff = backoff();
    assertThat(catchThrowable(() -> backoff.enqueue(null, get())))
        .isInstanceOf(NullPointerException.class).hasMessage("client must not be null");
    assertThat(catchThrowable(() -> backoff.enqueue(client, null)))
        .isInstanceOf(NullPointerException.class).hasMessage("request must not be null");
    assertThat(catchThrowable(() -> backoff.enqueue(client, get(), null)))
        .isInstanceOf(NullPointerException.class).hasMessage("callback must not be null");
  }
}
