package dev.backoff.httpclient5;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpRules;
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
 * shortened to the time left, for that attempt only.
 *
 * <h2>Why an exec-chain handler, not an {@code HttpRequestRetryStrategy}</h2>
 * HttpClient's retry strategy answers only "retry?" and "after how long?" per attempt; it cannot refuse a
 * retry on a shared budget and give the token back, tell listeners why a call stopped, apply a deadline to
 * the whole call, classify failures for their own backoff, or stop waiting when the caller cancels. The
 * handler runs the core's loop instead, so all of these behave as in every other Backoff driver.
 *
 * <h2>Bodies and connections</h2>
 * A response that is retried is released within a bound: its body is read (and dropped) up to the rules'
 * {@linkplain HttpRules.Builder#readAheadLimit read-ahead limit} (64 KiB by default), so that a short body
 * leaves its connection for the next attempt; a longer body is not read on: its connection is closed. The
 * classic client decides on the status and headers and returns the last response unread, as without
 * retries. The async client reads a response that may be retried ahead, up to the same limit, before the
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
  private final ClassicRetryHandler classicHandler;
  private final AsyncRetryHandler asyncHandler;

  private HttpClient5Retry(Builder builder) {
    if (builder.policy.hedging() != null) {
      throw new IllegalArgumentException("policy '" + builder.policy.name() + "' hedges, which the HttpClient 5 "
          + "handlers do not do (attempts share the exchange's entity producer and execution scope): use a "
          + "policy without hedging, or backoff-http's or backoff-okhttp's asynchronous calls");
    }
    this.rules = builder.rules;
    this.policy = rules.applyTo(builder.policy, HttpResponse::getCode);
    this.sync = RetryExecutor.of(policy);
    this.async = builder.scheduler == null ? AsyncRetryExecutor.of(policy)
        : AsyncRetryExecutor.of(policy, builder.scheduler);
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
   */
  public ExecChainHandler classicHandler() {
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
   */
  public HttpClientBuilder install(HttpClientBuilder builder) {
    Objects.requireNonNull(builder, "builder must not be null");
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

  /** {@code install(HttpClients.custom())}: a classic client builder with the handler in place. */
  public HttpClientBuilder classicClientBuilder() {
    return install(HttpClients.custom());
  }

  /** {@code install(HttpAsyncClients.custom())}: an async client builder with the handler in place. */
  public HttpAsyncClientBuilder asyncClientBuilder() {
    return install(HttpAsyncClients.custom());
  }

  RetryExecutor<HttpResponse> syncExecutor() {
    return sync;
  }

  AsyncRetryExecutor<HttpResponse> asyncExecutor() {
    return async;
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
     * Builds the retry handlers.
     *
     * @throws IllegalArgumentException if the policy hedges (the handlers run one attempt at a time)
     */
    public HttpClient5Retry build() {
      return new HttpClient5Retry(this);
    }
  }
}
