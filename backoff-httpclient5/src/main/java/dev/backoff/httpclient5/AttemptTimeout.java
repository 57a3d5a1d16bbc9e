package dev.backoff.httpclient5;

import dev.backoff.driver.AttemptContext;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.util.Timeout;

/**
 * An attempt's response timeout cut to the time left before the policy's deadline: the context's request
 * configuration is replaced for the attempt and restored when the call ends, so that a context the caller
 * reuses keeps its own configuration. Calls without a deadline are left alone (nothing is allocated).
 * Per call; used by one attempt at a time.
 */
final class AttemptTimeout {
  /** A last attempt started at the deadline still gets a token millisecond, never a zero (infinite) timeout. */
  private static final long MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final HttpClientContext context;
  private final AttemptContext loop; // null if the owner reads the time left itself
  private boolean changed;
  private RequestConfig original;

  AttemptTimeout(HttpClientContext context) {
    this(context, null);
  }

  /** A timeout that also answers the time left before the deadline, from {@code loop}. */
  AttemptTimeout(HttpClientContext context, AttemptContext loop) {
    this.context = context;
    this.loop = loop;
  }

  /** The time left before the deadline, as the loop's context reads it now. */
  long nanosLeft() {
    return loop.nanosLeft();
  }

  /** Shortens the response timeout to {@code nanosLeft} ({@link AttemptContext#NO_DEADLINE}: leaves it). */
  void shorten(long nanosLeft) {
    if (nanosLeft == AttemptContext.NO_DEADLINE) {
      return;
    }
    RequestConfig before = changed ? original : context.getRequestConfig();
    RequestConfig config = before != null ? before : RequestConfig.DEFAULT;
    long left = Math.max(nanosLeft, MIN_NANOS);
    Timeout own = config.getResponseTimeout();
    if (own != null && !own.isDisabled() && own.toNanoseconds() <= left) {
      restore(); // its own timeout is shorter than the time left: the caller's configuration stands
      return;
    }
    if (!changed) {
      original = before;
      changed = true;
    }
    context.setRequestConfig(RequestConfig.copy(config).setResponseTimeout(Timeout.of(left, TimeUnit.NANOSECONDS))
        .build());
  }

  /**
   * {@code config} (null: the default) with its response timeout cut to {@code nanosLeft}, or null if it
   * needs no cut (no deadline, or its own timeout is shorter). For a hedged call's attempts, whose contexts
   * are their own.
   */
  static RequestConfig shortened(RequestConfig config, long nanosLeft) {
    if (nanosLeft == AttemptContext.NO_DEADLINE) {
      return null;
    }
    RequestConfig base = config != null ? config : RequestConfig.DEFAULT;
    long left = Math.max(nanosLeft, MIN_NANOS);
    Timeout own = base.getResponseTimeout();
    if (own != null && !own.isDisabled() && own.toNanoseconds() <= left) {
      return null;
    }
    return RequestConfig.copy(base).setResponseTimeout(Timeout.of(left, TimeUnit.NANOSECONDS)).build();
  }

  /** Puts the caller's configuration back. */
  void restore() {
    if (changed) {
      context.setRequestConfig(original);
      changed = false;
    }
  }
}
