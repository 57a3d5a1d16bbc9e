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
   * Releases a response that is retried after (or whose judging failed), without waiting on the server: the
   * bytes of its body that have arrived already are read and dropped, up to {@code limit}; if that is the
   * whole body (its declared length reached), its connection goes back to the pool, otherwise it is closed
   * at once. A read never blocks here, so a body that trickles or stalls costs the call no time: the engine
   * decided the retry's wait knowing the deadline, and that wait is all that passes before the next attempt.
   * Never throws: releasing is best effort.
   */
  static void discard(ClassicHttpResponse response, ExecRuntime runtime, int limit) {
    HttpEntity entity = response.getEntity();
    boolean ended = entity == null;
    if (!ended) {
      try {
        InputStream in = entity.getContent();
        ended = in == null || skipArrived(in, entity.getContentLength(), limit);
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

  /**
   * Reads and drops what has arrived of a body ({@code available()}: bytes the client holds, no read from
   * the socket), up to {@code limit}; true if that is the whole body: its declared {@code contentLength}
   * was reached, where the stream's end is known without reading on. A body of unknown length (chunked, or
   * decompressed) is never proven to have ended, so its connection is closed.
   */
  static boolean skipArrived(InputStream in, long contentLength, int limit) throws IOException {
    byte[] chunk = new byte[Math.min(CHUNK, limit + 1)];
    long total = 0;
    while (total <= limit && total != contentLength) {
      int ready = in.available();
      if (ready <= 0) {
        break;
      }
      int n = in.read(chunk, 0, (int) Math.min(Math.min(chunk.length, ready), limit + 1L - total));
      if (n < 0) {
        return true;
      }
      total += n;
    }
    return total == contentLength && in.read() < 0; // at its declared length, read() answers at once
  }
}
