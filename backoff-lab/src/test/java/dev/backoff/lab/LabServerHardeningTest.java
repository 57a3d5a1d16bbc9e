package dev.backoff.lab;

import dev.backoff.sim.KneeLatency;
import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.FakeClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server against misbehaving clients, over real loopback sockets: a client that never finishes its
 * headers, a burst of requests whose clients hang up, and cross-site POSTs from a browser. Every wait is
 * bounded only as a guard against hanging; no assertion depends on how fast the machine is.
 */
@Timeout(120)
class LabServerHardeningTest {
  private static final Duration GUARD = Duration.ofSeconds(20);
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private LabServer server;

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable closeable : toClose) {
      closeable.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(uri(path)).timeout(GUARD).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(GUARD);
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    boolean form = headers.length > 0 && String.join(" ", headers).contains("Content-Type");
    request.POST(form ? HttpRequest.BodyPublishers.ofString("paused=1") : HttpRequest.BodyPublishers.noBody());
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Sends raw bytes on a fresh connection and returns the status line of the answer. */
  private String raw(String request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
      socket.setSoTimeout((int) GUARD.toMillis());
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      byte[] answer = socket.getInputStream().readNBytes(12);
      return new String(answer, StandardCharsets.US_ASCII);
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + GUARD.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within the guard of " + GUARD + ": " + what);
      }
      Thread.sleep(10);
    }
  }

  private static long openDescriptors() {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- one slow client must not freeze the server ----

  @Test
  void aClientThatNeverFinishesItsHeadersDoesNotStopOthers() throws Exception {
    server = LabServer.builder().start();
    Socket slowHeaders = new Socket("127.0.0.1", server.port());
    toClose.add(slowHeaders);
    slowHeaders.getOutputStream().write("GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
    Socket slowRequestLine = new Socket("127.0.0.1", server.port());
    toClose.add(slowRequestLine);
    slowRequestLine.getOutputStream().write("GE".getBytes(StandardCharsets.US_ASCII));
    Thread.sleep(200); // give the server the partial bytes first (not an assertion on time)

    HttpResponse<String> stats = get("/admin/stats");
    assertThat(stats.statusCode()).isEqualTo(200);
    assertThat(stats.body()).contains("\"concurrency\":0");
    HttpResponse<String> api = get("/api");
    assertThat(api.statusCode()).isEqualTo(200);
    assertThat(api.body()).isEqualTo("OK");
    assertThat(post("/admin/pause").statusCode()).isEqualTo(200);
    assertThat(post("/admin/resume").statusCode()).isEqualTo(200);
  }

  @Test
  void aConnectionStuckInItsHeadersIsClosedAfterTheHeaderTimeout() throws Exception {
    server = LabServer.builder().headerTimeout(Duration.ofMillis(300)).start();
    try (Socket slow = new Socket("127.0.0.1", server.port())) {
      slow.setSoTimeout((int) GUARD.toMillis());
      slow.getOutputStream().write("GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
      InputStream in = slow.getInputStream();
      // The server closes it (an answer of 408 first is allowed), well before the guard.
      byte[] rest = in.readAllBytes();
      assertThat(new String(rest, StandardCharsets.US_ASCII)).satisfiesAnyOf(
          text -> assertThat(text).isEmpty(), text -> assertThat(text).startsWith("HTTP/1.1 408"));
    } catch (SocketException reset) {
      // A reset is a close too.
    }
    assertThat(get("/api").statusCode()).isEqualTo(200);
  }

  @Test
  void oversizedHeadersAreRefusedAndMalformedRequestLinesToo() throws Exception {
    server = LabServer.builder().start();
    assertThat(raw("GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "x".repeat(40_000) + "\r\n\r\n"))
        .isEqualTo("HTTP/1.1 431");
    assertThat(raw("NONSENSE\r\n\r\n")).isEqualTo("HTTP/1.1 400");
    assertThat(raw("GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")).isEqualTo("HTTP/1.1 404");
    assertThat(get("/api").body()).isEqualTo("OK");
  }

  // ---- a burst of abandoned requests ----

  @Test
  void aBurstOfClosedConnectionsReleasesItsDescriptorsAndTheServerComesBack() throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")),
        "counting descriptors needs /proc/self/fd (Linux); skipped on this platform");
    long limit = FileDescriptors.limit().orElse(4096);
    int burst = (int) Math.min(2000, (limit - 2 * FileDescriptors.RESERVED) / 2);
    FakeClock clock = new FakeClock();
    // The seed's model: D(2000) is about a minute, so the model lets the burst finish in fake time.
    server = LabServer.builder().clock(clock).maxConnections(burst).start();
    get("/admin/stats"); // the probe's own client connection, opened before counting
    long before = openDescriptors();

    List<SocketChannel> clients = new ArrayList<>(burst);
    byte[] request = "GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < burst; i++) {
      SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
      channel.write(ByteBuffer.wrap(request));
      clients.add(channel);
    }
    await("all " + burst + " requests in service", () -> server.stats().concurrency() == burst);
    for (SocketChannel channel : clients) {
      channel.close();
    }
    // Every descriptor of the burst is released although its work goes on (abandoned work keeps counting).
    await("descriptors back to " + before, () -> openDescriptors() <= before + 8);
    assertThat(server.stats().concurrency()).isEqualTo(burst);
    assertThat(server.stats().abandoned()).isEqualTo(burst);

    // The cap is not exhausted by requests nobody waits for: a newcomer takes the place of the oldest one.
    CompletableFuture<HttpResponse<String>> newcomer = client.sendAsync(
        HttpRequest.newBuilder(server.apiUri()).timeout(Duration.ofMinutes(5)).build(),
        HttpResponse.BodyHandlers.ofString());
    await("the newcomer held", () -> server.stats().forgotten() == 1);
    assertThat(server.stats().refused()).isZero();
    assertThat(server.stats().concurrency()).isEqualTo(burst);
    assertThat(newcomer).isNotDone();

    // Once the model's delays have elapsed, everything has finished and the server serves again.
    clock.advance(Duration.ofMinutes(10));
    assertThat(newcomer.get(GUARD.toSeconds(), TimeUnit.SECONDS).body()).isEqualTo("OK");
    await("concurrency back to 0", () -> server.stats().concurrency() == 0);
    assertThat(server.stats().abandoned()).isZero();
    assertThat(server.stats().answered()).isEqualTo(burst);
    CompletableFuture<HttpResponse<String>> later = client.sendAsync(
        HttpRequest.newBuilder(server.apiUri()).timeout(GUARD).build(), HttpResponse.BodyHandlers.ofString());
    await("a new request in service", () -> server.stats().concurrency() == 1);
    clock.advance(Duration.ofMillis(200));
    assertThat(later.get(GUARD.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    await("descriptors still at " + before, () -> openDescriptors() <= before + 8);
  }

  @Test
  @Tag("slow")
  void aHangUpRacingItsAnswerLeavesNothingBehind() throws Exception {
    FakeClock clock = new FakeClock();
    server = LabServer.builder().clock(clock).start();
    boolean proc = Files.isDirectory(Path.of("/proc/self/fd"));
    long before = proc ? openDescriptors() : 0;
    byte[] request = "GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    for (int i = 1; i <= 1000; i++) {
      try (SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()))) {
        channel.write(ByteBuffer.wrap(request));
        awaitQuickly("request " + i + " in service", () -> server.stats().concurrency() == 1);
        clock.advance(Duration.ofMillis(110)); // past its 100 ms check slot: due at the ticker's next run, which races the close below
      }
      int iteration = i;
      awaitQuickly("request " + i + " finished", () -> {
        LabServer.Stats stats = server.stats();
        return stats.concurrency() == 0 && stats.answered() == iteration;
      });
      LabServer.Stats stats = server.stats();
      assertThat(stats.abandoned()).as("iteration %d", i).isZero();
      assertThat(stats.forgotten()).as("iteration %d", i).isZero();
      assertThat(stats.refused()).as("iteration %d", i).isZero();
    }
    if (proc) {
      await("descriptors back to " + before, () -> openDescriptors() <= before + 8);
    }
  }

  private static void awaitQuickly(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + GUARD.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within the guard of " + GUARD + ": " + what);
      }
      Thread.sleep(1);
    }
  }

  @Test
  void resetForgetsEveryRequestWhenTheModelWouldNeverFinishThem() throws Exception {
    // D(3) is far beyond any run: only a reset brings this server back.
    server = LabServer.builder().latency(KneeLatency.of(Duration.ofMillis(100), 2, 1e9, 0.001)).start();
    // Raw sockets: java.net.http would send a GET again by itself once its connection closes.
    List<Socket> stuck = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Socket socket = new Socket("127.0.0.1", server.port());
      toClose.add(socket);
      socket.setSoTimeout((int) GUARD.toMillis());
      socket.getOutputStream().write("GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      stuck.add(socket);
    }
    await("3 in service", () -> server.stats().concurrency() == 3);
    assertThat(server.latency().delay(3)).isGreaterThan(Duration.ofDays(365));
    assertThat(post("/admin/reset").statusCode()).isEqualTo(200);
    assertThat(server.stats().concurrency()).isZero();
    assertThat(server.stats().forgotten()).isEqualTo(3);
    for (Socket socket : stuck) {
      assertThat(socket.getInputStream().read()).isEqualTo(-1); // closed without an answer
    }
    assertThat(get("/api").body()).isEqualTo("OK");
  }

  // ---- admin endpoints refuse what a web page could send ----

  @Test
  void aCrossSiteFormPostCannotPauseTheServer() throws Exception {
    server = LabServer.builder().start();
    assertThat(post("/admin/pause", "Origin", "http://evil.example",
        "Content-Type", "application/x-www-form-urlencoded").statusCode()).isEqualTo(403);
    assertThat(post("/admin/pause", "Origin", "http://evil.example").statusCode()).isEqualTo(403);
    assertThat(post("/admin/pause", "Content-Type", "text/plain").statusCode()).isEqualTo(403);
    assertThat(post("/admin/pause", "Content-Type", "multipart/form-data; boundary=x").statusCode()).isEqualTo(403);
    assertThat(post("/admin/pause", "Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
        .statusCode()).isEqualTo(403);
    assertThat(post("/admin/reset", "Origin", "null").statusCode()).isEqualTo(403);
    // A page on another host name resolving to 127.0.0.1 (DNS rebinding) is refused by its Host.
    assertThat(raw("POST /admin/pause HTTP/1.1\r\nHost: evil.example:" + server.port()
        + "\r\nContent-Length: 0\r\n\r\n")).isEqualTo("HTTP/1.1 403");
    assertThat(server.stats().paused()).isFalse();
    assertThat(get("/admin/stats").body()).contains("\"paused\":false");
    HttpResponse<String> refused = post("/admin/pause", "Origin", "http://evil.example");
    assertThat(refused.body()).contains("Origin").contains("http://evil.example");
  }

  @Test
  void theCommandLineAndSameOriginPathsStillWork() throws Exception {
    server = LabServer.builder().start();
    // What `curl -X POST http://127.0.0.1:PORT/admin/pause` sends.
    assertThat(raw("POST /admin/pause HTTP/1.1\r\nHost: 127.0.0.1:" + server.port()
        + "\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n")).isEqualTo("HTTP/1.1 200");
    assertThat(server.stats().paused()).isTrue();
    assertThat(post("/admin/resume", "Origin", "http://127.0.0.1:" + server.port()).statusCode()).isEqualTo(200);
    assertThat(server.stats().paused()).isFalse();
    assertThat(post("/admin/pause", "Origin", "http://localhost:" + server.port(),
        "Content-Type", "application/json").statusCode()).isEqualTo(200);
    assertThat(raw("POST /admin/resume HTTP/1.1\r\nHost: localhost:" + server.port()
        + "\r\nContent-Length: 0\r\n\r\n")).isEqualTo("HTTP/1.1 200");
    assertThat(server.stats().paused()).isFalse();
  }

  // ---- HTTP limits (Netty's codec, with the lab's statuses) ----

  /** Reads one HTTP/1.1 answer with a Content-Length: "STATUS body". */
  private static String readAnswer(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head);
      }
      head.append((char) b);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    String status = head.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3);
    return status + " " + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  @Test
  void bodiesAreCappedWith413AndChunkedOnesWithinTheCapAreServed() throws Exception {
    server = LabServer.builder().start();
    assertThat(raw("POST /admin/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: 70000\r\n\r\n{")).isEqualTo("HTTP/1.1 413");
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout((int) GUARD.toMillis());
      socket.getOutputStream().write(("POST /admin/reset HTTP/1.1\r\nHost: 127.0.0.1:" + server.port() + "\r\n"
          + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(readAnswer(socket.getInputStream())).isEqualTo("200 reset\n");
    }
  }

  @Test
  void aRequestLineLongerThanTheCapIs414() throws Exception {
    server = LabServer.builder().start();
    assertThat(raw("GET /api?" + "x".repeat(20_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        .isEqualTo("HTTP/1.1 414");
    assertThat(raw("GET api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")).isEqualTo("HTTP/1.1 400");
    assertThat(get("/api").body()).isEqualTo("OK");
  }

  @Test
  void pipelinedRequestsWaitForTheHeldOneAndAreAnsweredInOrder() throws Exception {
    FakeClock clock = new FakeClock();
    server = LabServer.builder().clock(clock).start();
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout((int) GUARD.toMillis());
      socket.getOutputStream().write(("GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
          + "GET /admin/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
          + "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      await("the first request held", () -> server.stats().concurrency() == 1);
      clock.advance(Duration.ofMillis(200));
      InputStream in = socket.getInputStream();
      assertThat(readAnswer(in)).isEqualTo("200 OK");
      // Served only once /api was answered: the stats see nothing in service.
      assertThat(readAnswer(in)).startsWith("200 {\"concurrency\":0,").contains("\"answered\":1,");
      assertThat(readAnswer(in)).isEqualTo("404 no such endpoint: /nowhere\n");
    }
  }

  @Test
  void anIdleKeepAliveConnectionIsClosedButAHeldOneIsNot() throws Exception {
    FakeClock clock = new FakeClock();
    server = LabServer.builder().clock(clock).idleTimeout(Duration.ofMillis(200)).start();
    try (Socket held = new Socket("127.0.0.1", server.port());
        Socket idle = new Socket("127.0.0.1", server.port())) {
      held.setSoTimeout((int) GUARD.toMillis());
      idle.setSoTimeout((int) GUARD.toMillis());
      held.getOutputStream().write("GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      await("held", () -> server.stats().concurrency() == 1);
      idle.getOutputStream().write("GET /admin/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(readAnswer(idle.getInputStream())).startsWith("200 ");
      // Kept alive after its answer, then closed once idle for the timeout.
      assertThat(idle.getInputStream().read()).isEqualTo(-1);
      // The held request's connection, opened before the idle one, is still there for its answer.
      clock.advance(Duration.ofMillis(200));
      assertThat(readAnswer(held.getInputStream())).isEqualTo("200 OK");
      assertThat(server.stats().abandoned()).isZero();
    }
  }
}
