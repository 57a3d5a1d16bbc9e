package dev.backoff.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

class BackoffExchangeFilterTest {
  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private ScriptedHttpServer server;

  private List<String> methods() {
    return server.requests().stream().map(RecordedRequest::method).toList();
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  // The example in docs/spring-web.md.
  static WebClient webClient(RetryPolicy<Object> policy, RetryScheduler scheduler) {
    return WebClient.builder()
        .clientConnector(new JdkClientHttpConnector())
        .filter(BackoffExchangeFilter.of(policy, HttpRules.defaults(), scheduler))
        .build();
  }

  private WebClient client(int maxAttempts) {
    RetryPolicy<Object> policy = RetryPolicy.builder().maxAttempts(maxAttempts)
        .backoff(Backoff.fixed(Duration.ofMillis(10))).clock(clock).build();
    return webClient(policy, RetryScheduler.of(scheduler));
  }

  /** Waits (without a time assertion) until the condition holds: the exchange runs on the client's threads. */
  private static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("condition not reached in 20 s");
      }
      Thread.sleep(5);
    }
  }

  @Test
  void retriesA503AfterItsRetryAfterOnTheScheduler() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy").header("Retry-After", "2"), Response.of(200, "ok"));
    CompletableFuture<String> body = client(3).get().uri(server.uri("/x")).retrieve().bodyToMono(String.class).toFuture();

    await(() -> scheduler.pending() == 1);
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(2));
    assertThat(body).isNotDone(); // no thread holds the wait: it is a queued task
    scheduler.advance(Duration.ofSeconds(2));

    assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("ok");
    assertThat(server.requestCount()).isEqualTo(2);
  }

  @Test
  void postIsNotRetriedUnlessAllowed() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"));
    Integer status = client(3).post().uri(server.uri("/x")).bodyValue("payload")
        .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value()))
        .block(Duration.ofSeconds(20));

    assertThat(status).isEqualTo(503);
    assertThat(methods()).containsExactly("POST");
    assertThat(scheduler.delays()).isEmpty();
  }

  @Test
  void postWithAnIdempotencyKeyIsRetried() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"));
    CompletableFuture<String> body = client(3).post().uri(server.uri("/x")).header("Idempotency-Key", "k-1")
        .bodyValue("payload").retrieve().bodyToMono(String.class).toFuture();

    await(() -> scheduler.pending() == 1);
    scheduler.advance(Duration.ofMillis(10));
    assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("ok");
    assertThat(methods()).containsExactly("POST", "POST");
  }

  @Test
  void cancellationMidBackoffMakesNoFurtherAttempt() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy").header("Retry-After", "5"), Response.of(200, "ok"));
    Disposable call = client(5).get().uri(server.uri("/x")).retrieve().bodyToMono(String.class).subscribe();

    await(() -> scheduler.pending() == 1);
    call.dispose();

    assertThat(scheduler.pending()).isZero(); // the pending retry was cancelled
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(scheduler.ran()).isZero();
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void aConnectionResetIsRetried() throws Exception {
    // Two resets: the JDK client retries a reset GET once by itself, so at least one reaches the filter.
    server = new ScriptedHttpServer(Response.reset(), Response.reset(), Response.of(200, "ok"));
    CompletableFuture<String> body = client(4).get().uri(server.uri("/x")).retrieve().bodyToMono(String.class).toFuture();

    while (!body.isDone()) {
      await(() -> body.isDone() || scheduler.pending() == 1);
      scheduler.advance(Duration.ofMillis(10));
    }
    assertThat(body.get()).isEqualTo("ok");
    assertThat(scheduler.ran()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void everyRetriedResponseHasItsBodyReleased() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "one"), Response.of(503, "two"), Response.of(200, "ok"));
    AtomicInteger released = new AtomicInteger();
    // Runs after (inside) the Backoff filter: sees every attempt's response and counts bodies read to the end (or cut short).
    ExchangeFilterFunction recording = (request, next) -> next.exchange(request).map(response -> response.mutate()
        .body(body -> body.doFinally(signal -> released.incrementAndGet())).build());
    RetryPolicy<Object> policy = RetryPolicy.builder().maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(10)))
        .clock(clock).build();
    WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
        .filter(BackoffExchangeFilter.of(policy, HttpRules.defaults(), RetryScheduler.of(scheduler)))
        .filter(recording)
        .build();
    CompletableFuture<String> body = client.get().uri(server.uri("/x")).retrieve().bodyToMono(String.class).toFuture();

    for (int retry = 1; retry <= 2; retry++) {
      await(() -> scheduler.pending() == 1);
      // The retried response is held while the call waits (a retry refused after the wait ends the call with
      // it), and released once its retry starts.
      scheduler.advance(Duration.ofMillis(10));
      int expected = retry;
      await(() -> released.get() >= expected);
    }
    assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("ok");
    await(() -> released.get() == 3); // two released by the filter, the last read by the caller
  }

  @Test
  void exhaustedRetriesGiveTheLastResponse() throws Exception {
    server = new ScriptedHttpServer(Response.of(500, "first"), Response.of(502, "last"));
    CompletableFuture<String> result = client(2).get().uri(server.uri("/x"))
        .exchangeToMono(response -> response.bodyToMono(String.class)
            .map(text -> response.statusCode().value() + " " + text))
        .toFuture();

    await(() -> scheduler.pending() == 1);
    scheduler.advance(Duration.ofMillis(10));
    assertThat(result.get(20, TimeUnit.SECONDS)).isEqualTo("502 last");
    assertThat(server.requestCount()).isEqualTo(2);
  }
}
