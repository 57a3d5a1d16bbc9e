package dev.backoff.http;

import dev.backoff.FailureClass;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.MalformedURLException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.security.GeneralSecurityException;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLException;

/** Which HTTP requests, responses and failures are retried, and how they are classified. */
final class HttpRetryRules {
  private HttpRetryRules() {}

  /** Causes deeper than this are not inspected (as in the core's rules); cause cycles end here too. */
  static final int MAX_CAUSE_DEPTH = 16;

  /** Methods RFC 9110 §9.2.2 calls idempotent (CONNECT is not among them). */
  static final Set<String> IDEMPOTENT_METHODS = Set.of("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE");

  /** The header that makes a POST or PATCH safe to repeat (the IETF httpapi draft, Stripe, ...). */
  static final String IDEMPOTENCY_KEY = "Idempotency-Key";

  /** The default retryable statuses: too many requests and the server-side transient errors. */
  static final Set<Integer> DEFAULT_STATUSES = Set.of(429, 500, 502, 503, 504);

  /** Messages of the plain IOExceptions java.net.http throws when the peer closes or resets a connection. */
  private static final String[] CONNECTION_LOST_MESSAGES = {
      "connection reset", "connection closed", "received no bytes", "eof reached", "broken pipe",
      "connection abort", "stream closed", "reset by peer"};

  /** Whether a request may be sent again: an idempotent method, an Idempotency-Key, or the caller's opt-in. */
  static boolean isRepeatable(HttpRequest request, boolean retryNonIdempotent) {
    return retryNonIdempotent
        || IDEMPOTENT_METHODS.contains(request.method().toUpperCase(Locale.ROOT))
        || request.headers().firstValue(IDEMPOTENCY_KEY).filter(key -> !key.isBlank()).isPresent();
  }

  /** 429 and 503 say "slow down"; the other retryable statuses are transient errors. */
  static FailureClass classifyStatus(int status) {
    return status == 429 || status == 503 ? FailureClass.THROTTLED : FailureClass.TRANSIENT;
  }

  /**
   * Failures that must never be retried: TLS and certificate problems, unknown hosts, malformed URLs and
   * requests, protocol errors. Tested on the failure and each of its causes (an abort rule).
   */
  static boolean isPermanent(Throwable t) {
    return t instanceof SSLException
        || t instanceof GeneralSecurityException // certificate and key problems
        || t instanceof UnknownHostException
        || t instanceof MalformedURLException
        || t instanceof URISyntaxException
        || t instanceof IllegalArgumentException // the client's answer to a malformed request or URI
        || t instanceof ProtocolException;
  }

  /**
   * Failures worth retrying: timeouts (connect or response, or the policy's attempt timeout), refused or unreachable connections, and
   * connections the peer reset or closed before the response arrived. Tested on each cause.
   */
  static boolean isRetryable(Throwable t) {
    // A java.util.concurrent.TimeoutException is the retry loop's own attempt timeout (the policy's).
    if (t instanceof HttpTimeoutException || t instanceof java.util.concurrent.TimeoutException
        || t instanceof ConnectException || t instanceof NoRouteToHostException
        || t instanceof ClosedChannelException || t instanceof EOFException) {
      return true;
    }
    if (t instanceof SocketException || t.getClass() == java.io.IOException.class) {
      String message = t.getMessage();
      if (message == null) {
        return t instanceof SocketException;
      }
      String lower = message.toLowerCase(Locale.ROOT);
      for (String lost : CONNECTION_LOST_MESSAGES) {
        if (lower.contains(lost)) {
          return true;
        }
      }
      return t instanceof SocketException;
    }
    return false;
  }
}
