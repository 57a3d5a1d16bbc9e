package dev.backoff.httpclient5;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hc.client5.http.classic.ExecRuntime;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;

/** Releasing classic responses that nobody will read, within a bound. Stateless. */
final class Bodies {
  private static final int CHUNK = 8 * 1024;

  private Bodies() {}

  /**
   * Releases a response that is retried after (or whose judging failed): its body is read and dropped up to
   * {@code limit} bytes, so that a short body leaves its connection for the next attempt; a longer body is
   * not read on: the connection is closed. Never throws: releasing is best effort.
   */
  static void discard(ClassicHttpResponse response, ExecRuntime runtime, int limit) {
    HttpEntity entity = response.getEntity();
    boolean ended = entity == null;
    if (!ended) {
      try {
        InputStream in = entity.getContent();
        ended = in == null || skipToEnd(in, limit);
        if (ended && in != null) {
          in.close(); // at its end: the connection goes back to the pool
        }
      } catch (IOException | RuntimeException e) {
        ended = false; // a body cut short: the connection is of no further use
      }
    }
    if (!ended) {
      runtime.discardEndpoint(); // closes the connection at once, without reading the rest
    }
    try {
      response.close();
    } catch (IOException | RuntimeException e) {
      // The connection is closed already (a long body) or the body is spent: nothing left to release.
    }
  }

  /** Reads and drops up to {@code limit} bytes; true if the stream ended within them. */
  static boolean skipToEnd(InputStream in, int limit) throws IOException {
    byte[] chunk = new byte[Math.min(CHUNK, limit + 1)];
    long total = 0;
    while (total <= limit) {
      int n = in.read(chunk, 0, (int) Math.min(chunk.length, limit + 1L - total));
      if (n < 0) {
        return true;
      }
      total += n;
    }
    return false;
  }
}
