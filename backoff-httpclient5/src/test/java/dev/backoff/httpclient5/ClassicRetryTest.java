package dev.backoff.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.httpclient5.ScriptedServer.Reply;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedBudget;
import java.io.ByteArrayInputStream;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpPut;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.RequestFailedException;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.Test;

/** The classic client with the handler installed, against the JDK's HTTP server on loopback. */
class ClassicRetryTest {
  private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");
  static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US);

  /** How long a loopback call may take before it is called hung: never a timing assertion. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(20);

  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final List<String> events = new CopyOnWriteArrayList<>();

  private RetryPolicy.Builder<HttpResponse> policy() {
    return RetryPolicy.<HttpResponse>builder()
        .maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .clock(clock)
        .sleeper(sleeper)
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

  private CloseableHttpClient client(RetryPolicy<HttpResponse> policy, HttpRules rules) {
    return HttpClient5Retry.builder().policy(policy).rules(rules).build().classicClientBuilder().build();
  }

  private static String[] status(CloseableHttpClient client, org.apache.hc.core5.http.ClassicHttpRequest request)
      throws Exception {
    return client.execute(request, response ->
        new String[] {Integer.toString(response.getCode()), EntityUtils.toString(response.getEntity())});
  }

  @Test
  void a503WithRetryAfterSecondsWaitsTheLongerOfItAndTheBackoff() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy", "Retry-After", "2"), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri("/a")))).containsExactly("200", "ok");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2));
      assertThat(events).containsExactly("retry " + FailureClass.THROTTLED);
    }
  }

  @Test
  void a429WithRetryAfterDateWaitsUntilThatDate() throws Exception {
    String date = IMF_FIXDATE.format(NOW.plusSeconds(7).atOffset(ZoneOffset.UTC)); // "Mon, 05 Jan 2026 10:00:07 GMT"
    try (ScriptedServer server = new ScriptedServer(Reply.of(429, "slow down", "Retry-After", date), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri("/a")))).containsExactly("200", "ok");
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(7));
    }
  }

  @Test
  void aRetryAfterBeyondTheMaximumReturnsTheResponseAtOnce() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "later", "Retry-After", "120"));
        CloseableHttpClient client = client(policy().maxPushback(Duration.ofSeconds(60)).build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri("/a")))).containsExactly("503", "later");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(sleeper.sleeps()).isEmpty();
      assertThat(events).containsExactly("exhausted " + StopReason.PUSHBACK_TOO_LONG);
    }
  }

  @Test
  void whenRetriesRunOutTheLastResponseIsReturnedWithItsBody() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(500, "one"), Reply.of(502, "two"), Reply.of(504, "three"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri("/a")))).containsExactly("504", "three");
      assertThat(server.requests()).isEqualTo(3);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
      assertThat(events).containsExactly("retry " + FailureClass.TRANSIENT, "retry " + FailureClass.TRANSIENT,
          "exhausted " + StopReason.ATTEMPTS_EXHAUSTED);
    }
  }

  @Test
  void aStatusThatIsNotRetriedIsReturnedAtOnce() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(404, "no"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri("/a")))).containsExactly("404", "no");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).isEmpty();
    }
  }

  @Test
  void aConnectionClosedMidBodyOfARetryableResponseIsRetried() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "x".repeat(10_000)).cutMidBody(), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri("/a")))).containsExactly("200", "ok");
      assertThat(server.requests()).isEqualTo(2);
    }
  }

  @Test
  void aConnectionResetBeforeTheResponseIsRetried() throws Exception {
    try (ResettingServer server = new ResettingServer(2);
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri()))).containsExactly("200", "ok");
      assertThat(server.connections()).isEqualTo(3);
      assertThat(sleeper.sleeps()).hasSize(2);
    }
  }

  @Test
  void aResponseTimeoutIsRetriedAsATimeout() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "late").after(Duration.ofSeconds(3)), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      HttpGet get = new HttpGet(server.uri("/a"));
      get.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds(300)).build());
      assertThat(status(client, get)).containsExactly("200", "ok");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(events).containsExactly("retry " + FailureClass.TIMEOUT);
    }
  }

  @Test
  void whenRetriesRunOutOnTimeoutsTheLastOneIsThrown() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "late").after(Duration.ofSeconds(3)));
        CloseableHttpClient client = client(policy().maxAttempts(2).build(), rules().build())) {
      HttpGet get = new HttpGet(server.uri("/a"));
      get.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds(200)).build());
      assertThatThrownBy(() -> status(client, get)).isInstanceOf(SocketTimeoutException.class)
          .satisfies(e -> assertThat(e.getSuppressed()).isNotEmpty()); // the earlier timeout and the history
      assertThat(server.requests()).isEqualTo(2);
    }
  }

  @Test
  void aPostIsNotRetriedUnlessAllowed() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      HttpPost post = new HttpPost(server.uri("/orders"));
      post.setEntity(new StringEntity("order", ContentType.TEXT_PLAIN));
      assertThat(status(client, post)).containsExactly("503", "busy");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("aborted " + StopReason.NOT_RETRYABLE);
    }
  }

  @Test
  void aPostIsRetriedWhenItsMethodIsOptedInAndEveryAttemptSendsTheWholeBody() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().retryMethods("POST").build())) {
      HttpPost post = new HttpPost(server.uri("/orders"));
      post.setEntity(new StringEntity("order", ContentType.TEXT_PLAIN));
      assertThat(status(client, post)).containsExactly("200", "ok");
      assertThat(server.received()).extracting(ScriptedServer.Received::body).containsExactly("order", "order");
    }
  }

  @Test
  void aPostWithAnIdempotencyKeyIsRetried() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      HttpPost post = new HttpPost(server.uri("/orders"));
      post.setHeader("Idempotency-Key", "k-1");
      post.setEntity(new StringEntity("order", ContentType.TEXT_PLAIN));
      assertThat(status(client, post)).containsExactly("200", "ok");
      assertThat(server.received()).extracting(ScriptedServer.Received::idempotencyKey).containsExactly("k-1", "k-1");
    }
  }

  @Test
  void aRefusedConnectionIsRetriedEvenForAPostSinceNothingWasSent() throws Exception {
    int closedPort;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort(); // closed again at once: connecting is refused
    }
    try (CloseableHttpClient client = client(policy().maxAttempts(2).build(), rules().build())) {
      HttpPost post = new HttpPost("http://127.0.0.1:" + closedPort + "/orders");
      post.setEntity(new InputStreamEntity(new ByteArrayInputStream("once".getBytes(StandardCharsets.UTF_8)),
          ContentType.TEXT_PLAIN));
      assertThatThrownBy(() -> status(client, post)).isInstanceOf(java.net.ConnectException.class);
      assertThat(events).containsExactly("retry " + FailureClass.TRANSIENT, "exhausted " + StopReason.ATTEMPTS_EXHAUSTED);
    }
  }

  @Test
  void aNonRepeatableEntityIsNeverSentTwiceEvenForAnIdempotentMethod() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      HttpPut put = new HttpPut(server.uri("/doc"));
      put.setEntity(new InputStreamEntity(new ByteArrayInputStream("stream".getBytes(StandardCharsets.UTF_8)),
          ContentType.TEXT_PLAIN));
      assertThat(status(client, put)).containsExactly("503", "busy");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("aborted " + StopReason.NOT_RETRYABLE);
    }
  }

  @Test
  void aBudgetRefusalReturnsTheResponse() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().budget(ScriptedBudget.refusing()).build(), rules().build())) {
      assertThat(status(client, new HttpGet(server.uri("/a")))).containsExactly("503", "busy");
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("exhausted " + StopReason.BUDGET_EXHAUSTED);
    }
  }

  @Test
  void cancellingTheRequestDuringTheWaitStartsNoFurtherAttempt() throws Exception {
    HttpGet get;
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"))) {
      get = new HttpGet(server.uri("/a"));
      HttpGet cancelled = get;
      RetryPolicy<HttpResponse> cancelling = policy().sleeper(nanos -> cancelled.cancel()).build();
      try (CloseableHttpClient client = client(cancelling, rules().build())) {
        assertThatThrownBy(() -> status(client, cancelled)).isInstanceOf(RequestFailedException.class);
      }
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("retry " + FailureClass.THROTTLED, "aborted " + StopReason.CANCELLED);
    }
  }

  @Test
  void interruptingTheWaitEndsTheCallWithTheFlagSet() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "ok"));
        CloseableHttpClient client = client(policy().sleeper(sleeper.interruptAfter(0)).build(), rules().build())) {
      try {
        assertThatThrownBy(() -> status(client, new HttpGet(server.uri("/a"))))
            .isInstanceOf(InterruptedIOException.class);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(server.requests()).isEqualTo(1);
      assertThat(events).containsExactly("retry " + FailureClass.THROTTLED, "aborted " + StopReason.INTERRUPTED);
    }
  }

  @Test
  void withADeadlineEachAttemptsResponseTimeoutIsCutToTheTimeLeft() throws Exception {
    // A real clock here: the deadline is real time. The server answers after 3 s; the deadline is 400 ms
    // away and the request's own timeout is 30 s, so only the cut timeout can end the attempt in time.
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "late").after(Duration.ofSeconds(3)));
        CloseableHttpClient client = client(RetryPolicy.<HttpResponse>builder().maxAttempts(5)
            .maxElapsed(Duration.ofMillis(400)).backoff(Backoff.fixed(Duration.ofMillis(10))).build(), rules().build())) {
      HttpGet get = new HttpGet(server.uri("/a"));
      get.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofSeconds(30)).build());
      long start = System.nanoTime();
      assertThatThrownBy(() -> status(client, get)).isInstanceOf(SocketTimeoutException.class);
      // Not a timing assertion on the deadline's precision: only that the 30 s timeout did not apply.
      assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(20));
    }
  }

  @Test
  void aBodyThatTricklesIsCutAtTheDeadlineWithATimeoutThatSaysSo() throws Exception {
    // Ten bytes a second of a megabyte: every read returns within any response timeout, so only the
    // deadline can end it. Real time here: the deadline is real time.
    try (dev.backoff.testing.ScriptedHttpServer server = new dev.backoff.testing.ScriptedHttpServer(
            dev.backoff.testing.ScriptedHttpServer.Response.ofLength(200, 1_000_000).trickle(Duration.ofMillis(100)));
        CloseableHttpClient client = client(RetryPolicy.<HttpResponse>builder().maxAttempts(3)
            .maxElapsed(Duration.ofMillis(500)).build(), rules().build())) {
      // A hang guard, not a precision check: reading the body whole would take more than a day.
      Throwable thrown = assertTimeoutPreemptively(HANG_GUARD,
          () -> catchThrowable(() -> status(client, new HttpGet(server.uri("/trickle")))));
      assertThat(thrown).isInstanceOf(SocketTimeoutException.class)
          .hasMessageContaining("deadline (maxElapsed PT0.5S) passed before the response's body was read");
      assertThat(server.requestCount()).isEqualTo(1);
    }
  }

  @Test
  void aRetriedResponseWhoseBodyStallsIsReleasedWithoutWaitingForIt() throws Exception {
    // No deadline and HttpClient's default response timeout (3 minutes): a release that read the stalled
    // body would hold the call that long. It closes the connection instead and retries after the backoff.
    try (dev.backoff.testing.ScriptedHttpServer server = new dev.backoff.testing.ScriptedHttpServer(
            dev.backoff.testing.ScriptedHttpServer.Response.ofLength(503, 1_000).trickle(Duration.ofHours(1)),
            dev.backoff.testing.ScriptedHttpServer.Response.of(200, "ok"));
        CloseableHttpClient client = client(policy().build(), rules().build())) {
      assertThat(assertTimeoutPreemptively(HANG_GUARD, () -> status(client, new HttpGet(server.uri("/stall")))))
          .containsExactly("200", "ok");
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100));
    }
  }
}
