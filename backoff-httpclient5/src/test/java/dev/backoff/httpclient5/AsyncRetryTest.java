package dev.backoff.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.httpclient5.ScriptedServer.Reply;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.net.SocketTimeoutException;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.DataStreamChannel;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The async client with the handler installed, against the JDK's HTTP server on loopback. Retries wait on
 * a {@link FakeScheduler}: the test moves time on, so no test waits for a backoff.
 */
class AsyncRetryTest {
  private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");
  /** A hang guard for what the loopback exchange does on its own threads; never a timing assertion. */
  private static final long GUARD_SECONDS = 20;

  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final List<String> events = new CopyOnWriteArrayList<>();
  private CloseableHttpAsyncClient client;

  @AfterEach
  void closeClient() throws IOException {
    if (client != null) {
      client.close();
    }
  }

  private RetryPolicy.Builder<HttpResponse> policy() {
    return RetryPolicy.<HttpResponse>builder()
        .maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .clock(clock)
        .listener(new RetryListener<HttpResponse>() {
          @Override
          public void onRetryScheduled(RetryEvent<HttpResponse> event) {
            events.add("retry " + event.failureClass());
          }

          @Override
          public void onExhausted(RetryEvent<HttpResponse> event) {
            events.add("exhausted " + event.stopReason());
          }

          @Override
          public void onAborted(RetryEvent<HttpResponse> event) {
            events.add("aborted " + event.stopReason());
          }
        });
  }

  private static HttpRules.Builder rules() {
    return HttpRules.builder().wallClock(Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private CloseableHttpAsyncClient start(RetryPolicy<HttpResponse> policy, HttpRules rules) {
    client = HttpClient5Retry.builder().policy(policy).rules(rules).scheduler(scheduler).build()
        .asyncClientBuilder().build();
    client.start();
    return client;
  }

  private Future<SimpleHttpResponse> execute(SimpleHttpRequest request) {
    return client.execute(SimpleRequestProducer.create(request), SimpleResponseConsumer.create(), null);
  }

  /** Waits (bounded) until the loop has a retry waiting on the fake scheduler, or the call ended. */
  private void awaitRetryOrEnd(Future<?> call) throws InterruptedException {
    await(() -> scheduler.pending() > 0 || call.isDone());
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not reached within the hang guard");
      }
      Thread.sleep(5);
    }
  }

  /** Runs every retry as it falls due until the call ends. */
  private SimpleHttpResponse runToEnd(Future<SimpleHttpResponse> call) throws Exception {
    for (int i = 0; i < 20 && !call.isDone(); i++) {
      awaitRetryOrEnd(call);
      if (scheduler.pending() > 0) {
        scheduler.runNext();
      }
    }
    return call.get(GUARD_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void a503WithRetryAfterSecondsWaitsTheLongerOfItAndTheBackoffWithoutAThread() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy", "Retry-After", "2"), Reply.of(200, "ok"))) {
      start(policy().build(), rules().build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      awaitRetryOrEnd(call);
      assertThat(call.isDone()).isFalse();
      assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(2));
      scheduler.advance(Duration.ofSeconds(2));
      SimpleHttpResponse response = call.get(GUARD_SECONDS, TimeUnit.SECONDS);
      assertThat(response.getCode()).isEqualTo(200);
      assertThat(response.getBodyText()).isEqualTo("ok");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(events).containsExactly("retry " + FailureClass.THROTTLED);
    }
  }

  @Test
  void a429WithRetryAfterDateWaitsUntilThatDate() throws Exception {
    String date = ClassicRetryTest.IMF_FIXDATE.format(NOW.plusSeconds(7).atOffset(ZoneOffset.UTC));
    try (ScriptedServer server = new ScriptedServer(Reply.of(429, "slow", "Retry-After", date), Reply.of(200, "ok"))) {
      start(policy().build(), rules().build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      assertThat(runToEnd(call).getCode()).isEqualTo(200);
      assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(7));
    }
  }

  /** A wall clock stopped at {@link #NOW} that counts how often it is read. */
  private static final class CountingClock extends Clock {
    final AtomicInteger reads = new AtomicInteger();

    @Override
    public Instant instant() {
      reads.incrementAndGet();
      return NOW;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  @Test
  void eachResponseIsJudgedOnceWithOneWallClockReadingAndASuccessReadsNone() throws Exception {
    // The head's verdict is the one the engine decides on: the 429's Retry-After date is read against one
    // reading of the wall clock, and the 200 (not retried) reads no clock at all.
    CountingClock wall = new CountingClock();
    String date = ClassicRetryTest.IMF_FIXDATE.format(NOW.plusSeconds(7).atOffset(ZoneOffset.UTC));
    try (ScriptedServer server = new ScriptedServer(Reply.of(429, "slow", "Retry-After", date), Reply.of(200, "ok"))) {
      start(policy().build(), HttpRules.builder().wallClock(wall).build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      assertThat(runToEnd(call).getCode()).isEqualTo(200);
      assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(7));
      assertThat(wall.reads.get()).as("wall-clock readings for a 429 and a 200").isEqualTo(1);
    }
  }

  @Test
  void whenRetriesRunOutTheCallerGetsTheLastResponseWithItsBody() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(500, "one"), Reply.of(502, "two"), Reply.of(504, "three"))) {
      start(policy().build(), rules().build());
      SimpleHttpResponse response = runToEnd(execute(SimpleRequestBuilder.get(server.uri("/a")).build()));
      assertThat(response.getCode()).isEqualTo(504);
      assertThat(response.getBodyText()).isEqualTo("three");
      assertThat(events).containsExactly("retry " + FailureClass.TRANSIENT, "retry " + FailureClass.TRANSIENT,
          "exhausted " + StopReason.ATTEMPTS_EXHAUSTED);
    }
  }

  @Test
  void aBodyLongerThanTheReadAheadLimitReachesTheCallerWholeWhenTheCallStopsOnIt() throws Exception {
    String body = pattern(300_000);
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, body), Reply.of(200, "ok"))) {
      start(policy().budget(ScriptedBudget.refusing()).build(), rules().readAheadLimit(16 * 1024).build());
      SimpleHttpResponse response = runToEnd(execute(SimpleRequestBuilder.get(server.uri("/a")).build()));
      assertThat(response.getCode()).isEqualTo(503);
      assertThat(response.getBodyText()).isEqualTo(body); // the bytes read ahead, then the rest, in order
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("exhausted " + StopReason.BUDGET_EXHAUSTED);
    }
  }

  @Test
  void aReadAheadLimitOfZeroStillHandsTheWholeBodyOver() throws Exception {
    String body = pattern(50_000);
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "retried"), Reply.of(503, body))) {
      start(policy().maxAttempts(2).build(), rules().readAheadLimit(0).build());
      SimpleHttpResponse response = runToEnd(execute(SimpleRequestBuilder.get(server.uri("/a")).build()));
      assertThat(response.getCode()).isEqualTo(503);
      assertThat(response.getBodyText()).isEqualTo(body);
      assertThat(server.requests()).isEqualTo(2);
    }
  }

  @Test
  void aConnectionClosedMidBodyOfARetryableResponseIsRetried() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "x".repeat(10_000)).cutMidBody(), Reply.of(200, "ok"))) {
      start(policy().build(), rules().build());
      SimpleHttpResponse response = runToEnd(execute(SimpleRequestBuilder.get(server.uri("/a")).build()));
      assertThat(response.getCode()).isEqualTo(200);
      assertThat(server.requests()).isEqualTo(2);
    }
  }

  @Test
  void aBodyCutShortAfterItReachedTheCallerIsNotRepeated() throws Exception {
    // A 200 is never retried, so its body goes straight to the caller's consumer: once part of it has been
    // delivered, the call cannot start again.
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "y".repeat(100_000)).cutMidBody(), Reply.of(200, "ok"))) {
      start(policy().build(), rules().build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      assertThatThrownBy(() -> runToEnd(call)).isInstanceOf(ExecutionException.class);
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("aborted " + StopReason.NOT_RETRYABLE);
    }
  }

  @Test
  void aConnectionResetBeforeTheResponseIsRetried() throws Exception {
    try (ResettingServer server = new ResettingServer(2)) {
      start(policy().build(), rules().build());
      SimpleHttpResponse response = runToEnd(execute(SimpleRequestBuilder.get(server.uri()).build()));
      assertThat(response.getCode()).isEqualTo(200);
      assertThat(server.connections()).isEqualTo(3);
    }
  }

  @Test
  void aResponseTimeoutIsRetriedAsATimeoutAndTheLastOneFailsTheCall() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "late").after(Duration.ofSeconds(3)))) {
      start(policy().maxAttempts(2).build(), rules().build());
      SimpleHttpRequest request = SimpleRequestBuilder.get(server.uri("/a")).build();
      request.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds(200)).build());
      Future<SimpleHttpResponse> call = execute(request);
      assertThatThrownBy(() -> runToEnd(call)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(SocketTimeoutException.class);
      assertThat(server.requests()).isEqualTo(2);
      assertThat(events).containsExactly("retry " + FailureClass.TIMEOUT, "exhausted " + StopReason.ATTEMPTS_EXHAUSTED);
    }
  }

  @Test
  void withADeadlineEachAttemptsResponseTimeoutIsCutToTheTimeLeft() throws Exception {
    // Real time here (the policy's clock and the library's scheduler): the server answers after 3 s, the
    // deadline is 400 ms away and the request's own timeout is 30 s, so only the cut timeout ends it in time.
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "late").after(Duration.ofSeconds(3)))) {
      client = HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder().maxAttempts(5)
          .maxElapsed(Duration.ofMillis(400)).backoff(Backoff.fixed(Duration.ofMillis(10))).build())
          .asyncClientBuilder().build();
      client.start();
      SimpleHttpRequest request = SimpleRequestBuilder.get(server.uri("/a")).build();
      request.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofSeconds(30)).build());
      long start = System.nanoTime();
      Future<SimpleHttpResponse> call = execute(request);
      assertThatThrownBy(() -> call.get(GUARD_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(SocketTimeoutException.class);
      // Not a timing assertion on the deadline's precision: only that the 30 s timeout did not apply.
      assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(GUARD_SECONDS));
    }
  }

  @Test
  void aBodyThatTricklesIsCutAtTheDeadline() throws Exception {
    // Ten bytes a second of a megabyte, for a 503 (read ahead while the call may retry it) and for a 200 (the
    // caller's consumer reads it): every read returns within any response timeout, so only the deadline's
    // timer can end them. Real time: the policy's clock and the library's scheduler.
    for (int status : new int[] {503, 200}) {
      try (dev.backoff.testing.ScriptedHttpServer server = new dev.backoff.testing.ScriptedHttpServer(
          dev.backoff.testing.ScriptedHttpServer.Response.ofLength(status, 1_000_000).trickle(Duration.ofMillis(100)))) {
        client = HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder().maxAttempts(5)
            .maxElapsed(Duration.ofMillis(500)).backoff(Backoff.fixed(Duration.ofMillis(10))).build())
            .asyncClientBuilder().build();
        client.start();
        long start = System.nanoTime();
        Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/trickle")).build());
        assertThatThrownBy(() -> call.get(GUARD_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(SocketTimeoutException.class)
            .hasMessageContaining("deadline (maxElapsed PT0.5S) passed before its response was complete");
        // A hang guard, not a precision check: reading either body whole would take more than a day.
        assertThat(System.nanoTime() - start).as("status %d", status).isLessThan(TimeUnit.SECONDS.toNanos(GUARD_SECONDS));
        assertThat(server.requestCount()).as("status %d", status).isEqualTo(1);
        client.close();
        client = null;
      }
    }
  }

  @Test
  void aRetryAfterThePolicysAttemptTimeoutReachesTheServer() throws Exception {
    // The first request never gets an answer: the policy's attempt timeout cuts it at 200 ms, and the retry
    // must go out on a connection of its own and get the second answer. Real time: the client's own I/O.
    try (dev.backoff.testing.ScriptedHttpServer server = new dev.backoff.testing.ScriptedHttpServer(
        dev.backoff.testing.ScriptedHttpServer.Response.hang(), dev.backoff.testing.ScriptedHttpServer.Response.of(200, "ok"))) {
      client = HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder().maxAttempts(3)
          .attemptTimeout(Duration.ofMillis(200)).retryOn(java.util.concurrent.TimeoutException.class)
          .backoff(Backoff.fixed(Duration.ofMillis(10))).build())
          .asyncClientBuilder().build();
      client.start();
      SimpleHttpResponse response = execute(SimpleRequestBuilder.get(server.uri("/slow-then-fine")).build())
          .get(GUARD_SECONDS, TimeUnit.SECONDS);
      assertThat(response.getCode()).isEqualTo(200);
      assertThat(response.getBodyText()).isEqualTo("ok");
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  @Test
  void aPostIsNotRetriedUnlessAllowed() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"))) {
      start(policy().build(), rules().build());
      SimpleHttpResponse response = runToEnd(execute(SimpleRequestBuilder.post(server.uri("/orders"))
          .setBody("order", ContentType.TEXT_PLAIN).build()));
      assertThat(response.getCode()).isEqualTo(503);
      assertThat(response.getBodyText()).isEqualTo("busy");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("aborted " + StopReason.NOT_RETRYABLE);
    }
  }

  @Test
  void anOptedInPostIsRetriedAndEveryAttemptSendsTheWholeBody() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"))) {
      start(policy().build(), rules().retryMethods("POST").build());
      SimpleHttpResponse response = runToEnd(execute(SimpleRequestBuilder.post(server.uri("/orders"))
          .setBody("order", ContentType.TEXT_PLAIN).build()));
      assertThat(response.getCode()).isEqualTo(200);
      assertThat(server.received()).extracting(ScriptedServer.Received::body).containsExactly("order", "order");
    }
  }

  @Test
  void aNonRepeatableEntityProducerIsNeverSentTwice() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"))) {
      start(policy().build(), rules().build());
      var request = org.apache.hc.core5.http.support.BasicRequestBuilder.put(server.uri("/doc")).build();
      Future<SimpleHttpResponse> call = client.execute(
          new BasicRequestProducer(request, new OnceOnly(AsyncEntityProducers.create("stream", ContentType.TEXT_PLAIN))),
          SimpleResponseConsumer.create(), null);
      SimpleHttpResponse response = runToEnd(call);
      assertThat(response.getCode()).isEqualTo(503);
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("aborted " + StopReason.NOT_RETRYABLE);
    }
  }

  @Test
  void cancellingTheFutureDuringTheWaitCancelsTheRetryAndStartsNoFurtherAttempt() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"))) {
      start(policy().build(), rules().build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      awaitRetryOrEnd(call);
      assertThat(scheduler.pending()).isEqualTo(1);

      assertThat(call.cancel(true)).isTrue();

      assertThat(scheduler.pending()).isZero(); // the retry left the queue when cancel returned
      scheduler.advance(Duration.ofSeconds(10));
      assertThat(server.requests()).isEqualTo(1);
      assertThat(call.isCancelled()).isTrue();
      assertThat(events).containsExactly("retry " + FailureClass.THROTTLED, "aborted " + StopReason.CANCELLED);
    }
  }

  @Test
  void cancellingTheFutureDuringAnAttemptStopsTheCall() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "late").after(Duration.ofSeconds(2)))) {
      start(policy().build(), rules().build());
      Future<SimpleHttpResponse> call = execute(SimpleRequestBuilder.get(server.uri("/a")).build());
      await(() -> server.requests() == 1);
      assertThat(call.cancel(true)).isTrue();
      await(() -> events.size() == 1);
      assertThat(events).containsExactly("aborted " + StopReason.CANCELLED);
      assertThat(scheduler.pending()).isZero();
      assertThat(server.requests()).isEqualTo(1);
    }
  }

  static String pattern(int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + (i * 7 + i / 26) % 26));
    }
    return text.toString();
  }

  /** A producer that can write its entity once: as a stream from a socket or a pipe would be. */
  private static final class OnceOnly implements AsyncEntityProducer {
    private final AsyncEntityProducer delegate;

    OnceOnly(AsyncEntityProducer delegate) {
      this.delegate = delegate;
    }

    @Override
    public boolean isRepeatable() {
      return false;
    }

    @Override
    public void failed(Exception cause) {
      delegate.failed(cause);
    }

    @Override
    public long getContentLength() {
      return delegate.getContentLength();
    }

    @Override
    public String getContentType() {
      return delegate.getContentType();
    }

    @Override
    public String getContentEncoding() {
      return delegate.getContentEncoding();
    }

    @Override
    public boolean isChunked() {
      return delegate.isChunked();
    }

    @Override
    public Set<String> getTrailerNames() {
      return delegate.getTrailerNames();
    }

    @Override
    public int available() {
      return delegate.available();
    }

    @Override
    public void produce(DataStreamChannel channel) throws IOException {
      delegate.produce(channel);
    }

    @Override
    public void releaseResources() {
      delegate.releaseResources();
    }
  }

}
