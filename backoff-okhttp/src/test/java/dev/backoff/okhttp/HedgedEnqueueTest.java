package dev.backoff.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Hedging;
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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged requests through {@link BackoffOkHttp#enqueue} against MockWebServer on loopback; the hedging delay
 * runs on a fake scheduler.
 */
class HedgedEnqueueTest {
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
        .maxAttempts(2)
        .hedging(Hedging.after(Duration.ofMillis(80)))
        .clock(clock)
        .listener(new RetryListener<>() {
          @Override
          public void onHedgeSent(RetryEvent<Response> event) {
            events.add("hedge " + event.attempts());
          }

          @Override
          public void onHedgeWon(RetryEvent<Response> event) {
            events.add("hedge won " + event.attempts());
          }
        })
        .build();
    return BackoffOkHttp.builder().policy(policy).scheduler(scheduler).build();
  }

  Request get() {
    return new Request.Builder().url(server.url("/resource")).build();
  }

  /** Waits (a hang guard, not a timing assertion) for what OkHttp does on its own threads. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    for (int i = 0; i < 1_000 && !condition.getAsBoolean(); i++) {
      Thread.sleep(10);
    }
    assertThat(condition.getAsBoolean()).as(what).isTrue();
  }

  @Test
  void theInterceptorRefusesAHedgingPolicyBeforeAnyClientIsBuilt() {
    BackoffOkHttp backoff = backoff();
    assertThatThrownBy(backoff::interceptor).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("policy 'default' hedges (")
        .hasMessageContaining("which the interceptor cannot do")
        .hasMessageContaining("enqueue(client, request)");
    OkHttpClient.Builder builder = new OkHttpClient.Builder();
    assertThatThrownBy(() -> backoff.install(builder)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("which the interceptor cannot do");
    assertThat(builder.interceptors()).isEmpty();
  }

  @Test
  void theHedgeWinsAndTheSlowCallIsCancelled() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).body("slow").headersDelay(30, TimeUnit.SECONDS).build());
    server.enqueue(new MockResponse.Builder().code(200).body("fast").build());
    List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    Call.Factory recording = request -> {
      Call call = client.newCall(request);
      calls.add(call);
      return call;
    };

    CompletableFuture<Response> call = backoff().enqueue(recording, get());
    await("the first request reached the server", () -> server.getRequestCount() == 1);
    assertThat(call).isNotDone();
    scheduler.advance(Duration.ofMillis(80));

    try (Response response = call.get(10, TimeUnit.SECONDS)) {
      assertThat(response.body().string()).isEqualTo("fast");
    }
    assertThat(calls).hasSize(2);
    assertThat(calls.get(0).isCanceled()).isTrue();
    assertThat(calls.get(1).isCanceled()).isFalse();
    await("the slow OkHttp call ended", () -> client.dispatcher().runningCallsCount() == 0);
    assertThat(events).containsExactly("hedge 2", "hedge won 2");
  }

  @Test
  void aRequestThatMustNotBeRepeatedIsNeverHedged() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).body("created").headersDelay(300, TimeUnit.MILLISECONDS)
        .build());
    server.enqueue(new MockResponse.Builder().code(201).body("twice").build());
    Request post = new Request.Builder().url(server.url("/orders"))
        .post(okhttp3.RequestBody.create("order", okhttp3.MediaType.get("text/plain"))).build();

    CompletableFuture<Response> call = backoff().enqueue(client, post);
    await("the request reached the server", () -> server.getRequestCount() == 1);
    assertThat(scheduler.pending()).isZero(); // no hedge planned
    scheduler.advance(Duration.ofSeconds(1));
    try (Response response = call.get(10, TimeUnit.SECONDS)) {
      assertThat(response.body().string()).isEqualTo("created");
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(events).isEmpty();
  }

  @Test
  void theCallbackGetsTheWinningAttemptsCallEvenWhenTheOriginalWins() throws Exception {
    // The original answers after the hedge was sent (2 s leaves a starved machine room to send it); the hedge
    // never does.
    server.enqueue(new MockResponse.Builder().code(200).body("original").headersDelay(2, TimeUnit.SECONDS)
        .build());
    server.enqueue(new MockResponse.Builder().code(200).body("hedge").headersDelay(30, TimeUnit.SECONDS).build());
    List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    Call.Factory recording = request -> {
      Call call = client.newCall(request);
      calls.add(call);
      return call;
    };
    CompletableFuture<Call> answeredBy = new CompletableFuture<>();
    backoff().enqueue(recording, get(), new Callback() {
      @Override
      public void onFailure(Call failed, IOException e) {
        answeredBy.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call answered, Response response) {
        response.close();
        answeredBy.complete(answered);
      }
    });
    await("the first request reached the server", () -> server.getRequestCount() == 1);
    scheduler.advance(Duration.ofMillis(80));

    assertThat(answeredBy.get(10, TimeUnit.SECONDS)).isSameAs(calls.get(0));
    assertThat(calls).hasSize(2);
    assertThat(calls.get(1).isCanceled()).isTrue();
  }

  @Test
  void whenEveryAttemptAnswersARetryableStatusTheCallerReadsTheLastBodyIntact() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).body("busy-1").build());
    server.enqueue(new MockResponse.Builder().code(503).body("busy-2").build());

    CompletableFuture<Response> call = backoff().enqueue(client, get());
    // The first 503 plans the hedge at once; it goes out only after that answer was judged.
    await("the hedge after the first 503 reached the server", () -> {
      scheduler.runDue();
      return server.getRequestCount() == 2;
    });

    try (Response response = call.get(10, TimeUnit.SECONDS)) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.body().string()).isEqualTo("busy-2"); // not closed: it is the call's outcome
    }
    assertThat(events).containsExactly("hedge 2");
  }
}
