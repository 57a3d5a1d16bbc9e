package dev.backoff.httpclient5;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.WaitHeader;
import dev.backoff.spec.Durations;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.HttpResponse;

/**
 * Backoff's retries inside Apache HttpClient 5, for the classic and the async client: one exec-chain
 * handler that runs every request under a {@link RetryPolicy} and the shared {@link HttpRules}, in the place
 * of the client's own retry element. Immutable and thread-safe; one instance serves any number of clients.
 *
 * <pre>{@code
 * HttpClient5Retry retry = HttpClient5Retry.builder()
 *     .policy(RetryPolicy.<HttpResponse>builder()
 *         .maxAttempts(4)
 *         .maxElapsed(Duration.ofSeconds(10))
 *         .build())
 *     .build();
 * try (CloseableHttpClient client = retry.install(HttpClients.custom()).build()) {
 *   String body = client.execute(new HttpGet(uri), response -> EntityUtils.toString(response.getEntity()));
 * }
 * }</pre>
 *
 * <h2>What is retried</h2>
 * Exactly what {@link HttpRules} retries: statuses 429, 500, 502, 503 and 504 by default; timeouts, refused
 * connections and connections reset or closed by the peer; only requests that are safe to repeat (an
 * idempotent method, an {@code Idempotency-Key}, or a method opted in with the rules' builder). A request
 * whose entity is not {@linkplain org.apache.hc.core5.http.HttpEntity#isRepeatable() repeatable} (async:
 * whose entity producer is not) is never sent twice, whatever its method; it is still retried after a
 * failure that happened before any byte left (a refused connection, a connect timeout). Each retry sends a
 * fresh copy of the request as the chain first received it (HttpClient's own retry does the same), with the
 * same entity.
 *
 * <h2>Retry-After, budgets, deadlines, listeners</h2>
 * The wait before a retry is {@code max(Retry-After, backoff)}; a {@code Retry-After} longer than the
 * policy's {@code maxPushback} (or the rules' {@code maxRetryAfter}), or one that would end past the
 * policy's deadline, ends the call at once, and the last response is returned. Budgets, per-class backoff,
 * listeners and the deadline are the policy's, applied by the core's retry loops exactly as for every other
 * Backoff driver. With a deadline, each attempt's response timeout (HttpClient's socket timeout, per read) is
 * shortened to the time left, for that attempt only, and the deadline bounds the bodies too: classic, the
 * body of the response returned is cut off when the deadline passes before it was read (its connection
 * closed, reads throw a {@link java.net.SocketTimeoutException}); async, a timer at the deadline ends the
 * attempts in flight (the loop stops on its deadline) or the body going to the caller's consumer, and the
 * call fails with a {@link java.net.SocketTimeoutException}. No request leaves after the deadline.
 *
 * <h2>Why an exec-chain handler, not an {@code HttpRequestRetryStrategy}</h2>
 * HttpClient's retry strategy answers only "retry?" and "after how long?" per attempt; it cannot refuse a
 * retry on a shared budget and give the token back, tell listeners why a call stopped, apply a deadline to
 * the whole call, classify failures for their own backoff, or stop waiting when the caller cancels. The
 * handler runs the core's loop instead, so all of these behave as in every other Backoff driver.
 *
 * <h2>Bodies and connections</h2>
 * A response that is retried is released without waiting on the server. Classic: the bytes of its body that
 * have arrived are dropped, up to the rules' {@linkplain HttpRules.Builder#readAheadLimit read-ahead limit}
 * (64 KiB by default); if that is the whole body its connection goes back to the pool, otherwise it is
 * closed. The classic client decides on the status and headers and returns the last response unread, as
 * without retries. The async client reads a response that may be retried ahead, up to the same limit, before the
 * decision (flow control stops the server there; nothing beyond the limit is held); if the call then stops
 * on it, the caller's consumer gets the bytes read ahead followed by the rest from the connection. A
 * response that cannot be retried goes straight to the caller's consumer.
 *
 * <h2>Outcomes, interruption and cancellation</h2>
 * When retries stop on a response, it is returned as the client would return it (check the status). When
 * they stop on a failure, the last failure is thrown (async: fails the future) unchanged, with earlier
 * failures and a {@link dev.backoff.RetryHistory} attached as suppressed exceptions. Classic: interrupting
 * the calling thread while it waits ends the call with an {@link java.io.InterruptedIOException} (the
 * interrupt flag stays set); cancelling the request ({@code HttpUriRequestBase.cancel()}) during a wait ends
 * the call when the wait ends, with no further attempt. Async: cancelling the future cancels the pending
 * retry at once (or the exchange in flight), and no further attempt starts; waits hold no thread (they are
 * tasks on the {@linkplain Builder#scheduler scheduler}).
 *
 * <h2>Hedging (async client only)</h2>
 * With a policy that {@linkplain RetryPolicy.Builder#hedging hedges}, the async handler sends another attempt
 * of a request when none of those in flight has answered within the hedging delay, up to the policy's
 * {@code maxAttempts} (or {@link dev.backoff.Hedging#maxHedges(int)}); the first response the rules accept wins,
 * and the other exchanges are cancelled (HttpClient's hard cancellation, on by default in its
 * {@code RequestConfig}) and their connections closed. A retryable response or failure starts the next hedge
 * at once; a {@code Retry-After} on it delays the next hedge, and one beyond the maximum stops further hedges;
 * every hedge asks the retry budget and counts as an attempt (see {@link dev.backoff.Hedging}).
 * <ul>
 *   <li>An attempt whose whole response has been read ahead gives its connection back to the pool at once,
 *       even while the call keeps that response as its possible outcome, so a hedge never waits for a
 *       connection that a finished sibling holds. Hedges still lease from the client's pool: at most its
 *       connections per route are in flight to one server, and the deadline (or the pool's connection
 *       request timeout) bounds a hedge's wait for one.
 *   <li>Each attempt runs with a scope of its own: a runtime forked from the call's
 *       ({@code AsyncExecRuntime.fork()}: its own connection from the pool) and a context of its own, a copy
 *       of the caller's (request configuration, cookie store, credentials, authentication cache, user token;
 *       the caller's other attributes are read through it). When the call ends with a response, the winning
 *       attempt's route, request, response, user token, redirect locations, cookie and authentication state
 *       are copied into the caller's context.
 *   <li>Every body is read ahead (up to the read-ahead limit) until the call has its winner, so only the
 *       winner's response reaches the caller's consumer. When every attempt was retried and the call ends
 *       with the last retried response (the call holds it while it may), the caller's consumer gets it
 *       whole: the bytes read ahead, then the rest from its connection, which a body longer than the
 *       read-ahead limit keeps (flow-controlled) until then.
 *   <li>A request that the rules will not repeat (a POST without an {@code Idempotency-Key}, for example)
 *       is never hedged: a hedge would send it twice. It runs under the same policy without hedging.
 *   <li>A request with an entity is not hedged either, whatever its method: HttpClient gives a request one
 *       {@code AsyncEntityProducer}, with one read position, and no way to copy it, so two attempts writing
 *       it at once would interleave their bodies. Such a request is retried (one attempt at a time, the
 *       producer reset between them) as without hedging.
 *   <li>The classic client cannot hedge: its exec chain runs one attempt at a time on the calling thread and
 *       returns its response. {@link #install(HttpClientBuilder)}, {@link #classicClientBuilder()} and
 *       {@link #classicHandler()} throw an {@link IllegalStateException} when the policy hedges; install
 *       the retry in an async client instead, or use a policy without hedging for the classic one.
 * </ul>
 *
 * <h2>Installing</h2>
 * {@link #install(HttpClientBuilder)} and {@link #install(HttpAsyncClientBuilder)} disable the client's own
 * retries ({@code disableAutomaticRetries()}) and add the handler first in the chain, outside the client's
 * redirect, compression and authentication elements: each attempt follows redirects and authentication on
 * its own, and a retried response is judged as the caller would see it. To place the handler yourself, use
 * {@link #classicHandler()} and {@link #asyncHandler()}, and disable the client's retries, or both retry.
 */
public final class HttpClient5Retry {
  /** The name of the handler in the client's exec chain. */
  public static final String HANDLER_NAME = "backoff-retry";

  private final RetryPolicy<HttpResponse> policy;
  private final HttpRules rules;
  private final RetryExecutor<HttpResponse> sync;
  private final AsyncRetryExecutor<HttpResponse> async;
  // For requests that are not hedged (see the class comment); the same as async when the policy does not hedge.
  private final AsyncRetryExecutor<HttpResponse> unhedged;
  private final ClassicRetryHandler classicHandler;
  private final AsyncRetryHandler asyncHandler;

  private HttpClient5Retry(Builder builder) {
    this.rules = builder.rules;
    this.policy = rules.applyTo(builder.policy, HttpResponse::getCode);
    this.sync = RetryExecutor.of(policy);
    this.async = builder.scheduler == null ? AsyncRetryExecutor.of(policy)
        : AsyncRetryExecutor.of(policy, builder.scheduler);
    this.unhedged = policy.hedging() == null ? async
        : AsyncRetryExecutor.of(policy.toBuilder().hedging(null).build(), async.scheduler());
    this.classicHandler = new ClassicRetryHandler(this);
    this.asyncHandler = new AsyncRetryHandler(this);
  }

  /**
   * Retries under {@code policy} and the default HTTP rules ({@link HttpRules#defaults()}).
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static HttpClient5Retry of(RetryPolicy<HttpResponse> policy) {
    return builder().policy(policy).build();
  }

  /** A builder starting from the default policy ({@link RetryPolicy#defaults()}) and the default rules. */
  public static Builder builder() {
    return new Builder();
  }

  /** The policy in force: the caller's, with the HTTP rules' status and failure rules added. */
  public RetryPolicy<HttpResponse> policy() {
    return policy;
  }

  /** The HTTP rules in force. */
  public HttpRules rules() {
    return rules;
  }

  /**
   * The classic client's handler, for placing it in the chain yourself. The client's own retries must be
   * disabled, or both retry.
   *
   * @throws IllegalStateException if the policy hedges or has an attempt timeout: the classic client cannot
   *     (see the class comment)
   */
  public ExecChainHandler classicHandler() {
    refuseForClassic();
    return classicHandler;
  }

  /**
   * The async client's handler, for placing it in the chain yourself. The client's own retries must be
   * disabled, or both retry.
   */
  public AsyncExecChainHandler asyncHandler() {
    return asyncHandler;
  }

  /**
   * Puts the handler into {@code builder}: disables the client's own retries and adds the handler first in
   * the exec chain, named {@value #HANDLER_NAME}. A retry strategy set on the builder is ignored from then on.
   *
   * @return {@code builder}, for chaining
   * @throws NullPointerException if {@code builder} is null
   * @throws IllegalStateException if the policy hedges or has an attempt timeout: the classic client cannot
   *     (see the class comment)
   */
  public HttpClientBuilder install(HttpClientBuilder builder) {
    Objects.requireNonNull(builder, "builder must not be null");
    refuseForClassic();
    return builder.disableAutomaticRetries().addExecInterceptorFirst(HANDLER_NAME, classicHandler);
  }

  /**
   * Puts the handler into {@code builder}: disables the client's own retries and adds the handler first in
   * the exec chain, named {@value #HANDLER_NAME}. A retry strategy set on the builder is ignored from then on.
   *
   * @return {@code builder}, for chaining
   * @throws NullPointerException if {@code builder} is null
   */
  public HttpAsyncClientBuilder install(HttpAsyncClientBuilder builder) {
    Objects.requireNonNull(builder, "builder must not be null");
    return builder.disableAutomaticRetries().addExecInterceptorFirst(HANDLER_NAME, asyncHandler);
  }

  /**
   * {@code install(HttpClients.custom())}: a classic client builder with the handler in place.
   *
   * @throws IllegalStateException if the policy hedges or has an attempt timeout: the classic client cannot
   *     (see the class comment)
   */
  public HttpClientBuilder classicClientBuilder() {
    return install(HttpClients.custom());
  }

  /** {@code install(HttpAsyncClients.custom())}: an async client builder with the handler in place. */
  public HttpAsyncClientBuilder asyncClientBuilder() {
    return install(HttpAsyncClients.custom());
  }

  /**
   * The classic client runs each call on the caller's thread, one attempt after another (its exec chain
   * returns the response), so it cannot have two attempts in flight: a hedging policy is refused before any
   * client is built with it, rather than at the first request.
   */
  private void refuseForClassic() {
    if (policy.hedging() != null) {
      throw new IllegalStateException("policy '" + policy.name() + "' hedges (" + policy.hedging() + "), which the "
          + "classic client cannot do: its exec chain runs one attempt at a time on the calling thread. Install "
          + "this HttpClient5Retry in an async client (install(HttpAsyncClientBuilder), asyncClientBuilder()), "
          + "which hedges, or give the classic client a policy without hedging");
    }
    if (policy.attemptTimeout() != null) {
      throw new IllegalStateException("policy '" + policy.name() + "' has an attemptTimeout ("
          + Durations.format(policy.attemptTimeout()) + "), which the classic client cannot apply: its exec chain "
          + "runs each attempt on the calling thread and cannot abandon one. Set the client's own per-attempt "
          + "timeout (RequestConfig's responseTimeout) and give the policy none, or install this HttpClient5Retry "
          + "in an async client (install(HttpAsyncClientBuilder)), which applies it");
    }
  }

  RetryExecutor<HttpResponse> syncExecutor() {
    return sync;
  }

  AsyncRetryExecutor<HttpResponse> asyncExecutor() {
    return async;
  }

  /** The asynchronous executor without hedging, for requests that are not hedged. */
  AsyncRetryExecutor<HttpResponse> unhedgedExecutor() {
    return unhedged;
  }

  @Override
  public String toString() {
    return "HttpClient5Retry[" + policy + ", " + rules + "]";
  }

  /**
   * Builds an {@link HttpClient5Retry}. Each setter validates its argument at once and names it in the
   * message. Not thread-safe; what it builds is.
   */
  public static final class Builder {
    private RetryPolicy<HttpResponse> policy = RetryPolicy.defaults();
    private HttpRules rules = HttpRules.defaults();
    private WaitHeader[] waitHeaders; // null: the rules' own
    private ScheduledExecutorService scheduler;

    private Builder() {}

    /**
     * The policy: attempts, deadline, backoff (per failure class too), maximum pushback, budget, listeners,
     * clock, sleeper and random source. Its result rules are replaced by the HTTP status rules; its failure
     * rules are combined with the HTTP ones (abort rules win). Default {@link RetryPolicy#defaults()}.
     *
     * @throws NullPointerException if {@code policy} is null
     */
    public Builder policy(RetryPolicy<HttpResponse> policy) {
      this.policy = Objects.requireNonNull(policy, "policy must not be null");
      return this;
    }

    /**
     * The HTTP rules: statuses, methods opted in, the longest {@code Retry-After}, the read-ahead limit,
     * the wall clock for HTTP-dates. Default {@link HttpRules#defaults()}.
     *
     * @throws NullPointerException if {@code rules} is null
     */
    public Builder rules(HttpRules rules) {
      this.rules = Objects.requireNonNull(rules, "rules must not be null");
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
     * Where the async client's retries wait: each retry is a task that only starts the next attempt (it
     * never blocks), so one thread serves many clients. Default
     * {@link AsyncRetryExecutor#defaultScheduler()}, the library's shared daemon thread. The classic client
     * waits on the calling thread with the policy's sleeper.
     *
     * @throws NullPointerException if {@code scheduler} is null
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
      return this;
    }

    /**
     * Builds the retry handlers. A hedging policy is accepted: the async handler hedges, the classic one
     * refuses to be installed (see the class comment).
     */
    public HttpClient5Retry build() {
      if (waitHeaders != null) {
        rules = rules.toBuilder().waitHeaders(waitHeaders).build();
        waitHeaders = null;
      }
      return new HttpClient5Retry(this);
    }
  }
}
