package dev.backoff.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ForkedJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockResponseBody;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okio.BufferedSink;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * MockWebServer answers 503 with a 100 MB body, streamed (never held whole on either side); the client
 * runs in a forked JVM with a 32 MB heap, so buffering any response whole (or a third of it) fails the
 * call with an OutOfMemoryError. The caller that streams the last body checks every byte in order.
 */
@Tag("slow")
class HugeBodyTest {
  static final long BODY = 100L * 1024 * 1024;

  /** The byte at {@code offset} of every body: a pattern that is not all zeros. */
  static byte expected(long offset) {
    return (byte) (offset % 251);
  }

  @ParameterizedTest(name = "{0}, {1}, {2} attempts, {3}")
  @CsvSource({
      "interceptor, close, 3, budget",
      "interceptor, stream, 3, budget",
      "interceptor, stream, 3, refusing-budget",
      "enqueue, close, 3, budget",
      "enqueue, stream, 3, budget",
      "enqueue, stream, 3, refusing-budget"})
  void aHugeRetryableBodyIsNeverBufferedWhole(String way, String reading, int attempts, String budget)
      throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return new MockResponse.Builder().code(503).body(new PatternBody()).build();
        }
      });
      server.start();

      ForkedJvm.Result result =
          fork(way, reading, Integer.toString(attempts), budget, server.url("/huge").toString());

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("status=503");
      if (reading.equals("stream")) {
        assertThat(result.output()).contains("bytes=" + BODY); // and every byte was checked in order
      }
      long peakHeap = Long.parseLong(result.output().replaceAll("(?s).*peakHeapBytes=(\\d+).*", "$1"));
      assertThat(peakHeap).as("peak heap, bytes").isLessThan(BODY / 4);
      int expectedAttempts = budget.equals("refusing-budget") ? 1 : attempts;
      assertThat(server.getRequestCount()).isEqualTo(expectedAttempts);
      System.out.println("HugeBodyTest okhttp " + way + "/" + reading + "/" + attempts + "/" + budget + ": "
          + result.output().strip());
    }
  }

  /** 200 MB of the pattern, written in 64 KiB pieces as the client reads them. */
  static final class PatternBody implements MockResponseBody {
    @Override
    public long getContentLength() {
      return BODY;
    }

    @Override
    public void writeTo(BufferedSink sink) throws IOException {
      byte[] piece = new byte[64 * 1024];
      for (long offset = 0; offset < BODY; offset += piece.length) {
        int n = (int) Math.min(piece.length, BODY - offset);
        for (int i = 0; i < n; i++) {
          piece[i] = expected(offset + i);
        }
        sink.write(piece, 0, n);
      }
      sink.flush();
    }
  }

  static ForkedJvm.Result fork(String... args) throws InterruptedException {
    return ForkedJvm.run(HugeBodyClientMain.class, List.of("-Xmx32m"), Duration.ofSeconds(120), args);
  }
}
