package dev.backoff.conformance.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backoff.Backoff;
import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.WaitHeader;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One set of misbehaving servers, run against every HTTP adapter: servers that always answer 503, answer a
 * POST with {@code Retry-After: 0}, trickle or stall a 503's body past the call's deadline, send absurd or
 * folded {@code Retry-After} values, say "wait" through the opt-in fields ({@code retry-after-ms},
 * {@code x-amz-retry-after}, {@code X-RateLimit-Reset}, the IETF {@code RateLimit}) with exact, absurd or
 * garbage values, or hold every connection of a small pool. A subclass says how its adapter
 * makes a client under a {@link Shape} of policy and sends one request; each case here asserts what the
 * server received (how many requests, and when) and that the call ended within its deadline plus a margin
 * with the safe outcome: a response the caller can read, or the client's own error type, never a runtime
 * exception from a dependency.
 *
 * <p>Every case is bounded in time ({@link #BOUND}) and counts requests once more after a short pause, so a
 * request the adapter (or its client's own retry) sends after the call has ended is seen.
 */
public abstract class HostileServerSuite {
  /** How long any case may take before it fails: far above every deadline below. */
  static final Duration BOUND = Duration.ofSeconds(20);
  /** The deadline of the cases whose server stalls: the call must end by it, plus {@link #MARGIN}. */
  static final Duration DEADLINE = Duration.ofSeconds(1);
  /** How late after its deadline a call may end: scheduling on a loaded machine, closing a connection. */
  static final Duration MARGIN = Duration.ofMillis(1500);
  /** How long a case waits after a call ends before counting requests again. */
  static final Duration SETTLE = Duration.ofMillis(300);

  /**
   * What a case asks of the policy; an adapter builds its own typed policy with {@link #policy()}.
   *
   * @param maxAttempts the attempts, the first included
   * @param backoff the fixed wait between attempts
   * @param maxElapsed the call's deadline, or null for none
   * @param hedgeDelay the hedging delay, or null for no hedging
   * @param waitHeaders the header fields the adapter reads as the server's wait ({@link #rules()})
   */
  protected record Shape(int maxAttempts, Duration backoff, Duration maxElapsed, Duration hedgeDelay,
      Set<WaitHeader> waitHeaders) {
    /** A shape whose adapter reads {@code Retry-After} alone, the default. */
    public Shape(int maxAttempts, Duration backoff, Duration maxElapsed, Duration hedgeDelay) {
      this(maxAttempts, backoff, maxElapsed, hedgeDelay, EnumSet.of(WaitHeader.RETRY_AFTER));
    }

    /** The HTTP rules every adapter is given: the defaults, reading {@link #waitHeaders}. */
    public HttpRules rules() {
      return HttpRules.builder().waitHeaders(waitHeaders.toArray(WaitHeader[]::new)).build();
    }

    /** A policy of any response type with these settings and the library's defaults otherwise. */
    public <R> RetryPolicy<R> policy() {
      RetryPolicy.Builder<R> builder = RetryPolicy.<R>builder()
          .maxAttempts(maxAttempts)
          .backoff(Backoff.fixed(backoff));
      if (maxElapsed != null) {
        builder.maxElapsed(maxElapsed);
      }
      if (hedgeDelay != null) {
        builder.hedging(Hedging.after(hedgeDelay));
      }
      return builder.build();
    }
  }

  /** A client of the adapter under one policy. */
  protected interface Exchange extends AutoCloseable {
    /**
     * Sends one request and reads the response's body to its end.
     *
     * @param method {@code GET} or {@code POST}
     * @param body the request body, or null for none
     * @return the status of the response the caller got
     * @throws Exception what the client throws to its callers
     */
    int send(String method, URI uri, String body) throws Exception;

    /** Closes the client; an {@code IOException} at most (never an interrupt to swallow). */
    @Override
    void close() throws java.io.IOException;
  }

  /** The adapter's name, shown in failures. */
  protected abstract String adapter();

  /** A client of the adapter under {@code shape}, its connection pool (if it has one) at its defaults. */
  protected abstract Exchange open(Shape shape) throws Exception;

  /**
   * A client that hedges under {@code shape}, with at most {@code connectionsPerRoute} connections to one
   * server; null if the adapter does not hedge (its hedging cases are then skipped, not passed).
   */
  protected Exchange openHedging(Shape shape, int connectionsPerRoute) throws Exception {
    return null;
  }

  /**
   * Whether {@code failure} is an error the adapter's callers are meant to handle (an {@code IOException},
   * the framework's own exception type, one of Backoff's documented exceptions); a runtime exception that
   * leaks from a dependency's parser is not.
   */
  protected abstract boolean isClientError(Throwable failure);

  /** What a call ended with, and when. */
  record Ending(Integer status, Throwable failure, long startNanos, long endNanos) {
    Duration took() {
      return Duration.ofNanos(endNanos - startNanos);
    }

    @Override
    public String toString() {
      return (status != null ? "status " + status : "failure " + failure) + " after " + took().toMillis() + " ms";
    }
  }

  private Ending call(Exchange exchange, String method, URI uri, String body) {
    long start = System.nanoTime();
    try {
      int status = exchange.send(method, uri, body);
      return new Ending(status, null, start, System.nanoTime());
    } catch (Exception e) {
      return new Ending(null, e, start, System.nanoTime());
    }
  }

  private void assertSafe(Ending ending, int expectedStatus) {
    if (ending.failure() != null) {
      assertThat(isClientError(ending.failure()))
          .as("%s: the call failed with an exception its callers are not meant to handle: %s", adapter(),
              stackOf(ending.failure()))
          .isTrue();
    } else {
      assertThat(ending.status()).as("%s: the status the caller got", adapter()).isEqualTo(expectedStatus);
    }
  }

  private static String stackOf(Throwable failure) {
    java.io.StringWriter out = new java.io.StringWriter();
    failure.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  /** The requests the server read, after waiting {@link #SETTLE} for any that a background retry sends. */
  private static List<RecordedRequest> settledRequests(ScriptedHttpServer server) throws InterruptedException {
    Thread.sleep(SETTLE.toMillis());
    return server.requests();
  }

  private void assertEndsByDeadline(Ending ending, List<RecordedRequest> requests) {
    assertThat(ending.took())
        .as("%s: the call ended within its deadline of %s plus %s: %s", adapter(), DEADLINE, MARGIN, ending)
        .isLessThanOrEqualTo(DEADLINE.plus(MARGIN));
    long deadline = ending.startNanos() + DEADLINE.toNanos();
    assertThat(requests)
        .as("%s: no request reached the server after the call's deadline", adapter())
        .allSatisfy(request -> assertThat(request.receivedNanos()).isLessThanOrEqualTo(deadline));
  }

  @Test
  void alwaysUnavailableGetIsSentMaxAttemptsTimes() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"));
          Exchange exchange = open(new Shape(4, Duration.ofMillis(10), null, null))) {
        Ending ending = call(exchange, "GET", server.uri("/always-503"), null);
        assertSafe(ending, 503);
        assertThat(settledRequests(server)).as("%s: requests the server read", adapter()).hasSize(4);
      }
    });
  }

  @Test
  void getIsNotRepeatedByTheClientsOwnRetry() {
    // A 503 with Retry-After: 0 invites a client's own follow-up (OkHttp's, say) inside each attempt.
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(503, "busy").header("Retry-After", "0"));
          Exchange exchange = open(new Shape(3, Duration.ofMillis(10), null, null))) {
        Ending ending = call(exchange, "GET", server.uri("/retry-after-0"), null);
        assertSafe(ending, 503);
        assertThat(settledRequests(server)).as("%s: one request per attempt", adapter()).hasSize(3);
      }
    });
  }

  @Test
  void postWithoutIdempotencyKeyReachesTheServerOnce() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(503, "busy").header("Retry-After", "0"));
          Exchange exchange = open(new Shape(4, Duration.ofMillis(10), null, null))) {
        Ending ending = call(exchange, "POST", server.uri("/orders"), "order");
        assertSafe(ending, 503);
        assertThat(settledRequests(server)).as("%s: a POST without an idempotency key", adapter()).hasSize(1);
      }
    });
  }

  @Test
  void tricklingBodyOfA503IsBoundedByTheDeadline() {
    // 10 bytes a second of a 1 MB body: reading it would take a day.
    endsByTheDeadline(Response.ofLength(503, 1_000_000).trickle(Duration.ofMillis(100)), 503);
  }

  @Test
  void stalledBodyOfA503IsBoundedByTheDeadline() {
    // The head and one byte of the body, then nothing for an hour.
    endsByTheDeadline(Response.ofLength(503, 1_000).trickle(Duration.ofHours(1)), 503);
  }

  @Test
  void stalledBodyOfA200IsBoundedByTheDeadline() {
    endsByTheDeadline(Response.ofLength(200, 1_000).trickle(Duration.ofHours(1)), 200);
  }

  /** A GET under a {@link #DEADLINE} to a server answering {@code response}, ending safely by the deadline. */
  private void endsByTheDeadline(Response response, int expectedStatus) {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(response);
          Exchange exchange = open(new Shape(10, Duration.ofMillis(10), DEADLINE, null))) {
        Ending ending = call(exchange, "GET", server.uri("/slow-body"), null);
        assertSafe(ending, expectedStatus);
        assertEndsByDeadline(ending, settledRequests(server));
      }
    });
  }

  @Test
  void retryAfterBeyondAnIntEndsCleanly() {
    // 2^31 seconds: past what an int holds (OkHttp's own parser throws on it) and past any pushback limit.
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(503, "busy").header("Retry-After", "2147483648"), Response.of(200, "ok"));
          Exchange exchange = open(new Shape(4, Duration.ofMillis(10), Duration.ofSeconds(5), null))) {
        Ending ending = call(exchange, "GET", server.uri("/huge-retry-after"), null);
        assertSafe(ending, 503);
        assertThat(settledRequests(server)).as("%s: a wait past the deadline is not taken", adapter()).hasSize(1);
      }
    });
  }

  @Test
  void retryAfterOfGarbageFallsBackToTheBackoff() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(503, "busy").header("Retry-After", "soon, I promise"), Response.of(200, "ok"));
          Exchange exchange = open(new Shape(4, Duration.ofMillis(10), null, null))) {
        Ending ending = call(exchange, "GET", server.uri("/garbage-retry-after"), null);
        assertSafe(ending, 200);
        assertThat(settledRequests(server)).hasSize(2);
      }
    });
  }

  @Test
  void retryAfterFoldedByAProxyIsHonouredAtItsLongest() {
    // Two Retry-After fields folded into one line; the longer wait is the one the server can rely on.
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(503, "busy").header("Retry-After", "0, 1"), Response.of(200, "ok"));
          Exchange exchange = open(new Shape(4, Duration.ofMillis(10), null, null))) {
        Ending ending = call(exchange, "GET", server.uri("/folded"), null);
        assertSafe(ending, 200);
        List<RecordedRequest> requests = settledRequests(server);
        assertThat(requests).hasSize(2);
        assertThat(Duration.ofNanos(requests.get(1).receivedNanos() - requests.get(0).receivedNanos()))
            .as("%s: the wait between the attempts", adapter())
            .isGreaterThanOrEqualTo(Duration.ofMillis(950));
      }
    });
  }

  /** A shape that reads every wait header, with four attempts, a 10 ms backoff and a deadline of {@code maxElapsed}. */
  private static Shape everyWaitHeader(Duration maxElapsed) {
    return new Shape(4, Duration.ofMillis(10), maxElapsed, null, EnumSet.allOf(WaitHeader.class));
  }

  /** The time between the first two requests the server read. */
  private static Duration spacing(List<RecordedRequest> requests) {
    return Duration.ofNanos(requests.get(1).receivedNanos() - requests.get(0).receivedNanos());
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', value = {
      "503|retry-after-ms|400|400", "503|x-amz-retry-after|400|400", "429|X-RateLimit-Reset|1|1000",
      "503|RateLimit|\"default\";r=0;t=1|1000", "429|RateLimit-Reset|1|1000"})
  void anOptInWaitHeaderIsHonouredExactly(int status, String header, String value, long waitMillis) {
    // The wait is a lower bound (the engine waits max(hint, backoff)); the upper bound leaves 2 s of slack.
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(status, "wait").header(header, value), Response.of(200, "ok"));
          Exchange exchange = open(everyWaitHeader(null))) {
        Ending ending = call(exchange, "GET", server.uri("/wait-header"), null);
        assertSafe(ending, 200);
        List<RecordedRequest> requests = settledRequests(server);
        assertThat(requests).as("%s: requests the server read", adapter()).hasSize(2);
        assertThat(spacing(requests)).as("%s: the wait %s: %s asked for", adapter(), header, value)
            .isGreaterThanOrEqualTo(Duration.ofMillis(waitMillis - 50))
            .isLessThan(Duration.ofMillis(waitMillis + 2000));
      }
    });
  }

  @Test
  @Tag("slow") // waits until the next whole second but one: up to 2 s
  void xRateLimitResetAsAUnixTimeIsHonouredUntilThatSecond() {
    assertTimeoutPreemptively(BOUND, () -> {
      long resetSecond = java.time.Instant.now().getEpochSecond() + 2; // between 1 and 2 s from now
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(429, "wait").header("X-RateLimit-Reset", String.valueOf(resetSecond))
                  .header("X-RateLimit-Remaining", "0"),
              Response.of(200, "ok"));
          Exchange exchange = open(everyWaitHeader(null))) {
        Ending ending = call(exchange, "GET", server.uri("/epoch-reset"), null);
        assertSafe(ending, 200);
        long secondReadAtMillis = System.currentTimeMillis()
            - Duration.ofNanos(System.nanoTime() - settledRequests(server).get(1).receivedNanos()).toMillis();
        assertThat(server.requests()).as("%s: requests the server read", adapter()).hasSize(2);
        assertThat(secondReadAtMillis).as("%s: the retry came at or after the reset second", adapter())
            .isGreaterThanOrEqualTo(resetSecond * 1000 - 50);
        assertThat(ending.took()).as("%s: the call", adapter()).isLessThan(Duration.ofSeconds(5));
      }
    });
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', value = {
      "503|retry-after-ms|99999999999999999999", "503|x-amz-retry-after|9223372036855",
      "429|X-RateLimit-Reset|1767225600000000", "503|RateLimit|\"default\";r=0;t=9999999999999999",
      "503|RateLimit|\"default\";r=0;t=3600"})
  void anAbsurdWaitHeaderEndsTheCallAfterOneRequest(int status, String header, String value) {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(status, "wait").header(header, value), Response.of(200, "ok"));
          Exchange exchange = open(everyWaitHeader(Duration.ofSeconds(5)))) {
        Ending ending = call(exchange, "GET", server.uri("/absurd-wait"), null);
        assertSafe(ending, status);
        assertThat(settledRequests(server)).as("%s: a wait past the deadline is not taken", adapter()).hasSize(1);
        assertThat(ending.took()).as("%s: the call", adapter()).isLessThan(Duration.ofSeconds(2));
      }
    });
  }

  /**
   * A GET under {@code shape} to a server answering {@code first}, then 200: retried once, without a wait
   * (the call ends well within 2 s).
   */
  private void retriedWithoutAWait(Shape shape, Response first, String why) {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(first, Response.of(200, "ok"));
          Exchange exchange = open(shape)) {
        Ending ending = call(exchange, "GET", server.uri("/no-wait"), null);
        assertSafe(ending, 200);
        assertThat(settledRequests(server)).as("%s: requests the server read", adapter()).hasSize(2);
        assertThat(ending.took()).as("%s: %s", adapter(), why).isLessThan(Duration.ofSeconds(2));
      }
    });
  }

  @Test
  void garbageInEveryWaitHeaderFallsBackToTheBackoff() {
    retriedWithoutAWait(everyWaitHeader(null),
        Response.of(429, "wait").header("retry-after-ms", "-5").header("x-amz-retry-after", "1.5")
            .header("X-RateLimit-Reset", "soon").header("RateLimit", "\"default\";r=0;t=30,")
            .header("RateLimit-Reset", "-1").header("Retry-After", "later"),
        "no wait was read from garbage");
  }

  @Test
  void theMillisecondFieldsAreOptIn() {
    retriedWithoutAWait(new Shape(4, Duration.ofMillis(10), null, null),
        Response.of(503, "wait").header("retry-after-ms", "5000").header("x-amz-retry-after", "5000"),
        "the millisecond fields are read only when enabled");
  }

  @Test
  void theMillisecondFieldOutranksRetryAfter() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
              Response.of(503, "wait").header("Retry-After", "3").header("retry-after-ms", "300"),
              Response.of(200, "ok"));
          Exchange exchange = open(everyWaitHeader(null))) {
        assertSafe(call(exchange, "GET", server.uri("/ranked"), null), 200);
        assertThat(spacing(settledRequests(server))).as("%s: retry-after-ms, not Retry-After", adapter())
            .isGreaterThanOrEqualTo(Duration.ofMillis(250)).isLessThan(Duration.ofMillis(2500));
      }
    });
  }

  @Test
  void hedgedCallsUnderPoolPressureAllEnd() {
    // 30 hedged calls to a server that always answers 503, through 5 connections: a hedge must never wait
    // for a connection that its own siblings hold.
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy").delay(Duration.ofMillis(20)))) {
        Exchange exchange = openHedging(new Shape(3, Duration.ofMillis(10), Duration.ofSeconds(8),
            Duration.ofMillis(5)), 5);
        assumeTrue(exchange != null, adapter() + " does not hedge");
        try (exchange) {
          ExecutorService callers = Executors.newFixedThreadPool(30);
          try {
            List<CompletableFuture<Ending>> endings = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
              endings.add(CompletableFuture.supplyAsync(
                  () -> call(exchange, "GET", server.uri("/pool"), null), callers));
            }
            for (CompletableFuture<Ending> ending : endings) {
              assertSafe(ending.get(), 503);
            }
          } finally {
            callers.shutdownNow();
            callers.awaitTermination(5, TimeUnit.SECONDS);
          }
          assertThat(settledRequests(server)).as("%s: at most 3 attempts per call", adapter())
              .hasSizeBetween(30, 90);
        }
      }
    });
  }

  @Test
  void postIsNeverHedged() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "ok").delay(Duration.ofMillis(300)))) {
        Exchange exchange = openHedging(new Shape(3, Duration.ofMillis(10), null, Duration.ofMillis(20)), 5);
        assumeTrue(exchange != null, adapter() + " does not hedge");
        try (exchange) {
          Ending ending = call(exchange, "POST", server.uri("/orders"), "order");
          assertSafe(ending, 200);
          assertThat(settledRequests(server)).as("%s: a POST without an idempotency key", adapter()).hasSize(1);
        }
      }
    });
  }
}
