package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The scripted server against the JDK's own HTTP client, on loopback. */
@Timeout(60)
class ScriptedHttpServerTest {
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(uri).build(), BodyHandlers.ofString());
  }

  @Test
  void answersInTurnTheLastAnswerRepeatingAndRecordsEveryRequest() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        Response.of(503, "busy {n}").header("Retry-After", "2").header("X-Twice", "a").header("X-Twice", "b"),
        Response.of(200, "ok {n}"))) {
      HttpResponse<String> first = get(server.uri("/api?x=1"));
      assertThat(first.statusCode()).isEqualTo(503);
      assertThat(first.body()).isEqualTo("busy 1");
      assertThat(first.headers().firstValue("retry-after")).hasValue("2");
      assertThat(first.headers().allValues("X-Twice")).containsExactly("a", "b");
      assertThat(get(server.uri("/")).body()).isEqualTo("ok 2");
      assertThat(get(server.uri("/")).body()).isEqualTo("ok 3");

      assertThat(server.requestCount()).isEqualTo(3);
      RecordedRequest request = server.requests().get(0);
      assertThat(request.number()).isEqualTo(1);
      assertThat(request.method()).isEqualTo("GET");
      assertThat(request.target()).isEqualTo("/api?x=1");
      assertThat(request.header("HOST")).isEqualTo("127.0.0.1:" + server.port());
      assertThat(request.headerValues("no-such-header")).isEmpty();
      assertThat(request.body()).isEmpty();
      assertThat(request).hasToString("#1 GET /api?x=1 (0 body bytes)");
      assertThat(server.requests()).extracting(RecordedRequest::remotePort).as("one kept-alive connection")
          .containsOnly(request.remotePort());
      assertThat(server.connections()).isEqualTo(1);
      assertThat(server.bodyBytesSent()).containsExactly(6L, 4L, 4L);
    }
  }

  @Test
  void recordsBodiesSentWithALengthOrChunkedAndAnswersExpectContinue() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(201, "created"))) {
      client.send(HttpRequest.newBuilder(server.uri("/a")).POST(BodyPublishers.ofString("é=1")).build(),
          BodyHandlers.discarding());
      byte[] big = "0123456789".repeat(10_000).getBytes(StandardCharsets.US_ASCII);
      client.send(HttpRequest.newBuilder(server.uri("/b"))
          .PUT(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))).build(), // chunked
          BodyHandlers.discarding());
      HttpResponse<String> continued = client.send(HttpRequest.newBuilder(server.uri("/c")).expectContinue(true)
          .POST(BodyPublishers.ofString("after 100")).build(), BodyHandlers.ofString());

      assertThat(continued.body()).isEqualTo("created");
      assertThat(server.requests()).extracting(RecordedRequest::method).containsExactly("POST", "PUT", "POST");
      assertThat(server.requests().get(0).body()).isEqualTo("é=1");
      assertThat(server.requests().get(1).header("Transfer-Encoding")).isEqualTo("chunked");
      assertThat(server.requests().get(1).bodyBytes()).isEqualTo(big);
      assertThat(server.requests().get(2).body()).isEqualTo("after 100");
    }
  }

  @Test
  void aDefaultClientAskingForHttp2GetsHttp11() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "ok"))) {
      HttpResponse<String> response = HttpClient.newHttpClient()
          .send(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.ofString());
      assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(response.body()).isEqualTo("ok");
    }
  }

  @Test
  void aGeneratedBodyHasThePatternAndTheServerCountsWhatTheClientTook() throws Exception {
    long length = 1_000_003;
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(500, length))) {
      HttpResponse<byte[]> whole = client.send(HttpRequest.newBuilder(server.uri()).build(),
          BodyHandlers.ofByteArray());
      assertThat(whole.body()).hasSize((int) length);
      for (int i = 0; i < whole.body().length; i++) {
        if (whole.body()[i] != ScriptedHttpServer.patternByte(i)) {
          throw new AssertionError("byte " + i + " was " + whole.body()[i]);
        }
      }
      assertThat(ScriptedHttpServer.patternByte(251)).isZero();
      assertThat(ScriptedHttpServer.patternByte(252)).isEqualTo((byte) 1);
      awaitResponsesEnded(server, 1);
      assertThat(server.bodyBytesSent()).containsExactly(length);
    }
    long huge = 400_000_000;
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(500, huge))) {
      HttpResponse<InputStream> prefix = client.send(HttpRequest.newBuilder(server.uri()).build(),
          BodyHandlers.ofInputStream());
      try (InputStream in = prefix.body()) {
        assertThat(in.readNBytes(10)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
      } // closed after 10 bytes: the server's write fails once the socket buffers are full
      awaitResponsesEnded(server, 1);
      assertThat(server.bodyBytesSent()).singleElement().satisfies(sent -> assertThat(sent).isLessThan(huge));
      assertThat(server.bodiesStarted()).isEqualTo(1);
    }
  }

  @Test
  void aTricklingBodyKeepsTheClientWaitingOnceItBegins() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503, 1 << 20)
        .trickle(Duration.ofMillis(10)))) {
      CompletableFuture<HttpResponse<String>> future = client.sendAsync(HttpRequest.newBuilder(server.uri()).build(),
          BodyHandlers.ofString());
      while (server.bodiesStarted() == 0) {
        Thread.sleep(1);
      }
      assertThat(future).isNotDone(); // a 1 MiB body at one byte per 10 ms takes hours
      future.cancel(true);
    }
  }

  @Test
  void aHangingOrLongDelayedAnswerTimesTheClientOut() throws Exception {
    // Each server has one answer, which repeats: a request the client gave up on before sending it cannot
    // shift the script.
    for (Response slow : new Response[] {Response.hang(), Response.of(200, "late").delay(Duration.ofHours(1))}) {
      try (ScriptedHttpServer server = new ScriptedHttpServer(slow)) {
        HttpRequest quick = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofMillis(200)).build();
        assertThat(catchThrowable(() -> client.send(quick, BodyHandlers.ofString()))).as("%s", slow)
            .isInstanceOf(HttpTimeoutException.class);
      } // close() wakes the waiting answer; the test's timeout catches a close that does not return
    }
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "soon").delay(Duration.ofMillis(20)))) {
      assertThat(get(server.uri()).body()).isEqualTo("soon");
    }
  }

  @Test
  void misbehavingAnswersFailTheClientsAttempt() throws Exception {
    // Each answer repeats: the JDK client may repeat a GET once by itself after a lost connection.
    for (Response bad : new Response[] {Response.disconnect(), Response.reset()}) {
      try (ScriptedHttpServer server = new ScriptedHttpServer(bad)) {
        assertThat(catchThrowable(() -> get(server.uri()))).as("%s", bad).isInstanceOf(IOException.class);
        assertThat(server.requestCount()).isBetween(1, 2);
        assertThat(server.bodyBytesSent()).isEmpty();
      }
    }
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "0123456789").resetAfter(4))) {
      assertThat(catchThrowable(() -> get(server.uri()))).isInstanceOf(IOException.class);
      awaitResponsesEnded(server, server.requestCount());
      assertThat(server.bodyBytesSent()).isNotEmpty().containsOnly(4L);
    }
  }

  @Test
  void closeConnectionSendsTheNextRequestToANewConnection() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "ok").closeConnection())) {
      HttpResponse<String> closing = get(server.uri());
      assertThat(closing.headers().firstValue("Connection")).hasValue("close");
      get(server.uri());
      assertThat(server.requests().get(0).remotePort()).isNotEqualTo(server.requests().get(1).remotePort());
      assertThat(server.connections()).isEqualTo(2);
    }
  }

  @Test
  void aTlsClientSeesAHandshakeFailure() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "ok"))) {
      URI https = URI.create("https://127.0.0.1:" + server.port() + "/");
      Throwable thrown = catchThrowable(() -> get(https));
      assertThat(thrown).isInstanceOf(IOException.class);
      boolean ssl = false;
      for (Throwable t = thrown; t != null; t = t.getCause()) {
        ssl |= t instanceof SSLException;
      }
      assertThat(ssl).as("an SSLException in %s", thrown).isTrue();
      assertThat(server.requestCount()).isZero();
      assertThat(server.connections()).isBetween(1, 2); // the JDK client may reconnect once by itself
    }
  }

  @Test
  void aHeadRequestGetsNoBody() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "body"))) {
      HttpResponse<String> head = client.send(HttpRequest.newBuilder(server.uri())
          .method("HEAD", BodyPublishers.noBody()).build(), BodyHandlers.ofString());
      assertThat(head.body()).isEmpty();
      assertThat(head.headers().firstValue("Content-Length")).hasValue("4");
      assertThat(get(server.uri()).body()).isEqualTo("body"); // the connection is still in step
    }
  }

  @Test
  void badScriptsAreRefusedNamingWhatWasWrong() {
    assertThatThrownBy(ScriptedHttpServer::new).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("script must have at least one response, had none");
    assertThatThrownBy(() -> new ScriptedHttpServer((Response) null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Response.of(99)).hasMessage("status must be from 100 to 999, was 99");
    assertThatThrownBy(() -> Response.of(200, null)).hasMessage("body must not be null");
    assertThatThrownBy(() -> Response.ofLength(200, -1)).hasMessage("bodyBytes must not be negative, was -1");
    assertThatThrownBy(() -> Response.of(200).header("X-Bad", "a\r\nInjected: yes"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no line breaks");
    assertThatThrownBy(() -> Response.of(200).header("", "v")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Response.of(200).delay(Duration.ofMillis(-1)))
        .hasMessage("delay must not be negative, was PT-0.001S");
    assertThatThrownBy(() -> Response.of(200).trickle(Duration.ofMillis(-1)))
        .hasMessage("pause must not be negative, was PT-0.001S");
    assertThatThrownBy(() -> Response.of(200, "abc").resetAfter(3))
        .hasMessage("bodyBytes must be from 0 to less than the body's 3 bytes, was 3");
    assertThatThrownBy(() -> Response.hang().header("X", "y")).isInstanceOf(IllegalStateException.class)
        .hasMessage("header needs a response with a status, not hang");
    assertThatThrownBy(() -> ScriptedHttpServer.patternByte(-1)).hasMessage("offset must not be negative, was -1");
    assertThat(Response.of(503, "busy").header("Retry-After", "1").delay(Duration.ofSeconds(2)))
        .hasToString("503 \"busy\" [Retry-After, 1] after PT2S");
  }

  @Test
  void uriNeedsAnAbsolutePath() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(204))) {
      assertThat(server.uri()).hasToString("http://127.0.0.1:" + server.port() + "/");
      assertThatThrownBy(() -> server.uri("api")).hasMessage("path must start with /, was api");
      assertThat(get(server.uri("/x")).statusCode()).isEqualTo(204);
    }
  }

  private static void awaitResponsesEnded(ScriptedHttpServer server, int count) throws InterruptedException {
    for (int i = 0; i < 3000 && server.bodyBytesSent().size() < count; i++) {
      Thread.sleep(10);
    }
  }
}
