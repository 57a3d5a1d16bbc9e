package dev.backoff.http.rules;

import dev.backoff.FailureClass;
import dev.backoff.Pushback;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.MalformedURLException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.UnknownServiceException;
import java.nio.channels.ClosedChannelException;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import java.util.function.ToIntFunction;
import javax.net.ssl.SSLException;

/**
 * Backoff's HTTP retry rules, in one client-neutral place: which responses, requests and failures are
 * retried, how {@code Retry-After} is read, and how much of a body may be buffered for the decision. Every
 * HTTP adapter judges through one of these; an adapter only translates its client's request, response and
 * exceptions into {@link HttpRequestView}, {@link HttpResponseView} and {@link Throwable}, and back.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li><b>Statuses.</b> 429, 500, 502, 503 and 504 are retried by default ({@link Builder#retryOnStatus}
 *       adds more, such as 408; {@link Builder#retryOnlyOnStatus} replaces the set). 429 and 503 are
 *       {@link FailureClass#THROTTLED}, the others {@link FailureClass#TRANSIENT}.
 *   <li><b>Methods.</b> Only requests that are safe to repeat: GET, HEAD, OPTIONS, PUT, DELETE and TRACE
 *       (idempotent by the HTTP specification); any other method only with a non-blank
 *       {@code Idempotency-Key} header, or when opted in ({@link Builder#retryMethods} for some methods,
 *       {@link Builder#retryNonIdempotent} for all).
 *   <li><b>Bodies.</b> A request whose body cannot be replayed ({@link HttpRequestView#bodyRepeatable}) is
 *       never repeated once sent, whatever its method.
 *   <li><b>Never sent.</b> A failure before any byte of the request left (a refused connection, a connect
 *       timeout) is retried for any request: the server never saw it.
 *   <li><b>Failures.</b> Retried: timeouts, refused or unreachable connections, connections reset or closed
 *       by the peer (also mid-body). Never: TLS and certificate errors, unknown hosts, malformed URLs and
 *       requests, protocol errors. Anything else is left to the policy's own failure rules.
 *   <li><b>{@code Retry-After}</b> (delay-seconds or any of the three HTTP-date forms, see
 *       {@link RetryAfter}) on a retryable response is the engine's pushback hint: the wait is
 *       {@code max(Retry-After, backoff)}. A wait longer than the policy's {@code maxPushback} or this
 *       rule set's {@linkplain Builder#maxRetryAfter maxRetryAfter} ends the call
 *       ({@link StopReason#PUSHBACK_TOO_LONG}), as does one too long to represent (about 292 years or
 *       more). With several values the longest readable one counts; an unreadable one is ignored.
 *       Other fields servers use to say "wait" ({@code retry-after-ms}, {@code x-amz-retry-after},
 *       {@code X-RateLimit-Reset}, the IETF {@code RateLimit} fields) are read the same way once enabled
 *       with {@link Builder#waitHeaders}; see {@link WaitHeader}.
 *   <li><b>Read-ahead.</b> A response that may be retried has its body read ahead, before the decision, to
 *       at most {@linkplain Builder#readAheadLimit readAheadLimit} bytes (default 64 KiB); nothing reads
 *       an unbounded body into memory. What an adapter does past the limit is its own to document.
 * </ul>
 *
 * <h2>For adapters</h2>
 * {@link #applyTo} adds the status and failure rules to a policy. The rest of an adapter's judging (a
 * response or a failure as the verdict the core's loop gives the engine, and whether a retry may follow a
 * response, which decides whether its body is read ahead) is in {@code dev.backoff.http.rules.driver},
 * exported to the adapter modules alone: it speaks the core's driver SPI, which is not public API.
 *
 * <p>Immutable and thread-safe.
 */
public final class HttpRules {
  /** The default {@linkplain Builder#readAheadLimit read-ahead limit}: 64 KiB. */
  public static final int DEFAULT_READ_AHEAD_LIMIT = 64 * 1024;

  /** The largest {@linkplain Builder#readAheadLimit read-ahead limit}: 1 GiB. */
  public static final int MAX_READ_AHEAD_LIMIT = 1 << 30;

  /** The statuses retried by default: too many requests and the server-side transient errors. */
  public static final Set<Integer> DEFAULT_RETRY_STATUSES =
      Collections.unmodifiableSet(new TreeSet<>(Set.of(429, 500, 502, 503, 504)));

  /** The methods the HTTP specification calls idempotent (CONNECT and PATCH are not among them). */
  public static final Set<String> IDEMPOTENT_METHODS =
      Collections.unmodifiableSet(new TreeSet<>(Set.of("DELETE", "GET", "HEAD", "OPTIONS", "PUT", "TRACE")));

  /** The header that makes a POST or PATCH safe to repeat: the server deduplicates by its value. */
  public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

  /** The failure class of a failure that is never retried (see {@link #classifyFailure}). */
  public static final FailureClass PERMANENT = FailureClass.of("permanent");

  /** Causes deeper than this are not inspected (as in the core's rules); cause cycles end here too. */
  static final int MAX_CAUSE_DEPTH = 16;

  private static final int MIN_STATUS = 100;
  private static final int MAX_STATUS = 599;

  /** Messages of plain I/O failures that mean the peer closed or reset the connection. */
  private static final String[] CONNECTION_LOST_MESSAGES = {
      "connection reset", "connection closed", "received no bytes", "eof reached", "broken pipe",
      "connection abort", "stream closed", "reset by peer", "unexpected end of stream", "failed to respond",
      "stream was reset"};

  /** Failures, named by class so that no client is needed here, that mean the connection was lost. */
  private static final Set<String> CONNECTION_LOST_TYPES = Set.of(
      "org.apache.hc.core5.http.NoHttpResponseException",
      "org.apache.hc.core5.http.ConnectionClosedException",
      "okhttp3.internal.http2.StreamResetException",
      "reactor.netty.http.client.PrematureCloseException"); // closed before or during the response

  /** Timeouts, named by class: java.net.http's (the connect timeout extends it) and HttpClient 5's. */
  private static final Set<String> TIMEOUT_TYPES = Set.of(
      "java.net.http.HttpTimeoutException",
      "org.apache.hc.client5.http.ConnectTimeoutException");

  /** Connect timeouts, named by class: the request was never sent. */
  private static final Set<String> CONNECT_TIMEOUT_TYPES = Set.of(
      "java.net.http.HttpConnectTimeoutException",
      "org.apache.hc.client5.http.ConnectTimeoutException");

  private static final HttpRules DEFAULTS = builder().build();

  private final boolean[] retryStatus; // indexed by status code
  private final Set<Integer> retryStatuses;
  private final Set<String> retryMethods;
  private final boolean retryNonIdempotent;
  private final long maxRetryAfterNanos; // Long.MAX_VALUE: none of its own
  private final int readAheadLimit;
  private final Clock wallClock;
  private final Set<WaitHeader> waitHeaders;

  private HttpRules(Builder builder) {
    this.retryStatuses = Collections.unmodifiableSet(new TreeSet<>(builder.retryStatuses));
    this.retryStatus = new boolean[MAX_STATUS + 1];
    for (int status : retryStatuses) {
      retryStatus[status] = true;
    }
    this.retryMethods = Collections.unmodifiableSet(new TreeSet<>(builder.retryMethods));
    this.retryNonIdempotent = builder.retryNonIdempotent;
    this.maxRetryAfterNanos = builder.maxRetryAfterNanos;
    this.readAheadLimit = builder.readAheadLimit;
    this.wallClock = builder.wallClock;
    this.waitHeaders = Collections.unmodifiableSet(EnumSet.copyOf(builder.waitHeaders));
  }

  /** The default rules, as described in the class documentation. */
  public static HttpRules defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these rules. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  // ---------------------------------------------------------------------------------------- settings

  /** The statuses that are retried, in ascending order; unmodifiable. */
  public Set<Integer> retryStatuses() {
    return retryStatuses;
  }

  /** Whether responses with this status are retried (any int; false outside 100 to 599). */
  public boolean isRetryStatus(int status) {
    return status >= MIN_STATUS && status <= MAX_STATUS && retryStatus[status];
  }

  /** The methods opted in beyond the idempotent ones, in upper case and ascending order; unmodifiable. */
  public Set<String> retryMethods() {
    return retryMethods;
  }

  /** Whether requests of every method are repeated ({@link Builder#retryNonIdempotent}). */
  public boolean retriesNonIdempotent() {
    return retryNonIdempotent;
  }

  /** The longest {@code Retry-After} honoured by these rules, or empty if only the policy's maxPushback limits it. */
  public Optional<Duration> maxRetryAfter() {
    return maxRetryAfterNanos == Long.MAX_VALUE ? Optional.empty() : Optional.of(Duration.ofNanos(maxRetryAfterNanos));
  }

  /** The read-ahead limit in bytes: how much of a retryable response's body may be buffered for the decision. */
  public int readAheadLimit() {
    return readAheadLimit;
  }

  /** The wall clock HTTP-dates in {@code Retry-After} are compared with. */
  public Clock wallClock() {
    return wallClock;
  }

  /**
   * The header fields read as the server's wait ({@link Builder#waitHeaders}), in declaration order;
   * unmodifiable. Default: {@code Retry-After} alone.
   */
  public Set<WaitHeader> waitHeaders() {
    return waitHeaders;
  }

  /** The current wall-clock time, from {@link #wallClock()}. */
  public Instant wallNow() {
    return Instant.now(wallClock);
  }

  // ---------------------------------------------------------------------------------------- requests

  /**
   * Whether the request's method allows a repeat: an idempotent method, a non-blank {@code Idempotency-Key},
   * a method opted in, or every method opted in. Says nothing of the body (see {@link #isRepeatable}).
   *
   * @throws NullPointerException if {@code request} is null
   */
  public boolean methodAllowsRetry(HttpRequestView request) {
    if (retryNonIdempotent) {
      return true;
    }
    String method = request.method().toUpperCase(Locale.ROOT);
    if (IDEMPOTENT_METHODS.contains(method) || retryMethods.contains(method)) {
      return true;
    }
    String key = request.header(IDEMPOTENCY_KEY);
    return key != null && !key.isBlank();
  }

  /**
   * Whether the request may be sent again after it was sent once: its method allows it
   * ({@link #methodAllowsRetry}) and its body can be replayed.
   *
   * @throws NullPointerException if {@code request} is null
   */
  public boolean isRepeatable(HttpRequestView request) {
    return request.bodyRepeatable() && methodAllowsRetry(request);
  }

  // --------------------------------------------------------------------------------------- responses

  /** 429 and 503 say "slow down": {@link FailureClass#THROTTLED}; every other status {@link FailureClass#TRANSIENT}. */
  public static FailureClass classifyStatus(int status) {
    return status == 429 || status == 503 ? FailureClass.THROTTLED : FailureClass.TRANSIENT;
  }

  /**
   * The response's {@code Retry-After} as a pushback hint in nanoseconds: the longest readable value;
   * {@link RetryAfter#INFINITE_NANOS} for a wait too long to represent; {@link Pushback#NONE} when no value is
   * readable.
   *
   * @param now the wall-clock time HTTP-dates are measured from
   * @throws NullPointerException if an argument is null
   */
  public static long retryAfterNanos(HttpResponseView response, Instant now) {
    Objects.requireNonNull(now, "now must not be null");
    return RetryAfter.hintNanos(response.headers(RetryAfter.HEADER), now);
  }

  /**
   * The server's wait from the {@linkplain #waitHeaders() enabled header fields}, as a pushback hint in
   * nanoseconds: the highest-ranked field with a readable wait, the longest within its rank (see
   * {@link WaitHeader}); {@link RetryAfter#INFINITE_NANOS} for a wait too long to represent;
   * {@link Pushback#NONE} when no enabled field gives one. Clamps are not applied here: see
   * {@link Builder#maxRetryAfter}.
   *
   * @param now the wall-clock time HTTP-dates and Unix times are measured from
   * @throws NullPointerException if an argument is null
   */
  public long waitHintNanos(HttpResponseView response, Instant now) {
    Objects.requireNonNull(response, "response must not be null");
    Objects.requireNonNull(now, "now must not be null");
    return ServerWait.hintNanos(waitHeaders, response, now);
  }

  /**
   * The policy with these rules added: results are retried when their status is retried here and
   * classified by {@link #classifyStatus} (replacing the policy's result rules); failures are retried when
   * {@link #isRetryableFailure} and never when {@link #isPermanentFailure}, tested on the failure and each of
   * its causes, combined with the policy's own failure rules (abort rules win).
   *
   * @param policy the caller's policy
   * @param status how the adapter reads a result's status code
   * @param <R> the result type
   * @throws NullPointerException if an argument is null
   */
  public <R> RetryPolicy<R> applyTo(RetryPolicy<R> policy, ToIntFunction<? super R> status) {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(status, "status must not be null");
    return policy.toBuilder()
        .retryOnResult(result -> isRetryStatus(status.applyAsInt(result)))
        .classifyResults(result -> classifyStatus(status.applyAsInt(result)))
        .retryIf(HttpRules::isRetryableFailure)
        .abortIf(HttpRules::isPermanentFailure)
        .build();
  }

  // ---------------------------------------------------------------------------------------- failures

  /**
   * Whether this throwable itself (not its causes: the engine tests each) is a failure worth retrying:
   * a timeout, a refused or unreachable connection, or a connection the peer reset or closed, also in the
   * middle of a body.
   *
   * @throws NullPointerException if {@code t} is null
   */
  public static boolean isRetryableFailure(Throwable t) {
    if (isTimeout(t) || t instanceof ConnectException || t instanceof NoRouteToHostException
        || t instanceof ClosedChannelException || t instanceof EOFException
        || isNamed(t.getClass(), CONNECTION_LOST_TYPES)) {
      return true;
    }
    if (t instanceof SocketException) {
      return true; // reset, broken pipe, aborted: the connection is gone
    }
    if (t.getClass() == IOException.class || t instanceof ProtocolException) {
      return isConnectionLostMessage(t.getMessage());
    }
    return false;
  }

  /**
   * Whether this throwable itself is a failure that must never be retried: TLS and certificate problems,
   * unknown hosts or services, malformed URLs and requests, protocol errors (but not a body cut short,
   * which some clients report as a protocol error).
   *
   * @throws NullPointerException if {@code t} is null
   */
  public static boolean isPermanentFailure(Throwable t) {
    return t instanceof SSLException
        || t instanceof GeneralSecurityException // certificate and key problems
        || t instanceof UnknownHostException
        || t instanceof UnknownServiceException // such as cleartext not permitted
        || t instanceof MalformedURLException
        || t instanceof URISyntaxException
        || t instanceof IllegalArgumentException // the client's answer to a malformed request or URI
        || (t instanceof ProtocolException && !isConnectionLostMessage(t.getMessage()));
  }

  /**
   * Whether the failure (or one of its causes) happened before any byte of the request left: a refused
   * connection or a connect timeout. Such a request is safe to retry whatever its method or body.
   *
   * @throws NullPointerException if {@code failure} is null
   */
  public static boolean neverSent(Throwable failure) {
    Objects.requireNonNull(failure, "failure must not be null");
    int depth = 0; // bounded like every walk over causes: they can form a cycle
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (t instanceof ConnectException || t instanceof NoRouteToHostException
          || isNamed(t.getClass(), CONNECT_TIMEOUT_TYPES) || isSocketConnectTimeout(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The failure's class by these rules, from the failure and its causes: {@link #PERMANENT} if any is
   * permanent, else {@link FailureClass#TIMEOUT} if any is a timeout, else {@link FailureClass#TRANSIENT}
   * if any is retryable; empty when the rules do not know it (the policy's own rules then decide).
   *
   * @throws NullPointerException if {@code failure} is null
   */
  public static Optional<FailureClass> classifyFailure(Throwable failure) {
    Objects.requireNonNull(failure, "failure must not be null");
    boolean timeout = false;
    boolean retryable = false;
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (isPermanentFailure(t)) {
        return Optional.of(PERMANENT);
      }
      timeout |= isTimeout(t);
      retryable |= isRetryableFailure(t);
    }
    return timeout ? Optional.of(FailureClass.TIMEOUT)
        : retryable ? Optional.of(FailureClass.TRANSIENT) : Optional.empty();
  }

  private static boolean isTimeout(Throwable t) {
    return t instanceof SocketTimeoutException || t instanceof TimeoutException
        || isNamed(t.getClass(), TIMEOUT_TYPES);
  }

  /** The JDK's socket connect timeout ("Connect timed out"), which OkHttp passes on as it is. */
  private static boolean isSocketConnectTimeout(Throwable t) {
    String message = t.getMessage();
    return t instanceof SocketTimeoutException && message != null
        && message.toLowerCase(Locale.ROOT).startsWith("connect timed out");
  }

  private static boolean isConnectionLostMessage(String message) {
    if (message == null) {
      return false;
    }
    String lower = message.toLowerCase(Locale.ROOT);
    for (String lost : CONNECTION_LOST_MESSAGES) {
      if (lower.contains(lost)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the class or one of its superclasses has one of these names (no client on the class path needed). */
  private static boolean isNamed(Class<?> type, Set<String> names) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      if (names.contains(c.getName())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "HttpRules[statuses " + retryStatuses
        + (retryNonIdempotent ? ", every method" : retryMethods.isEmpty() ? "" : ", also " + retryMethods)
        + maxRetryAfter().map(max -> ", maxRetryAfter " + max).orElse("")
        + (waitHeaders.equals(EnumSet.of(WaitHeader.RETRY_AFTER)) ? "" : ", wait headers " + waitHeaders)
        + ", readAhead " + readAheadLimit + " B]";
  }

  /**
   * Builds {@link HttpRules}. Each setter validates its argument at once and names it in the message. Not
   * thread-safe; the rules it builds are.
   */
  public static final class Builder {
    private final Set<Integer> retryStatuses;
    private final Set<String> retryMethods;
    private boolean retryNonIdempotent;
    private long maxRetryAfterNanos;
    private int readAheadLimit;
    private Clock wallClock;
    private Set<WaitHeader> waitHeaders;

    private Builder() {
      this.retryStatuses = new TreeSet<>(DEFAULT_RETRY_STATUSES);
      this.retryMethods = new TreeSet<>();
      this.maxRetryAfterNanos = Long.MAX_VALUE;
      this.readAheadLimit = DEFAULT_READ_AHEAD_LIMIT;
      this.wallClock = Clock.systemUTC();
      this.waitHeaders = EnumSet.of(WaitHeader.RETRY_AFTER);
    }

    private Builder(HttpRules rules) {
      this.retryStatuses = new TreeSet<>(rules.retryStatuses);
      this.retryMethods = new TreeSet<>(rules.retryMethods);
      this.retryNonIdempotent = rules.retryNonIdempotent;
      this.maxRetryAfterNanos = rules.maxRetryAfterNanos;
      this.readAheadLimit = rules.readAheadLimit;
      this.wallClock = rules.wallClock;
      this.waitHeaders = EnumSet.copyOf(rules.waitHeaders);
    }

    /**
     * Retries these statuses too (for example 408 Request Timeout).
     *
     * @throws IllegalArgumentException if a status is not between 100 and 599
     * @throws NullPointerException if {@code statuses} is null
     */
    public Builder retryOnStatus(int... statuses) {
      for (int status : statuses) {
        validStatus(status);
      }
      for (int status : statuses) {
        retryStatuses.add(status);
      }
      return this;
    }

    /**
     * Retries exactly these statuses (none: retry failures only), replacing the current set.
     *
     * @throws IllegalArgumentException if a status is not between 100 and 599
     * @throws NullPointerException if {@code statuses} is null
     */
    public Builder retryOnlyOnStatus(int... statuses) {
      Set<Integer> replacement = new TreeSet<>();
      for (int status : statuses) {
        replacement.add(validStatus(status));
      }
      retryStatuses.clear();
      retryStatuses.addAll(replacement);
      return this;
    }

    private static int validStatus(int status) {
      if (status < MIN_STATUS || status > MAX_STATUS) {
        throw new IllegalArgumentException("status must be between 100 and 599, was " + status);
      }
      return status;
    }

    /**
     * Repeats requests of these methods too (compared case-insensitively), such as {@code "POST"} for a
     * server known to deduplicate them. Their bodies must still be replayable.
     *
     * @throws IllegalArgumentException if a method is blank or contains whitespace
     * @throws NullPointerException if {@code methods} or one of them is null
     */
    public Builder retryMethods(String... methods) {
      Set<String> added = new TreeSet<>();
      for (String method : methods) {
        Objects.requireNonNull(method, "method must not be null");
        if (method.isBlank() || method.chars().anyMatch(Character::isWhitespace)) {
          throw new IllegalArgumentException("method must be a non-blank token, was '" + method + "'");
        }
        added.add(method.toUpperCase(Locale.ROOT));
      }
      retryMethods.addAll(added);
      return this;
    }

    /**
     * Repeats requests of every method, POST and PATCH included, without an {@code Idempotency-Key}: only
     * for servers where repeating them is known to be harmless. Bodies must still be replayable.
     */
    public Builder retryNonIdempotent() {
      return retryNonIdempotent(true);
    }

    /** Whether requests of every method are repeated ({@link #retryNonIdempotent()}); default false. */
    public Builder retryNonIdempotent(boolean everyMethod) {
      this.retryNonIdempotent = everyMethod;
      return this;
    }

    /**
     * The longest {@code Retry-After} these rules honour; a longer one ends the call
     * ({@link StopReason#PUSHBACK_TOO_LONG}). The policy's own {@code maxPushback} applies too: the
     * shorter wins. Default: none of its own.
     *
     * @throws IllegalArgumentException if {@code maxRetryAfter} is negative
     * @throws NullPointerException if {@code maxRetryAfter} is null
     */
    public Builder maxRetryAfter(Duration maxRetryAfter) {
      Objects.requireNonNull(maxRetryAfter, "maxRetryAfter must not be null");
      if (maxRetryAfter.isNegative()) {
        throw new IllegalArgumentException("maxRetryAfter must not be negative, was " + maxRetryAfter);
      }
      this.maxRetryAfterNanos = maxRetryAfter.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
          ? Long.MAX_VALUE - 1 // the longest representable wait; "infinite" still exceeds it
          : maxRetryAfter.toNanos();
      return this;
    }

    /**
     * How much of the body of a response that may be retried is read before the decision, in bytes.
     * Default {@value HttpRules#DEFAULT_READ_AHEAD_LIMIT} (64 KiB); zero reads nothing ahead.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative or above {@value HttpRules#MAX_READ_AHEAD_LIMIT}
     */
    public Builder readAheadLimit(int bytes) {
      if (bytes < 0 || bytes > MAX_READ_AHEAD_LIMIT) {
        throw new IllegalArgumentException(
            "readAheadLimit must be between 0 and " + MAX_READ_AHEAD_LIMIT + " bytes, was " + bytes);
      }
      this.readAheadLimit = bytes;
      return this;
    }

    /**
     * The wall clock that HTTP-dates in {@code Retry-After} are compared with. Default
     * {@link Clock#systemUTC()}.
     *
     * @throws NullPointerException if {@code wallClock} is null
     */
    public Builder wallClock(Clock wallClock) {
      this.wallClock = Objects.requireNonNull(wallClock, "wallClock must not be null");
      return this;
    }

    /**
     * The header fields read as the server's wait, replacing the current set: {@code Retry-After} by
     * default; add the others a server is known to send, e.g. {@code waitHeaders(WaitHeader.values())} for
     * all of them. None reads no wait at all (the backoff alone applies). Every field gets the same clamps
     * ({@linkplain #maxRetryAfter maxRetryAfter} and the policy's {@code maxPushback}) and the same rule for
     * hostile values; which field wins when several are sent is described on {@link WaitHeader}.
     *
     * @throws NullPointerException if {@code headers} or one of them is null
     */
    public Builder waitHeaders(WaitHeader... headers) {
      Objects.requireNonNull(headers, "waitHeaders must not be null");
      Set<WaitHeader> replacement = EnumSet.noneOf(WaitHeader.class);
      for (WaitHeader header : headers) {
        replacement.add(Objects.requireNonNull(header, "a wait header must not be null"));
      }
      this.waitHeaders = replacement;
      return this;
    }

    /** Builds the rules. */
    public HttpRules build() {
      return new HttpRules(this);
    }
  }
}
