package dev.backoff.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.Backoff;
import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import reactor.core.publisher.Hooks;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

/**
 * Hedging through {@link BackoffExchangeFilter} against real loopback servers: the hedging delay is a task on
 * a fake scheduler, so the test decides when a hedge is due; the exchanges are real.
 */
class ExchangeFilterHedgingTest {
  private static final Duration HEDGE_DELAY = Duration.ofMillis(50);

  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private ScriptedHttpServer server;
  private HttpServer jdkServer;
  private ExecutorService jdkServerThreads;
  private final CountDownLatch releaseSlowAnswer = new CountDownLatch(1);

  /**
   * Errors Reactor dropped. A cancelled exchange of the JDK connector may end after its cancellation with a
   * CompletionException wrapping a CancellationException, which Reactor drops (by default logging it at ERROR):
   * a Reactor quirk for any cancelled exchange of that connector. Only those may be dropped here.
   */
  private final List<Throwable> dropped = new CopyOnWriteArrayList<>();

  @BeforeEach
  void recordDroppedErrors() {
    Hooks.onErrorDropped(dropped::add);
  }

  @AfterEach
  void onlyCancellationsWereDropped() {
    Hooks.resetOnErrorDropped();
    assertThat(dropped).allMatch(e -> e instanceof CancellationException
        || e instanceof CompletionException && e.getCause() instanceof CancellationException);
  }

  @AfterEach
  void stop() throws Exception {
    releaseSlowAnswer.countDown();
    if (server != null) {
      server.close();
    }
    if (jdkServer != null) {
      jdkServer.stop(0);
      jdkServerThreads.shutdownNow();
    }
  }

  /** Three attempts at most, hedged after {@link #HEDGE_DELAY}; a long fixed backoff that hedging must not use. */
  private RetryPolicy<Object> hedgingPolicy() {
    return RetryPolicy.builder().name("reads").maxAttempts(3).backoff(Backoff.fixed(Duration.ofSeconds(10)))
        .hedging(Hedging.after(HEDGE_DELAY)).clock(clock).build();
  }

  private WebClient client(RetryPolicy<Object> policy, ExchangeFilterFunction... inner) {
    WebClient.Builder builder = WebClient.builder().clientConnector(new JdkClientHttpConnector())
        .filter(BackoffExchangeFilter.of(policy, HttpRules.defaults(), RetryScheduler.of(scheduler)));
    for (ExchangeFilterFunction filter : inner) {
      builder.filter(filter);
    }
    return builder.build();
  }

  private List<String> methods() {
    return server.requests().stream().map(RecordedRequest::method).toList();
  }

  /** Waits (without a time assertion) until the condition holds: the exchanges run on the client's threads. */
  private static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("condition not reached in 20 s");
      }
      Thread.sleep(5);
    }
  }

  /** What the slow first exchange's handler saw when it finally answered. */
  private record SlowAnswer(long bytesWritten, IOException failure) {}

  /**
   * A JDK HttpServer whose first request is answered only once the test releases it, with a 256 MiB body, and
   * whose later requests get "hedge N" at once. The first answer's outcome tells whether its client still
   * listens: writing to a connection the client has closed fails long before 256 MiB; one it still holds
   * would be read to its end (or block once the client stops reading).
   */
  private URI startServerWithSlowFirstAnswer(CompletableFuture<SlowAnswer> slowAnswer) throws IOException {
    AtomicInteger requests = new AtomicInteger();
    jdkServerThreads = Executors.newCachedThreadPool();
    jdkServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    jdkServer.setExecutor(jdkServerThreads);
    jdkServer.createContext("/", exchange -> {
      int number = requests.incrementAndGet();
      exchange.getRequestBody().readAllBytes();
      if (number > 1) {
        byte[] body = ("hedge " + number).getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
        return;
      }
      long written = 0;
      try {
        if (!releaseSlowAnswer.await(20, TimeUnit.SECONDS)) {
          slowAnswer.completeExceptionally(new AssertionError("the slow answer was never released"));
          return;
        }
        byte[] chunk = new byte[64 * 1024];
        exchange.sendResponseHeaders(200, 0); // chunked
        OutputStream out = exchange.getResponseBody();
        while (written < 256L * 1024 * 1024) {
          out.write(chunk);
          out.flush();
          written += chunk.length;
        }
        out.close();
        slowAnswer.complete(new SlowAnswer(written, null));
      } catch (IOException closedByClient) {
        slowAnswer.complete(new SlowAnswer(written, closedByClient));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        slowAnswer.completeExceptionally(e);
      } finally {
        exchange.close();
      }
    });
    jdkServer.start();
    return URI.create("http://127.0.0.1:" + jdkServer.getAddress().getPort() + "/x");
  }

  @Test
  void aSlowExchangeIsHedgedTheHedgeWinsAndTheLosersConnectionIsClosed() throws Exception {
    CompletableFuture<SlowAnswer> slowAnswer = new CompletableFuture<>();
    URI uri = startServerWithSlowFirstAnswer(slowAnswer);
    CompletableFuture<String> body = client(hedgingPolicy()).get().uri(uri).retrieve().bodyToMono(String.class)
        .toFuture();

    await(() -> scheduler.pending() == 1); // the first hedge, due after the hedging delay
    assertThat(scheduler.delays()).containsExactly(HEDGE_DELAY);
    assertThat(body).isNotDone();
    scheduler.advance(HEDGE_DELAY); // the hedge starts: a second exchange alongside the first

    assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("hedge 2");
    assertThat(scheduler.pending()).isZero(); // the third attempt's hedge was cancelled with the call's end
    releaseSlowAnswer.countDown();
    SlowAnswer loser = slowAnswer.get(20, TimeUnit.SECONDS);
    assertThat(loser.failure()).as("the loser's connection was closed by the client").isNotNull();
    assertThat(loser.bytesWritten()).isLessThan(256L * 1024 * 1024);
  }

  @Test
  void aRetryableFailureHedgesAtOnceWithoutBackoffAndOnlyTheWinnersBodyReachesTheCaller() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy {n}"), Response.of(200, "answer {n}"));
    AtomicInteger bodiesRead = new AtomicInteger();
    // Inside the Backoff filter: sees every attempt's response and counts bodies read to their end.
    ExchangeFilterFunction counting = (request, next) -> next.exchange(request).map(response -> response.mutate()
        .body(flux -> flux.doOnComplete(bodiesRead::incrementAndGet)).build());
    CompletableFuture<String> body = client(hedgingPolicy(), counting).get().uri(server.uri("/x")).retrieve()
        .bodyToMono(String.class).toFuture();

    // The 503 replaces the pending hedge (due after the hedging delay) with one due now, not after the backoff.
    await(() -> scheduler.delays().size() == 2);
    assertThat(scheduler.delays()).containsExactly(HEDGE_DELAY, Duration.ZERO);
    assertThat(scheduler.runDue()).isEqualTo(1);

    assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("answer 2");
    assertThat(clock.nanoTime()).isZero(); // no time passed: no backoff, no hedging delay
    assertThat(server.requestCount()).isEqualTo(2);
    // The winner's body, and the 503's: the call holds a retried response while it may still end with it
    // (the next hedge could be refused), and the filter releases it once the hedge has won.
    await(() -> bodiesRead.get() == 2);
  }

  @Test
  void aPostIsNeverHedgedEvenWhenItIsSlow() throws Exception {
    server = new ScriptedHttpServer(Response.hang(), Response.of(200, "ok {n}"));
    Disposable call = client(hedgingPolicy()).post().uri(server.uri("/x")).bodyValue("payload").retrieve()
        .bodyToMono(String.class).subscribe();

    await(() -> server.requestCount() == 1);
    scheduler.advance(Duration.ofMinutes(1));
    call.dispose();

    assertThat(scheduler.delays()).isEmpty(); // no hedge was ever planned
    assertThat(scheduler.ran()).isZero();
    assertThat(methods()).containsExactly("POST");
  }

  @Test
  void aPostWithAnIdempotencyKeyIsHedgedWithTheSameKeyAndBody() throws Exception {
    server = new ScriptedHttpServer(Response.hang(), Response.of(201, "created {n}"));
    CompletableFuture<String> body = client(hedgingPolicy()).post().uri(server.uri("/x"))
        .header("Idempotency-Key", "k-1").bodyValue("payload").retrieve().bodyToMono(String.class).toFuture();

    await(() -> server.requestCount() == 1 && scheduler.pending() == 1);
    scheduler.advance(HEDGE_DELAY);

    assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("created 2");
    assertThat(methods()).containsExactly("POST", "POST");
    assertThat(server.requests()).extracting(RecordedRequest::body).containsExactly("payload", "payload");
    assertThat(server.requests()).extracting(request -> request.header("Idempotency-Key")).containsExactly("k-1", "k-1");
  }

  @Test
  void cancellingAHedgedCallCancelsEveryExchangeAndStartsNoOther() throws Exception {
    server = new ScriptedHttpServer(Response.hang(), Response.hang(), Response.of(200, "ok {n}"));
    Disposable call = client(hedgingPolicy()).get().uri(server.uri("/x")).retrieve().bodyToMono(String.class)
        .subscribe();

    await(() -> server.requestCount() == 1 && scheduler.pending() == 1);
    scheduler.advance(HEDGE_DELAY);
    await(() -> server.requestCount() == 2 && scheduler.pending() == 1); // two in flight, a third hedge planned
    call.dispose();

    assertThat(scheduler.pending()).isZero(); // the third hedge was cancelled
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.requestCount()).isEqualTo(2);
  }

  @Test
  void theFilterDoesNotWaitForTheHedgingDelayWhenTheFirstAnswerIsGood() throws Exception {
    server = new ScriptedHttpServer(Response.of(200, "ok {n}"));
    String body = client(hedgingPolicy()).get().uri(server.uri("/x")).retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(20));

    assertThat(body).isEqualTo("ok 1");
    assertThat(scheduler.pending()).isZero(); // the planned hedge was cancelled when the answer came
    assertThat(scheduler.delays()).containsExactly(HEDGE_DELAY);
    assertThat(server.requestCount()).isEqualTo(1);
  }
}
