package dev.backoff.httpclient5;

import dev.backoff.RetryScheduler;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.Future;
import org.apache.hc.client5.http.classic.ExecRuntime;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;

/**
 * The body of the response a classic call ends with, bounded by the call's deadline: when the deadline
 * passes before the body has been read (or closed), a timer closes the connection, which ends a read that
 * is blocked or a body that trickles, and every read from then on throws a {@link SocketTimeoutException}
 * saying so. The response timeout, cut to the time left when the last attempt started, bounds each read on
 * its own; a body that keeps sending a byte now and then never trips it, and this does. Thread-safe: the
 * timer runs on the retry scheduler while the caller reads.
 */
final class DeadlineBody extends HttpEntityWrapper {
  private final ExecRuntime runtime;
  private final Duration maxElapsed;
  private final Future<?> timer;
  private volatile boolean expired;

  DeadlineBody(HttpEntity body, long nanosLeft, Duration maxElapsed, ExecRuntime runtime, RetryScheduler scheduler) {
    super(body);
    this.runtime = runtime;
    this.maxElapsed = maxElapsed;
    this.timer = schedule(scheduler, nanosLeft);
  }

  /** The timer; null if the scheduler takes no more tasks (each read is then bounded by its own timeout). */
  private Future<?> schedule(RetryScheduler scheduler, long nanosLeft) {
    try {
      return scheduler.schedule(this::expire, nanosLeft);
    } catch (RuntimeException rejected) {
      return null;
    }
  }

  private void expire() {
    expired = true;
    runtime.discardEndpoint(); // closes the socket: a read blocked on it ends at once
  }

  private void done() {
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private IOException expired(IOException cause) {
    SocketTimeoutException timeout = new SocketTimeoutException("the call's deadline (maxElapsed "
        + maxElapsed + ") passed before the response's body was read to its end; its connection was closed");
    if (cause != null) {
      timeout.initCause(cause);
    }
    return timeout;
  }

  @Override
  public InputStream getContent() throws IOException {
    InputStream content = super.getContent();
    return content == null ? null : new Bounded(content);
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    try (InputStream in = getContent()) {
      if (in != null) {
        in.transferTo(out);
      }
    }
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      done();
    }
  }

  /** A read from the body's stream. */
  @FunctionalInterface
  private interface Read {
    int run() throws IOException;
  }

  /** The body's stream: every read fails once the deadline has passed. */
  private final class Bounded extends FilterInputStream {
    Bounded(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      return guarded(() -> in.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return guarded(() -> in.read(b, off, len));
    }

    @Override
    public long skip(long n) throws IOException {
      return guarded(() -> (int) in.skip(Math.min(n, Integer.MAX_VALUE)));
    }

    /** One read: refused once the deadline has passed; its end (-1) stops the timer. */
    private int guarded(Read read) throws IOException {
      check();
      try {
        int n = read.run();
        if (n < 0) {
          done();
        }
        return n;
      } catch (IOException e) {
        throw expired ? expired(e) : e;
      }
    }

    @Override
    public void close() throws IOException {
      try {
        check();
        super.close(); // HttpClient reads what is left of the body here, to keep the connection
      } catch (IOException e) {
        throw expired ? expired(e) : e;
      } finally {
        done();
      }
    }

    private void check() throws IOException {
      if (expired) {
        throw expired(null);
      }
    }
  }
}
