package dev.backoff.spring.web;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.NanoClock;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response whose body may be read only until the call's deadline. A read once the deadline has passed
 * fails with a {@link SocketTimeoutException} (so a trickling body ends there), and at the deadline a
 * watchdog closes the body's stream, which ends a read blocked on a silent connection where the client
 * allows it (the JDK client's stream does; {@code HttpURLConnection}'s does not, see the module docs). The
 * watchdog stops when the body ends or the response is closed.
 *
 * <p>Thread-safe as far as the watchdog goes: it may close the stream while the caller's thread reads.
 */
final class DeadlineResponse extends ForwardingResponse {
  private final NanoClock clock;
  private final long deadline; // on the policy's clock
  private final Duration maxElapsed; // for messages
  private final Future<?> watchdog;
  private volatile boolean expired;
  private InputStream body; // guarded by this

  private DeadlineResponse(ClientHttpResponse response, NanoClock clock, long deadline, Duration maxElapsed) {
    super(response);
    this.clock = clock;
    this.deadline = deadline;
    this.maxElapsed = maxElapsed;
    this.watchdog = schedule(this, deadline - clock.nanoTime());
  }

  /**
   * {@code response}, its body bounded by {@code deadline} (nanoseconds on {@code clock}); the watchdog
   * counts the time left on real time.
   */
  static DeadlineResponse bound(ClientHttpResponse response, NanoClock clock, long deadline, Duration maxElapsed) {
    return new DeadlineResponse(response, clock, deadline, maxElapsed);
  }

  private static Future<?> schedule(DeadlineResponse response, long nanosLeft) {
    try {
      return AsyncRetryExecutor.defaultScheduler().schedule(response::expire, Math.max(0, nanosLeft),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      return null; // no watchdog: a read past the deadline still fails (a blocked one ends at the client's timeout)
    }
  }

  /** The deadline passed: the body's stream is closed so that a blocked read ends. */
  private void expire() {
    expired = true;
    InputStream in;
    synchronized (this) {
      in = body;
    }
    if (in == null) {
      return; // nobody reads: the first read will fail, and closing the response frees the connection
    }
    // On a thread of its own: some clients' streams block close() while a read is blocked
    // (HttpURLConnection's), and the shared scheduler's thread must never wait on a connection.
    Thread closer = new Thread(() -> closeQuietly(in), "backoff-deadline-close");
    closer.setDaemon(true);
    closer.start();
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException | RuntimeException e) {
      // ending a read is all that was asked
    }
  }

  private boolean passed() {
    if (!expired && clock.nanoTime() - deadline >= 0) {
      expired = true;
    }
    return expired;
  }

  private SocketTimeoutException timeout() {
    return new SocketTimeoutException("the call's deadline (maxElapsed "
        + maxElapsed.truncatedTo(ChronoUnit.MILLIS) + ") passed while reading the response's body");
  }

  private void stopWatchdog() {
    if (watchdog != null) {
      watchdog.cancel(false);
    }
  }

  @Override
  public synchronized InputStream getBody() throws IOException {
    if (body == null) {
      if (passed()) {
        throw timeout();
      }
      body = new Bounded(response.getBody());
    }
    return body;
  }

  @Override
  public void close() {
    stopWatchdog();
    response.close();
  }

  @Override
  public String toString() {
    return response + " (body bounded by the call's deadline)";
  }

  /** The body's stream: each read checks the deadline, and a failure after it is reported as the timeout. */
  private final class Bounded extends FilterInputStream {
    Bounded(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      return (int) guarded(in::read);
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      return (int) guarded(() -> in.read(buffer, offset, length));
    }

    @Override
    public long skip(long n) throws IOException {
      return guarded(() -> in.skip(n));
    }

    /** Runs one read unless the deadline has passed; the end of the body stops the watchdog. */
    private long guarded(Read read) throws IOException {
      if (passed()) {
        throw timeout();
      }
      try {
        long n = read.run();
        if (n < 0) {
          stopWatchdog();
        }
        return n;
      } catch (IOException e) {
        throw failure(e);
      }
    }

    /** The watchdog's close made the read fail: the caller learns that the deadline passed. */
    private IOException failure(IOException e) {
      if (!expired) {
        return e;
      }
      SocketTimeoutException timeout = timeout();
      timeout.addSuppressed(e);
      return timeout;
    }

    @Override
    public void close() throws IOException {
      stopWatchdog();
      in.close();
    }
  }

  /** One read of the underlying stream. */
  private interface Read {
    long run() throws IOException;
  }
}
