package dev.backoff.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Hedging;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.httpclient5.ScriptedServer.Reply;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged requests through the async handler, against the JDK's HTTP server on loopback. The hedging delay
 * runs on a {@link FakeScheduler}: a hedge starts when the test moves time on, never on a real timer. Every
 * test ends with the client's pool holding no leased connection: a loser whose server never answered can
 * only have left the pool by being cancelled and its connection closed.
 */
class HedgedAsyncTest {
  /** A hang guard for what the loopback exchange does on its own threads; never a timing assertion. */
  private static final long GUARD_SECONDS = 20;
  /** A reply this slow never comes within a test: the attempt waiting for it must be cancelled. */
  private static final Duration NEVER = Duration.ofSeconds(60);
  private static final Duration DELAY = Duration.ofMillis(80);

  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final PoolingAsyncClientConnectionManager pool = PoolingAsyncClientConnectionManagerBuilder.create()
      .build();
  private CloseableHttpAsyncClient client;

  @AfterEach
  void closeClient() throws IOException {
    if (client != null) {
      client.close();
    }
  }

  private RetryPolicy.Builder<HttpResponse> policy(int maxAttempts, Hedging hedging) {
    return RetryPolicy.<HttpResponse>builder()
        .maxAttempts(maxAttempts)
        .hedging(hedging)
        .clock(clock)
        .listener(new RetryListener<HttpResponse>() {
          @Override
          public void onHedgeSent(RetryEvent<HttpResponse> event) {
            events.add("hedge " + event.attempts());
          }

          @Override
          public void onHedgeWon(RetryEvent<HttpResponse> event) {
            events.add("hedge won " + event.attempts());
          }

          @Override
          public void onExhausted(RetryEvent<HttpResponse> event) {
            events.add("stopped " + event.stopReason());
          }

          @Override
          public void onAborted(RetryEvent<HttpResponse> event) {
            events.add("stopped " + event.stopReason());
          }
        });
  }

  private void start(RetryPolicy<HttpResponse> policy) {
    HttpClient5Retry retry = HttpClient5Retry.builder().policy(policy).scheduler(scheduler).build();
    client = retry.install(HttpAsyncClients.custom().setConnectionManager(pool)).build();
    client.start();
  }

  private Future<SimpleHttpResponse> execute(SimpleHttpRequest request) {
    return execute(request, HttpClientContext.create());
  }

  private Future<SimpleHttpResponse> execute(SimpleHttpRequest request, HttpClientContext context) {
    return client.execute(SimpleRequestProducer.create(request), SimpleResponseConsumer.create(), context, null);
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not reached within the hang guard: " + what);
      }
      Thread.sleep(5);
    }
  }

  private void awaitNoLeasedConnection() throws InterruptedException {
    await("every leased connection back (" + pool.getTotalStats() + ")", () -> pool.getTotalStats().getLeased() == 0);
  }

  @Test
  void whenTheFirstResponseIsSlowTheHedgeWinsAndTheSlowExchangeIsCancelled() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "slow").after(NEVER), Reply.of(200, "fast"))) {
      start(policy(2, Hedging.after(DELAY)).build());
      HttpClientContext context = HttpClientContext.create();
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build(), context);
      await("the first request reached the server", () -> server.requests() == 1);
      assertThat(call.isDone()).isFalse();
      assertThat(scheduler.delays()).containsExactly(DELAY);

      scheduler.advance(DELAY);
      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);

      assertThat(response.getCode()).isEqualTo(200);
      assertThat(response.getBodyText()).isEqualTo("fast");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(events).containsExactly("hedge 2", "hedge won 2");
      // The caller's context shows the winning exchange, not a copy nobody sees.
      assertThat(context.getResponse()).isNotNull();
      assertThat(context.getResponse().getCode()).isEqualTo(200);
      awaitNoLeasedConnection(); // the slow exchange never got its answer: it was cancelled
    }
  }

  @Test
  void aRetryableResponseStartsTheNextHedgeAtOnceAndOnlyTheWinnerReachesTheConsumer() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"))) {
      start(policy(3, Hedging.after(Duration.ofSeconds(10))).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await("the 503 came back and the next hedge was planned", () -> scheduler.delays().size() == 2);
      assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(10), Duration.ZERO);
      long before = clock.nanoTime();

      scheduler.runNext();
      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);

      assertThat(clock.nanoTime()).isEqualTo(before); // the hedge did not wait for the hedging delay
      assertThat(response.getCode()).isEqualTo(200);
      assertThat(response.getBodyText()).isEqualTo("ok");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(events).containsExactly("hedge 2", "hedge won 2");
      awaitNoLeasedConnection();
    }
  }

  @Test
  void inAPoolOfOneConnectionEachHedgeGetsTheConnectionOfTheSiblingWhoseResponseWasReadAhead() throws Exception {
    // The call holds a retried response until it ends (it may still end with it). Had that response kept its
    // connection, the next hedge would wait for it for ever: one connection per route.
    PoolingAsyncClientConnectionManager one = PoolingAsyncClientConnectionManagerBuilder.create()
        .setMaxConnPerRoute(1).setMaxConnTotal(1).build();
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "one"), Reply.of(503, "two"), Reply.of(503, "three"))) {
      HttpClient5Retry retry = HttpClient5Retry.builder().policy(policy(3, Hedging.after(Duration.ofSeconds(10))).build())
          .scheduler(scheduler).build();
      client = retry.install(HttpAsyncClients.custom().setConnectionManager(one)).build();
      client.start();
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      // Each 503 starts the next hedge at once (a task due now); the hedging delay's timers never fire here.
      await("every hedge sent and the call ended", () -> {
        scheduler.runDue();
        return call.isDone();
      });
      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);

      assertThat(response.getCode()).isEqualTo(503);
      assertThat(response.getBodyText()).isEqualTo("three"); // the last retried response, with its body
      assertThat(server.requests()).isEqualTo(3);
      await("every leased connection back (" + one.getTotalStats() + ")", () -> one.getTotalStats().getLeased() == 0);
    }
  }

  @Test
  void aRetryAfterOnARetriedResponseDelaysTheNextHedge() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy", "Retry-After", "2"), Reply.of(200, "ok"))) {
      start(policy(3, Hedging.after(Duration.ofSeconds(10))).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await("the 503 came back and the next hedge was planned", () -> scheduler.delays().size() == 2);
      assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(2));

      scheduler.advance(Duration.ofSeconds(2));
      assertThat(call.get(GUARD_SECONDS, TimeUnit.SECONDS).getBodyText()).isEqualTo("ok");
      assertThat(server.requests()).isEqualTo(2);
      awaitNoLeasedConnection();
    }
  }

  @Test
  void aResponseThatIsNotRetriedEndsTheCallAndCancelsTheOtherAttempts() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "slow").after(NEVER), Reply.of(400, "bad"))) {
      start(policy(3, Hedging.after(DELAY)).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await("the first request reached the server", () -> server.requests() == 1);

      scheduler.advance(DELAY);
      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);

      assertThat(response.getCode()).isEqualTo(400);
      assertThat(response.getBodyText()).isEqualTo("bad");
      assertThat(scheduler.pending()).isZero(); // the third attempt's hedge was withdrawn
      scheduler.advance(Duration.ofSeconds(1));
      assertThat(server.requests()).isEqualTo(2);
      awaitNoLeasedConnection();
    }
  }

  @Test
  void noMoreThanMaxHedgesAreSentAndCancellingTheCallCancelsEveryAttempt() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "slow").after(NEVER))) {
      start(policy(5, Hedging.after(DELAY).maxHedges(2)).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await("the first request reached the server", () -> server.requests() == 1);
      scheduler.advance(DELAY);
      await("the first hedge reached the server", () -> server.requests() == 2);
      scheduler.advance(DELAY);
      await("the second hedge reached the server", () -> server.requests() == 3);

      assertThat(scheduler.pending()).isZero(); // no third hedge planned
      scheduler.advance(Duration.ofSeconds(5));
      assertThat(server.requests()).isEqualTo(3);
      assertThat(pool.getTotalStats().getLeased()).isEqualTo(3); // three attempts in flight at once

      assertThat(call.cancel(true)).isTrue();
      awaitNoLeasedConnection();
      assertThat(server.requests()).isEqualTo(3);
      assertThat(events).containsExactly("hedge 2", "hedge 3", "stopped CANCELLED");
    }
  }

  @Test
  void cancellingTheCallWithdrawsThePendingHedge() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "slow").after(NEVER))) {
      start(policy(3, Hedging.after(DELAY)).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await("the first request reached the server", () -> server.requests() == 1);
      assertThat(scheduler.pending()).isEqualTo(1);

      assertThat(call.cancel(true)).isTrue();

      assertThat(scheduler.pending()).isZero();
      scheduler.advance(Duration.ofSeconds(5));
      assertThat(server.requests()).isEqualTo(1);
      assertThat(call.isCancelled()).isTrue();
      awaitNoLeasedConnection();
      assertThat(events).containsExactly("stopped CANCELLED");
    }
  }

  @Test
  void whenEveryAttemptIsRetriedTheCallerGetsTheLastResponseWithItsBody() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "one"), Reply.of(503, "two"))) {
      start(policy(2, Hedging.after(Duration.ofSeconds(10))).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await("the 503 came back and the next hedge was planned", () -> scheduler.delays().size() == 2);

      scheduler.runNext();
      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);

      // The loop let go of the second 503 before it knew no hedge could follow: its body was kept for this.
      assertThat(response.getCode()).isEqualTo(503);
      assertThat(response.getBodyText()).isEqualTo("two");
      assertThat(events).containsExactly("hedge 2", "stopped ATTEMPTS_EXHAUSTED");
      awaitNoLeasedConnection();
    }
  }

  @Test
  void aHedgeTheBudgetRefusesIsNotSent() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "first").after(Duration.ofMillis(300)))) {
      start(policy(3, Hedging.after(DELAY)).budget(ScriptedBudget.refusing()).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await("the first request reached the server", () -> server.requests() == 1);

      scheduler.advance(DELAY);
      assertThat(scheduler.pending()).isZero(); // refused: no hedge now, and none later

      assertThat(call.get(GUARD_SECONDS, TimeUnit.SECONDS).getBodyText()).isEqualTo("first");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).isEmpty();
      awaitNoLeasedConnection();
    }
  }

  @Test
  void aPostWithoutAnIdempotencyKeyIsNeverHedged() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(201, "created").after(Duration.ofMillis(300)),
        Reply.of(201, "twice"))) {
      start(policy(3, Hedging.after(DELAY)).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.post(server.uri("/orders"))
          .setBody("order", ContentType.TEXT_PLAIN).build());
      await("the request reached the server", () -> server.requests() == 1);
      assertThat(scheduler.pending()).isZero(); // no hedge planned
      scheduler.advance(Duration.ofSeconds(1));

      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);
      assertThat(response.getCode()).isEqualTo(201);
      assertThat(response.getBodyText()).isEqualTo("created");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).isEmpty();
      awaitNoLeasedConnection();
    }
  }

  @Test
  void aRequestWithAnEntityIsNotHedgedButStillRetried() throws Exception {
    // A PUT may be repeated, but its one entity producer cannot be written by two attempts at once.
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "stored"))) {
      start(policy(3, Hedging.after(DELAY)).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.put(server.uri("/item"))
          .setBody("value", ContentType.TEXT_PLAIN).build());
      await("the 503 came back and a retry was planned", () -> scheduler.pending() == 1);
      assertThat(scheduler.delays()).hasSize(1); // the retry's backoff: no hedging delay was ever scheduled
      assertThat(server.requests()).isEqualTo(1);

      scheduler.runNext();
      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);
      assertThat(response.getBodyText()).isEqualTo("stored");
      assertThat(server.received()).extracting(ScriptedServer.Received::body).containsExactly("value", "value");
      assertThat(events).isEmpty(); // a retry, not a hedge
      awaitNoLeasedConnection();
    }
  }

  @Test
  void manyHedgedCallsLeaveNoConnectionLeasedAndGiveFinishedOnesBackToThePool() throws Exception {
    int calls = 10;
    Reply[] script = new Reply[2 * calls];
    for (int i = 0; i < calls; i++) {
      script[2 * i] = Reply.of(503, "busy " + i);
      script[2 * i + 1] = Reply.of(200, "ok " + i);
    }
    try (ScriptedServer server = new ScriptedServer(script)) {
      start(policy(2, Hedging.after(Duration.ofSeconds(10))).build());
      for (int i = 0; i < calls; i++) {
        int ran = scheduler.ran();
        Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
        await("the 503 came back and the next hedge was planned", () -> scheduler.pending() == 1
            && scheduler.delays().get(scheduler.delays().size() - 1).isZero());
        scheduler.runNext();
        assertThat(scheduler.ran()).isEqualTo(ran + 1);
        assertThat(call.get(GUARD_SECONDS, TimeUnit.SECONDS).getBodyText()).isEqualTo("ok " + i);
      }
      assertThat(server.requests()).isEqualTo(2 * calls);
      awaitNoLeasedConnection();
      // Responses whose exchange had ended went back to the pool, open, rather than being closed.
      assertThat(pool.getTotalStats().getAvailable()).isBetween(1, 2);
    }
  }

  @Test
  void theClassicClientRefusesAHedgingPolicyAndSaysWhatToUseInstead() {
    HttpClient5Retry retry = HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder().name("hedged")
        .hedging(Hedging.after(DELAY)).build());
    assertThatThrownBy(() -> retry.install(HttpClients.custom()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("policy 'hedged' hedges")
        .hasMessageContaining("one attempt at a time")
        .hasMessageContaining("install(HttpAsyncClientBuilder)");
    assertThatThrownBy(retry::classicClientBuilder).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(retry::classicHandler).isInstanceOf(IllegalStateException.class);
    assertThat(retry.asyncHandler()).isNotNull(); // the same retry serves an async client
  }
}
