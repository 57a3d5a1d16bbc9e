package dev.backoff.http;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.RetryLoops;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.RetryAfter;
import dev.backoff.http.rules.WaitHeader;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * A {@link HttpClient} that retries, under a {@link RetryPolicy}, what is safe and worth retrying, and
 * honours the server's {@code Retry-After}. Immutable and thread-safe; share one per application, like the
 * {@code HttpClient} it wraps.
 *
 * <pre>{@code
 * RetryingHttpClient http = RetryingHttpClient.builder(HttpClient.newHttpClient())
 *     .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(5).maxElapsed(Duration.ofSeconds(30)).build())
 *     .build();
 * HttpResponse<String> response = http.send(request, BodyHandlers.ofString());
 * }</pre>
 *
 * <h2>What is retried</h2>
 * The rules are {@link HttpRules}, the ones every Backoff HTTP adapter uses ({@link Builder#rules} sets
 * them at once; the builder's other setters change them one by one). In short:
 * <ul>
 *   <li>Responses with status 429, 500, 502, 503 or 504 ({@link Builder#retryOnStatus} adds more, such as
 *       408; {@link Builder#retryOnlyOnStatus} replaces the set). No other status is retried.
 *   <li>Failures: connect and response timeouts ({@link java.net.http.HttpTimeoutException}), refused
 *       connections, and connections reset or closed by the peer. Never TLS or certificate errors, unknown
 *       hosts, malformed URLs or requests, or protocol errors. The policy's own failure rules are combined
 *       with these; its abort rules, and these "never" rules, win.
 *   <li>Only requests that are safe to repeat: GET, HEAD, OPTIONS, PUT, DELETE and TRACE; any other method
 *       (POST, PATCH, ...) only when it carries an {@code Idempotency-Key} header or the client was built
 *       with {@link Builder#retryNonIdempotent()}. A non-repeatable request is still retried after a
 *       refused connection or a connect timeout, since it was never sent. The request's body publisher is
 *       subscribed afresh by each attempt, so every attempt sends the whole body.
 * </ul>
 * 429 and 503 are classified {@link FailureClass#THROTTLED}, timeouts {@link FailureClass#TIMEOUT}, the
 * rest {@link FailureClass#TRANSIENT}: a policy can give each class its own backoff and budget cost.
 *
 * <h2>Retry-After</h2>
 * A retryable response's {@code Retry-After} (seconds or an HTTP-date, see {@link RetryAfter}) is the
 * engine's pushback hint: the wait is {@code max(Retry-After, backoff)}. A wait longer than the policy's
 * {@link RetryPolicy.Builder#maxPushback maxPushback} ends the call at once
 * ({@link StopReason#PUSHBACK_TOO_LONG}), as does one that would end past its deadline
 * ({@link StopReason#DEADLINE_EXCEEDED}). With several {@code Retry-After} headers the longest readable wait
 * counts; one too long to represent (beyond about 292 years) is infinite and always stops the call. An
 * unreadable value falls back to the backoff.
 *
 * <h2>Hedging</h2>
 * With a policy that {@linkplain RetryPolicy.Builder#hedging hedges}, {@link #sendAsync} sends another
 * attempt when none has answered within the hedging delay (see {@link dev.backoff.Hedging}); the first
 * response the rules accept wins, and the other exchanges are cancelled. Every body is read ahead until the
 * winner is known, so only the winner's reaches the caller's handler. A request that may not be repeated
 * (as above) is never hedged. {@link #send} cannot hedge: it throws an {@link IllegalArgumentException}.
 *
 * <h2>Outcomes</h2>
 * <ul>
 *   <li>When retries stop on a response (retries exhausted, deadline, budget, pushback, or a request that
 *       may not be repeated), <b>the last response is returned</b>, with its body in the form the caller's
 *       handler produces: as with a plain {@code HttpClient}, check {@link HttpResponse#statusCode()}. The
 *       policy's listeners are told why the call stopped ({@code onExhausted}/{@code onAborted} with a
 *       {@link StopReason}).
 *   <li>When retries stop on a failure, that last failure is thrown unchanged, with earlier failures and a
 *       {@link RetryHistory} attached as suppressed exceptions.
 *   <li>Interruption while waiting to retry ends the call with an {@link InterruptedException} (the
 *       thread's interrupt flag is set again); cancelling the future of {@link #sendAsync} cancels the
 *       pending retry or the attempt in flight, and no further attempt starts.
 * </ul>
 *
 * <h2>Bodies and connections</h2>
 * Nothing is buffered whole. Each attempt decides on the status and headers before reading the body. When
 * a retry is possible, the body is read ahead up to the {@linkplain Builder#readAheadLimit read-ahead
 * limit} (64 KiB by default); a retried body that ended within it leaves its connection for the next
 * attempt, a longer one is not read on (its connection is closed). When no retry is possible (the last
 * attempt, a status that is not retried, a request that may not be repeated...) the body goes straight to
 * the caller's handler. When the engine stops where a retry looked possible (a budget refusal), the
 * caller's handler gets the bytes read ahead, then the rest of the body from the connection. A response
 * that arrives after the caller gave up on an asynchronous call is closed.
 *
 * <h2>Time</h2>
 * The policy's clock measures elapsed time and its sleeper waits (synchronous calls); asynchronous calls
 * wait on the {@linkplain Builder#scheduler scheduler} without holding a thread. HTTP-dates are compared with
 * the {@linkplain Builder#wallClock wall clock}. Each attempt's timeout is the request's own (or the
 * builder's {@linkplain Builder#attemptTimeout attempt timeout}, or else the policy's
 * {@linkplain RetryPolicy#attemptTimeout() attempt timeout}), shortened to what is left before the
 * policy's deadline. It bounds the whole exchange, body included (the request's own timeout only bounds
 * the wait for headers): a timer ends the body with an {@link java.net.http.HttpTimeoutException} and
 * closes the connection. It runs until the response is handed over, so it covers the whole body for
 * handlers that read it all (ofString, ofByteArray, ofFile, discarding); a streaming body (ofInputStream,
 * ofLines) is read after that, at the caller's pace.
 */
public final class RetryingHttpClient {
  /** The default {@linkplain Builder#readAheadLimit read-ahead limit}: 64 KiB ({@link HttpRules#DEFAULT_READ_AHEAD_LIMIT}). */
  public static final int DEFAULT_READ_AHEAD_LIMIT = HttpRules.DEFAULT_READ_AHEAD_LIMIT;

  /** The largest {@linkplain Builder#readAheadLimit read-ahead limit}: 1 GiB ({@link HttpRules#MAX_READ_AHEAD_LIMIT}). */
  public static final int MAX_READ_AHEAD_LIMIT = HttpRules.MAX_READ_AHEAD_LIMIT;

  private final HttpClient client;
  private final RetryPolicy<HttpResponse<?>> policy;
  private final HttpRules rules;
  private final Duration attemptTimeout;
  private final Function<String, RetryBudget> budgetPerHost;
  private final ConcurrentMap<String, Drivers> driversPerHost;
  private final Drivers drivers;
  private final ScheduledExecutorService scheduler;
  private final ScheduledExecutorService timeoutScheduler;

  private RetryingHttpClient(Builder builder) {
    this.client = builder.client;
    this.rules = builder.waitHeaders == null ? builder.rules.build()
        : builder.rules.build().toBuilder().waitHeaders(builder.waitHeaders).build();
    this.attemptTimeout = builder.attemptTimeout;
    this.budgetPerHost = builder.budgetPerHost;
    this.driversPerHost = budgetPerHost == null ? null : new ConcurrentHashMap<>();
    this.scheduler = builder.scheduler;
    this.timeoutScheduler = builder.timeoutScheduler;
    this.policy = rules.applyTo(builder.policy, HttpResponse::statusCode);
    this.drivers = new Drivers(policy, scheduler);
  }

  /**
   * A client that retries with the default policy ({@link RetryPolicy#defaults()}: 3 attempts, exponential
   * backoff with full jitter) and the HTTP rules above.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static RetryingHttpClient of(HttpClient client) {
    return builder(client).build();
  }

  /**
   * A builder wrapping {@code client}.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static Builder builder(HttpClient client) {
    return new Builder(client);
  }

  /** The wrapped client. */
  public HttpClient client() {
    return client;
  }

  /** The policy in force: the caller's, with the HTTP rules for statuses and failures added. */
  public RetryPolicy<HttpResponse<?>> policy() {
    return policy;
  }

  /** The statuses that are retried, in ascending order. */
  public Set<Integer> retryStatuses() {
    return rules.retryStatuses();
  }

  /** The HTTP rules in force: statuses, methods, {@code Retry-After} limit, read-ahead limit, wall clock. */
  public HttpRules rules() {
    return rules;
  }

  /**
   * Sends {@code request}, retrying as described in the class documentation, blocking the calling thread
   * (also while waiting to retry, with the policy's sleeper).
   *
   * @return the first response that is not retried, or the last response when retries stop on one
   * @throws IOException the last failure when retries stop on a failure (unchanged, with a
   *     {@link RetryHistory})
   * @throws InterruptedException if the thread is interrupted during an attempt or while waiting
   * @throws IllegalArgumentException if the client rejects the request (not retried)
   * @throws NullPointerException if {@code request} or {@code handler} is null
   */
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
      throws IOException, InterruptedException {
    Objects.requireNonNull(request, "request must not be null");
    Objects.requireNonNull(handler, "handler must not be null");
    Drivers drivers = driversFor(request);
    Exchange<T> exchange = new Exchange<>(this, drivers.policy, request,
        rules.isRepeatable(JdkViews.request(request)), handler, true);
    HttpResponse<Object> last;
    try {
      last = RetryLoops.sync(drivers.sync, exchange, exchange);
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e); // send throws nothing else; kept for the compiler
    }
    return Attempt.join(exchange.finish(last));
  }

  /**
   * Sends {@code request} asynchronously, retrying as described in the class documentation. No thread is
   * held while waiting to retry: the retry is scheduled on the {@linkplain Builder#scheduler scheduler}.
   * Cancelling the returned future cancels the pending retry (or the attempt in flight, where the client
   * allows it); no attempt starts after it.
   *
   * @return a future completed with the response, or with the last failure (unchanged, not wrapped)
   * @throws NullPointerException if {@code request} or {@code handler} is null
   */
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
    Objects.requireNonNull(request, "request must not be null");
    Objects.requireNonNull(handler, "handler must not be null");
    Drivers drivers = driversFor(request);
    boolean repeatable = rules.isRepeatable(JdkViews.request(request));
    // A request that must not be repeated is never hedged: a hedge would send it twice.
    AsyncRetryExecutor<HttpResponse<?>> executor = repeatable ? drivers.async : drivers.unhedged;
    Exchange<T> exchange = new Exchange<>(this, executor.policy(), request, repeatable, handler, false);
    CompletableFuture<HttpResponse<Object>> call = RetryLoops.async(executor, exchange, exchange);
    CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    call.whenComplete((response, failure) -> {
      if (failure != null) {
        result.completeExceptionally(Exchange.unwrap(failure));
        return;
      }
      exchange.finish(response).whenComplete((converted, conversionFailure) -> {
        exchange.handedOver(); // completing the result below must not cancel the caller's body
        if (conversionFailure != null) {
          result.completeExceptionally(Exchange.unwrap(conversionFailure));
        } else if (!result.complete(converted)) {
          Attempt.release(converted); // the caller gave up meanwhile (cancel, orTimeout)
        }
      });
    });
    // Whoever completes the future (cancel, orTimeout, complete...) ends the call: the loop cancels the
    // pending retry or the attempt in flight, and the listeners hear of it; a body still arriving for the
    // last response is ended. After the call's own end there is nothing left to stop.
    result.whenComplete((response, failure) -> {
      call.cancel(true);
      exchange.endUnlessHandedOver();
    });
    return result;
  }

  /**
   * The request for one attempt: the caller's, with its timeout (or the attempt timeout) shortened to
   * {@code nanosLeft}, the time left before the deadline ({@link AttemptContext#NO_DEADLINE}: none). The body
   * publisher is shared: each send subscribes to it afresh.
   */
  HttpRequest attemptRequest(HttpRequest request, long timeoutNanos) {
    if (timeoutNanos < 0) {
      return request;
    }
    Duration timeout = Duration.ofNanos(timeoutNanos);
    if (timeout.equals(request.timeout().orElse(null))) {
      return request;
    }
    return HttpRequest.newBuilder(request, (name, value) -> true).timeout(timeout).build();
  }

  /**
   * One attempt's timeout in nanoseconds: the request's own (or the attempt timeout), shortened to
   * {@code nanosLeft}, the time left before the deadline ({@link AttemptContext#NO_DEADLINE}: none); -1 for
   * no timeout at all.
   */
  long attemptTimeoutNanos(HttpRequest request, long nanosLeft) {
    // The request's own timeout, else the builder's, else the policy's (which the async loop also enforces).
    Duration own = request.timeout().orElse(attemptTimeout != null ? attemptTimeout : policy.attemptTimeout());
    long timeout = own == null ? -1 : saturatedNanos(own);
    if (nanosLeft != AttemptContext.NO_DEADLINE) {
      // Never a zero or negative timeout: a last attempt started at the deadline gets a token millisecond.
      long remaining = Math.max(nanosLeft, Duration.ofMillis(1).toNanos());
      if (timeout < 0 || remaining < timeout) {
        timeout = remaining;
      }
    }
    return timeout;
  }

  private static long saturatedNanos(Duration duration) {
    return duration.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : duration.toNanos();
  }

  ScheduledExecutorService timeoutScheduler() {
    return timeoutScheduler;
  }

  int readAheadLimit() {
    return rules.readAheadLimit();
  }

  /** A policy with the loops' executors for it: one for all hosts, or one per host with its own budget. */
  private static final class Drivers {
    final RetryPolicy<HttpResponse<?>> policy;
    final RetryExecutor<HttpResponse<?>> sync;
    final AsyncRetryExecutor<HttpResponse<?>> async;
    // For requests that must not be repeated: never hedged (the same as async when the policy does not hedge).
    final AsyncRetryExecutor<HttpResponse<?>> unhedged;

    Drivers(RetryPolicy<HttpResponse<?>> policy, ScheduledExecutorService scheduler) {
      this.policy = policy;
      this.sync = RetryExecutor.of(policy);
      this.async = AsyncRetryExecutor.of(policy, scheduler);
      this.unhedged = policy.hedging() == null ? async
          : AsyncRetryExecutor.of(policy.toBuilder().hedging(null).build(), scheduler);
    }
  }

  private Drivers driversFor(HttpRequest request) {
    if (budgetPerHost == null) {
      return drivers;
    }
    String host = request.uri().getHost();
    String key = host == null ? "" : host.toLowerCase(Locale.ROOT);
    return driversPerHost.computeIfAbsent(key, h -> {
      RetryBudget budget = budgetPerHost.apply(h);
      if (budget == null) {
        throw new NullPointerException("the budget factory returned null for host " + h);
      }
      return new Drivers(policy.toBuilder().budget(budget).build(), scheduler);
    });
  }

  /**
   * The budget used for calls to {@code host}, or null if budgets are not per host or none was made yet.
   *
   * @throws NullPointerException if {@code host} is null
   */
  public RetryBudget budgetFor(String host) {
    Objects.requireNonNull(host, "host must not be null");
    if (driversPerHost == null) {
      return null;
    }
    Drivers hostDrivers = driversPerHost.get(host.toLowerCase(Locale.ROOT));
    return hostDrivers == null ? null : hostDrivers.policy.budget();
  }

  HttpClient httpClient() {
    return client;
  }

  boolean isRetryStatus(int status) {
    return rules.isRetryStatus(status);
  }

  /**
   * Builds a {@link RetryingHttpClient}. Each setter validates its argument at once and names it in the
   * message. Not thread-safe; the clients it builds are.
   */
  public static final class Builder {
    private final HttpClient client;
    private RetryPolicy<HttpResponse<?>> policy = RetryPolicy.defaults();
    private HttpRules.Builder rules = HttpRules.builder();
    private WaitHeader[] waitHeaders; // null: the rules' own
    private Duration attemptTimeout;
    private Function<String, RetryBudget> budgetPerHost;
    private ScheduledExecutorService scheduler;
    private ScheduledExecutorService timeoutScheduler;

    private Builder(HttpClient client) {
      this.client = Objects.requireNonNull(client, "client must not be null");
    }

    /**
     * The policy: attempts, deadline, backoff (per failure class too), maximum pushback (the longest
     * {@code Retry-After} honoured), budget, listeners, clock, sleeper and random source. Its result rules
     * are replaced by the HTTP status rules; its failure rules are combined with the HTTP ones.
     *
     * @throws NullPointerException if {@code policy} is null
     */
    public Builder policy(RetryPolicy<HttpResponse<?>> policy) {
      this.policy = Objects.requireNonNull(policy, "policy must not be null");
      return this;
    }

    /**
     * The HTTP rules, replacing every rule set so far (statuses, methods, read-ahead limit, wall clock);
     * the setters below change them further. Default {@link HttpRules#defaults()}.
     *
     * @throws NullPointerException if {@code rules} is null
     */
    public Builder rules(HttpRules rules) {
      this.rules = Objects.requireNonNull(rules, "rules must not be null").toBuilder();
      return this;
    }

    /**
     * Retries these statuses too (for example 408 Request Timeout).
     *
     * @throws IllegalArgumentException if a status is not between 100 and 599
     */
    public Builder retryOnStatus(int... statuses) {
      rules.retryOnStatus(statuses);
      return this;
    }

    /**
     * Retries exactly these statuses (none: retry failures only), replacing the default set.
     *
     * @throws IllegalArgumentException if a status is not between 100 and 599
     */
    public Builder retryOnlyOnStatus(int... statuses) {
      rules.retryOnlyOnStatus(statuses);
      return this;
    }

    /**
     * Retries requests of every method, POST and PATCH included, without an {@code Idempotency-Key}: only
     * for servers where repeating them is known to be harmless.
     */
    public Builder retryNonIdempotent() {
      rules.retryNonIdempotent();
      return this;
    }

    /**
     * The timeout of each attempt for requests that have no timeout of their own.
     *
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public Builder attemptTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "attemptTimeout must not be null");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("attemptTimeout must be positive, was " + timeout);
      }
      this.attemptTimeout = timeout;
      return this;
    }

    /**
     * One retry budget per host, made by {@code factory} on the first call to that host (the host name in
     * lower case), replacing the policy's budget. Hosts are never forgotten, so use it for a bounded set.
     *
     * @throws NullPointerException if {@code factory} is null
     */
    public Builder budgetPerHost(Function<String, RetryBudget> factory) {
      this.budgetPerHost = Objects.requireNonNull(factory, "budgetPerHost factory must not be null");
      return this;
    }

    /**
     * The wall clock that HTTP-dates in {@code Retry-After} are compared with. Default
     * {@link java.time.Clock#systemUTC()}.
     *
     * @throws NullPointerException if {@code wallClock} is null
     */
    public Builder wallClock(java.time.Clock wallClock) {
      rules.wallClock(wallClock);
      return this;
    }

    /**
     * The header fields read as the server's wait ({@link HttpRules.Builder#waitHeaders}): {@code Retry-After}
     * by default; {@code waitHeaders(WaitHeader.values())} adds {@code retry-after-ms},
     * {@code x-amz-retry-after}, {@code X-RateLimit-Reset} and the IETF {@code RateLimit} fields. Overrides the
     * {@linkplain #rules rules'} own setting, whichever is called first.
     *
     * @throws NullPointerException if {@code headers} or one of them is null
     */
    public Builder waitHeaders(WaitHeader... headers) {
      HttpRules.builder().waitHeaders(headers); // validates
      this.waitHeaders = headers.clone();
      return this;
    }

    /**
     * Where {@link #sendAsync} schedules its retries. Its tasks only start the next attempt (they never
     * block), so one thread serves many clients. Default: {@link AsyncRetryExecutor#defaultScheduler()}, the
     * library's shared daemon thread.
     *
     * @throws NullPointerException if {@code scheduler} is null
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
      return this;
    }

    /**
     * How much of the body of a response that may be retried is read before the decision, in bytes.
     * Default {@value RetryingHttpClient#DEFAULT_READ_AHEAD_LIMIT} (64 KiB). A retried response whose
     * body ends within it leaves its connection for the next attempt; a longer body is not read on: its
     * connection is closed. A response that is not retried after all is handed to the caller's handler,
     * the bytes read ahead followed by the rest. Zero reads nothing ahead.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative or above {@value RetryingHttpClient#MAX_READ_AHEAD_LIMIT}
     */
    public Builder readAheadLimit(int bytes) {
      rules.readAheadLimit(bytes);
      return this;
    }

    /**
     * Where each attempt's timeout timer runs (real time, like the request's own timeout). Default: the
     * library's shared daemon scheduler. For tests, to fire a timeout at a chosen moment.
     */
    Builder timeoutScheduler(ScheduledExecutorService timeoutScheduler) {
      this.timeoutScheduler = Objects.requireNonNull(timeoutScheduler, "timeoutScheduler must not be null");
      return this;
    }

    /** Builds the client. */
    public RetryingHttpClient build() {
      if (scheduler == null) {
        scheduler = AsyncRetryExecutor.defaultScheduler();
      }
      if (timeoutScheduler == null) {
        timeoutScheduler = AsyncRetryExecutor.defaultScheduler();
      }
      return new RetryingHttpClient(this);
    }
  }
}
