package dev.backoff.lab;

import dev.backoff.sim.KneeLatency;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server over real loopback sockets. No assertion depends on how fast the machine is. */
@Timeout(60)
class LabServerTest {
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private LabServer server;

  @AfterEach
  void close() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private CompletableFuture<HttpResponse<String>> sendAsync() {
    return client.sendAsync(HttpRequest.newBuilder(server.apiUri()).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 30 s");
      }
      Thread.sleep(10);
    }
  }

  @Test
  void apiAnswersOkOnLoopbackOnly() throws Exception {
    server = LabServer.builder().start();
    HttpResponse<String> response = get("/api");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("OK");
    assertThat(server.apiUri().getHost()).isEqualTo("127.0.0.1");
    assertThat(server.stats().answered()).isEqualTo(1);
    assertThat(server.statusLine()).isEqualTo("concurrency: 0, last delay: 100ms");
  }

  @Test
  void adminEndpointsPauseAndResumeAndRefuseGet() throws Exception {
    server = LabServer.builder().start();
    assertThat(get("/admin/pause").statusCode()).isEqualTo(405);
    assertThat(post("/admin/pause").statusCode()).isEqualTo(200);
    assertThat(server.stats().paused()).isTrue();
    assertThat(get("/admin/stats").body()).contains("\"paused\":true");
    CompletableFuture<HttpResponse<String>> waiting = sendAsync();
    await(() -> server.stats().waiting() == 1);
    // A paused server answers nothing, however long it stays paused.
    assertThat(waiting).isNotDone();
    assertThat(post("/admin/resume").statusCode()).isEqualTo(200);
    assertThat(waiting.get(30, TimeUnit.SECONDS).body()).isEqualTo("OK");
    assertThat(server.stats().paused()).isFalse();
  }

  @Test
  void theBacklogStartsAtOnceOnResumeAndTheRestIsDropped() throws Exception {
    // A long base delay keeps the resumed requests in service, so the concurrency jump can be observed.
    server = LabServer.builder().backlog(3).latency(KneeLatency.of(Duration.ofSeconds(20), 100, 1, 1)).start();
    server.pause();
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(sendAsync());
    }
    await(() -> server.stats().waiting() == 5);
    assertThat(server.stats().concurrency()).isZero();
    server.resume();
    // Three start at once; two are dropped (closed without an answer). java.net.http may send a dropped
    // GET again by itself, like a client whose SYN was retried, so those may come back as new requests.
    assertThat(server.stats().dropped()).isEqualTo(2);
    assertThat(server.stats().peakConcurrency()).isGreaterThanOrEqualTo(3);
    await(() -> server.stats().concurrency() >= 3);
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      call.cancel(true);
    }
  }

  @Test
  void holdsManyDelayedRequestsOnAFewThreads() throws Exception {
    // 1500 requests (client and server ends in this process), fewer under a low ulimit -n.
    long limit = FileDescriptors.limit().orElse(4096);
    int requests = (int) Math.min(1500, (limit - 2 * FileDescriptors.RESERVED) / 2);
    server = LabServer.builder().latency(KneeLatency.of(Duration.ofSeconds(60), 100_000, 1, 1)).start();
    int threadsBefore = Thread.activeCount();
    HttpClient many = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .executor(java.util.concurrent.Executors.newFixedThreadPool(2)).build();
    List<CompletableFuture<HttpResponse<Void>>> calls = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      calls.add(many.sendAsync(HttpRequest.newBuilder(server.apiUri()).timeout(Duration.ofSeconds(50)).build(),
          HttpResponse.BodyHandlers.discarding()));
    }
    await(() -> server.stats().concurrency() == requests);
    // The server added two threads (selector, ticker); the client a selector and its pool of two.
    assertThat(Thread.activeCount() - threadsBefore).isLessThan(20);
    assertThat(calls).noneMatch(CompletableFuture::isDone);
    server.close();
    server = null;
    for (CompletableFuture<HttpResponse<Void>> call : calls) {
      call.cancel(true);
    }
  }

  @Test
  void refusesBeyondMaxConnectionsWith503() throws Exception {
    server = LabServer.builder().maxConnections(1).latency(KneeLatency.of(Duration.ofSeconds(30), 10, 1, 1))
        .start();
    CompletableFuture<HttpResponse<String>> held = sendAsync();
    await(() -> server.stats().concurrency() == 1);
    HttpResponse<String> refused = get("/api");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(server.stats().refused()).isEqualTo(1);
    held.cancel(true);
  }

  /**
   * A slow tail: of 40 requests sent at once, each one the seeded draw makes slow takes at least the slow
   * latency (a wait the server honours, so a lower bound only); the count comes from replaying the draws.
   */
  @Test
  void aSlowTailMakesTheDrawnShareOfRequestsTakeTheSlowLatency() throws Exception {
    server = LabServer.builder().latency(KneeLatency.of(Duration.ofMillis(20), 1000, 1.05, 15))
        .slowTail(0.25, Duration.ofMillis(600)).seed(5).start();
    java.util.SplittableRandom draws = new java.util.SplittableRandom(5);
    int slow = 0;
    for (int i = 0; i < 40; i++) {
      slow += draws.nextDouble() < 0.25 ? 1 : 0;
    }
    assertThat(slow).isBetween(1, 39);
    List<CompletableFuture<Long>> answers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      long start = System.nanoTime();
      answers.add(sendAsync().thenApply(response -> {
        assertThat(response.statusCode()).isEqualTo(200);
        return System.nanoTime() - start;
      }));
    }
    long atLeastSlow = 0;
    for (CompletableFuture<Long> answer : answers) {
      atLeastSlow += answer.get(30, TimeUnit.SECONDS) >= Duration.ofMillis(600).toNanos() ? 1 : 0;
    }
    assertThat(atLeastSlow).isGreaterThanOrEqualTo(slow);
    assertThat(server.slowFraction()).isEqualTo(0.25);
    assertThat(server.slowLatency()).isEqualTo(Duration.ofMillis(600));
  }

  @Test
  void aSlowTailIsValidated() {
    assertThatThrownBy(() -> LabServer.builder().slowTail(1, Duration.ofMillis(400)))
        .hasMessage("slowFraction must be from 0 to 1 (1 excluded), was 1.0");
    assertThatThrownBy(() -> LabServer.builder().slowTail(-0.1, Duration.ofMillis(400)))
        .hasMessage("slowFraction must be from 0 to 1 (1 excluded), was -0.1");
    assertThatThrownBy(() -> LabServer.builder().slowTail(0.1, null))
        .hasMessage("slowLatency must not be null with a slow fraction");
    assertThatThrownBy(() -> LabServer.builder().latency(KneeLatency.of(Duration.ofMillis(100), 30, 1.05, 15))
        .slowTail(0.1, Duration.ofMillis(100)).start())
        .hasMessage("slowLatency must be above the base latency 100ms, was 100ms");
  }

  @Test
  void answers429BeyondMaxConnectionsWhenAskedToAndKeepsTheConnection() throws Exception {
    server = LabServer.builder().maxConnections(1).rejectStatus(429)
        .latency(KneeLatency.of(Duration.ofSeconds(30), 10, 1, 1)).start();
    assertThat(server.rejectStatus()).isEqualTo(429);
    CompletableFuture<HttpResponse<String>> held = sendAsync();
    await(() -> server.stats().concurrency() == 1);
    HttpResponse<String> throttled = get("/api");
    assertThat(throttled.statusCode()).isEqualTo(429);
    assertThat(throttled.headers().firstValue("Connection")).isNotEqualTo(java.util.Optional.of("close"));
    assertThat(get("/api").statusCode()).isEqualTo(429);
    assertThat(server.stats().refused()).isEqualTo(2);
    held.cancel(true);
    assertThatThrownBy(() -> LabServer.builder().rejectStatus(500))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("rejectStatus must be 503 or 429, was 500");
  }

  @Test
  void statsRoundTripThroughTheRemoteProbe() throws Exception {
    server = LabServer.builder().start();
    get("/api");
    LabServer.Stats stats = ServerProbe.remote(uri("/admin/stats"), Duration.ofSeconds(5)).read();
    assertThat(stats).isNotNull();
    assertThat(stats.answered()).isEqualTo(1);
    assertThat(stats.lastDelay()).isEqualTo(Duration.ofMillis(100));
    assertThat(stats.paused()).isFalse();
    server.close();
    assertThat(ServerProbe.remote(uri("/admin/stats"), Duration.ofMillis(500)).read()).isNull();
    server = null;
  }

  @Test
  void durationsPrintAsGoDoes() {
    assertThat(LabServer.formatDuration(0)).isEqualTo("0");
    assertThat(LabServer.formatDuration(100_000_000L)).isEqualTo("100ms");
    assertThat(LabServer.formatDuration(2_671_444_385L)).isEqualTo("2.671s");
    assertThat(LabServer.formatDuration(128_580_906_589L)).isEqualTo("2m8.581s");
    assertThat(LabServer.formatDuration(3_723_000_000_000L)).isEqualTo("1h2m3s");
    assertThat(LabServer.formatDuration(Long.MAX_VALUE)).isEqualTo("unbounded");
  }
}
