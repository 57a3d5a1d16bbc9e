package dev.backoff.spring.web;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response whose body's first bytes were read ahead (at most the limit): its body gives them, then the
 * rest from the connection. Closing it closes the original response.
 */
final class ReadAheadResponse extends ForwardingResponse {
  private final byte[] head;
  private final boolean complete; // the whole body is in head
  private InputStream body;

  private ReadAheadResponse(ClientHttpResponse response, byte[] head, boolean complete) {
    super(response);
    this.head = head;
    this.complete = complete;
  }

  /**
   * Reads at most {@code limit} bytes of the body ahead. If reading fails the response is closed and the
   * failure thrown (a connection reset mid-body fails the attempt).
   */
  static ReadAheadResponse readAhead(ClientHttpResponse response, int limit) throws IOException {
    try {
      InputStream in = response.getBody();
      byte[] buffer = new byte[Math.min(limit, 8192)];
      int length = 0;
      boolean ended = false;
      while (length < limit) {
        if (length == buffer.length) {
          buffer = Arrays.copyOf(buffer, (int) Math.min(limit, 2L * buffer.length));
        }
        int read = in.read(buffer, length, buffer.length - length);
        if (read < 0) {
          ended = true;
          break;
        }
        length += read;
      }
      return new ReadAheadResponse(response, Arrays.copyOf(buffer, length), ended);
    } catch (IOException | RuntimeException e) {
      try {
        release(response);
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /** How many bytes were read ahead. */
  int readAhead() {
    return head.length;
  }

  /** Whether the whole body was read ahead. */
  boolean complete() {
    return complete;
  }

  @Override
  public synchronized InputStream getBody() throws IOException {
    if (body == null) {
      InputStream start = new ByteArrayInputStream(head);
      body = complete ? start : new SequenceInputStream(start, response.getBody());
    }
    return body;
  }

  /**
   * Releases a response that will not be used: when the body went past the read-ahead, its stream is
   * closed first, so that the client does not drain the rest (Spring's JDK and URL-connection responses
   * read a body to its end on close to reuse the connection); then the response is closed.
   */
  void abandon() {
    if (complete) {
      response.close();
    } else {
      release(response);
    }
  }

  /** Closes the body's stream, then the response: the response's own close alone may drain the body. */
  private static void release(ClientHttpResponse response) {
    try {
      response.getBody().close();
    } catch (IOException | RuntimeException e) {
      // closing is all that is asked; the response's own close below still runs
    }
    response.close();
  }

  @Override
  public String toString() {
    return "ReadAheadResponse[" + head.length + " B read ahead" + (complete ? ", whole body" : "") + "]";
  }
}
