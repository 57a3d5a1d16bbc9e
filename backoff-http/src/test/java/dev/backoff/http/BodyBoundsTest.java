package dev.backoff.http;

import static dev.backoff.testing.RecordingListener.Kind.EXHAUSTED;
import static dev.backoff.testing.RecordingListener.Kind.RETRY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedHttpServer;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** How much of a retryable response's body is read, and what the caller gets. */
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BodyBoundsTest {
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final int BODY = 300_000;

  final FakeClock clock = new FakeClock();
  final RecordingSleeper sleeper = new RecordingSleeper(clock);
  final RecordingListener<HttpResponse<?>> listener = new RecordingListener<>();

  RetryPolicy.Builder<HttpResponse<?>> policy(int attempts) {
    return RetryPolicy.<HttpResponse<?>>builder().maxAttempts(attempts).backoff(Backoff.fixed(Duration.ZERO))
        .clock(clock).sleeper(sleeper).listener(listener);
  }

  static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = ScriptedHttpServer.patternByte(i);
    }
    return bytes;
  }

  @Test
  void aRetriedBodyIsReadOnlyToTheLimitThenItsConnectionClosed() throws Exception {
    long body = 64L << 20; // more than any socket buffers hold, so what the client read shows
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503, body))) {
      HttpResponse<InputStream> response = RetryingHttpClient.builder(HTTP).policy(policy(2).build())
          .readAheadLimit(1000).build()
          .send(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.ofInputStream());

      long read;
      try (InputStream in = response.body()) {
        read = in.transferTo(java.io.OutputStream.nullOutputStream());
      }
      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(read).isEqualTo(body);
      assertThat(HugeBodyTest.awaitConnections(server, 2)).hasSize(2).filteredOn(sent -> sent < body).hasSize(1);
      assertThat(listener.kinds()).containsExactly(RETRY, EXHAUSTED);
    }
  }

  @Test
  void aResponseNotRetriedAfterAllGetsTheBytesReadAheadThenTheRest(@TempDir Path dir) throws Exception {
    byte[] expected = pattern(BODY);
    check(BodyHandlers.ofByteArray(), body -> body, expected);
    check(BodyHandlers.ofInputStream(), in -> {
      try (in) {
        return in.readAllBytes();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, expected);
    Path file = dir.resolve("body");
    check(BodyHandlers.ofFile(file), path -> { // requests more from within onNext: the drain loop's case
      try {
        return Files.readAllBytes(path);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, expected);
    check(BodyHandlers.ofString(java.nio.charset.StandardCharsets.ISO_8859_1),
        text -> text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), expected);
    check(BodyHandlers.discarding(), nothing -> expected, expected);
  }

  private <T> void check(BodyHandler<T> handler, Function<T, byte[]> bytes, byte[] expected) throws Exception {
    for (int limit : new int[] {0, 1, 1000, BODY - 1, BODY, BODY + 1}) {
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503, BODY))) {
        RetryingHttpClient http = RetryingHttpClient.builder(HTTP)
            .policy(policy(3).budget(ExchangeTimeoutTest.refusing()).build()).readAheadLimit(limit).build();
        HttpResponse<T> response = http.send(HttpRequest.newBuilder(server.uri()).build(), handler);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(bytes.apply(response.body())).as("limit %d, %s", limit, handler).isEqualTo(expected);
        assertThat(listener.last().stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
        HttpResponse<T> async = http.sendAsync(HttpRequest.newBuilder(server.uri()).build(), handler).join();
        assertThat(bytes.apply(async.body())).as("async, limit %d, %s", limit, handler).isEqualTo(expected);
      }
    }
  }

  @Test
  void readAheadLimitIsValidated() {
    RetryingHttpClient.Builder builder = RetryingHttpClient.builder(HTTP);
    assertThatThrownBy(() -> builder.readAheadLimit(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("readAheadLimit must be between 0 and 1073741824 bytes, was -1");
    assertThatThrownBy(() -> builder.readAheadLimit((1 << 30) + 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("readAheadLimit must be between 0 and 1073741824 bytes, was 1073741825");
    builder.readAheadLimit(0).readAheadLimit(1 << 30);
    assertThat(RetryingHttpClient.DEFAULT_READ_AHEAD_LIMIT).isEqualTo(64 * 1024);
  }
}
