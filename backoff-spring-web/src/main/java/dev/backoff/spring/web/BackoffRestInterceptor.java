package dev.backoff.spring.web;

import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpResponseView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.driver.HttpVerdicts;
import dev.backoff.spec.Durations;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A {@link ClientHttpRequestInterceptor} that retries {@code RestClient} and {@code RestTemplate} requests
 * under a {@link RetryPolicy} and the HTTP rules every Backoff adapter shares ({@link HttpRules}), on the
 * calling thread. Immutable and thread-safe: register one instance on any number of clients.
 *
 * <pre>{@code
 * RestClient client = RestClient.builder()
 *     .requestInterceptor(BackoffRestInterceptor.of(RetryPolicy.builder().maxAttempts(4).build()))
 *     .build();
 * }</pre>
 *
 * <p>A policy that {@linkplain RetryPolicy#hedging() hedges} is refused when the interceptor is built: the
 * calling thread runs one attempt at a time. Hedge {@code WebClient} exchanges with
 * {@link BackoffExchangeFilter}.
 *
 * <h2>What is retried</h2>
 * What {@link HttpRules} says: statuses 429, 500, 502, 503 and 504 by default; timeouts, refused and reset
 * connections; only GET, HEAD, OPTIONS, PUT, DELETE and TRACE, or another method carrying an
 * {@code Idempotency-Key} header or opted in ({@link HttpRules.Builder#retryMethods}); a request that was
 * never sent (refused connection) whatever its method. Spring hands the interceptor the request body as a
 * byte array, so every body can be sent again. A {@code Retry-After} (seconds or an HTTP-date) is the
 * pushback hint: the wait is {@code max(Retry-After, backoff)}, and one beyond the policy's
 * {@code maxPushback} ends the call.
 *
 * <h2>Outcomes</h2>
 * The first response that is not retried is returned; when retries stop on a response (exhausted,
 * deadline, budget, pushback, a request that may not be repeated) that last response is returned, as
 * without the interceptor, so {@code RestClient}'s status handlers see it. When they stop on a failure,
 * the last failure is thrown unchanged with earlier failures and a {@link RetryHistory} attached
 * (suppressed). An interrupt while waiting ends the call with an {@link InterruptedIOException} and leaves
 * the thread's interrupt flag set.
 *
 * <h2>Bodies</h2>
 * A response that could be retried (judged once from its status and headers, then the engine's
 * side-effect-free preview of its stop rules) has its body read ahead, at most {@link HttpRules#readAheadLimit()} bytes
 * (64 KiB by default), before the decision: a connection reset in that part fails the attempt (and is
 * retried like any reset). A retried response is closed. A response returned to the caller gives the bytes
 * read ahead, then the rest of its body from the connection: nothing beyond the limit is ever held in
 * memory. A retried body longer than the limit is not read on: its stream is closed (so its connection is
 * closed rather than drained to its end). Responses that cannot be retried are returned untouched.
 *
 * <h2>Deadline</h2>
 * With a policy that has a deadline ({@link RetryPolicy.Builder#maxElapsed maxElapsed}), the deadline also
 * bounds the body of every response, read ahead here or read by the caller after this interceptor returned:
 * a read after it fails with a {@link java.net.SocketTimeoutException} naming the deadline, and at the
 * deadline a watchdog (on {@link dev.backoff.AsyncRetryExecutor#defaultScheduler()}, in real time) closes
 * the body's stream, which ends a read blocked on a silent connection where the client allows it. The JDK
 * request factory's stream does; {@code HttpURLConnection}'s (the simple factory's) does not, so give that
 * factory a read timeout. Waiting for a response's headers is bounded by the factory's own timeouts.
 *
 * <h2>Interceptor order</h2>
 * Spring's interceptor chain (Spring Framework 6) runs the interceptors registered <em>after</em> this one
 * only for the first attempt: retries go straight to the request factory. Register this interceptor last
 * so that every attempt is the same.
 *
 * <p>Time: the policy's clock and sleeper; HTTP-dates are compared with the rules'
 * {@linkplain HttpRules#wallClock() wall clock}.
 */
public final class BackoffRestInterceptor implements ClientHttpRequestInterceptor {
  private final RetryPolicy<ClientHttpResponse> policy;
  private final RetryExecutor<ClientHttpResponse> executor;
  private final HttpRules rules;

  private BackoffRestInterceptor(RetryPolicy<? super ClientHttpResponse> policy, HttpRules rules) {
    if (policy.hedging() != null) {
      // Refused here rather than at the first request: a blocking client runs one attempt at a time.
      throw new IllegalArgumentException("policy '" + policy.name() + "' hedges (" + policy.hedging() + "), which "
          + "needs attempts side by side: BackoffRestInterceptor runs each attempt on the calling thread and "
          + "cannot hedge; use a policy without hedging, or WebClient with BackoffExchangeFilter");
    }
    if (policy.attemptTimeout() != null) {
      // Likewise: the calling thread runs the attempt and cannot abandon it; ignoring the timeout would let an
      // attempt that never answers block the call.
      throw new IllegalArgumentException("policy '" + policy.name() + "' has an attemptTimeout ("
          + Durations.format(policy.attemptTimeout()) + "), which BackoffRestInterceptor cannot apply: each "
          + "attempt runs on the calling thread and cannot be abandoned. Set the request factory's read timeout "
          + "and give the policy none, or use WebClient with BackoffExchangeFilter, which applies it");
    }
    this.rules = rules;
    this.policy = rules.applyTo(SpringViews.narrow(policy), BackoffRestInterceptor::status);
    this.executor = RetryExecutor.of(this.policy);
  }

  /**
   * An interceptor retrying under {@code policy} with the default {@link HttpRules}. The policy's result
   * rules are replaced by the HTTP status rules; its failure rules are combined with the HTTP ones.
   *
   * @throws NullPointerException if {@code policy} is null
   * @throws IllegalArgumentException if the policy {@linkplain RetryPolicy#hedging() hedges} or has an
   *     {@linkplain RetryPolicy#attemptTimeout() attempt timeout}: a blocking client runs one attempt at a
   *     time and cannot abandon one (hedge, or time attempts out, with {@link BackoffExchangeFilter})
   */
  public static BackoffRestInterceptor of(RetryPolicy<? super ClientHttpResponse> policy) {
    return of(policy, HttpRules.defaults());
  }

  /**
   * An interceptor retrying under {@code policy} with {@code rules}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the policy {@linkplain RetryPolicy#hedging() hedges} or has an
   *     {@linkplain RetryPolicy#attemptTimeout() attempt timeout}
   */
  public static BackoffRestInterceptor of(RetryPolicy<? super ClientHttpResponse> policy, HttpRules rules) {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(rules, "rules must not be null");
    return new BackoffRestInterceptor(policy, rules);
  }

  /** The policy in force: the caller's, with the HTTP rules for statuses and failures added. */
  public RetryPolicy<ClientHttpResponse> policy() {
    return policy;
  }

  /** The HTTP rules in force. */
  public HttpRules rules() {
    return rules;
  }

  /**
   * Executes the request, retrying as described in the class documentation.
   *
   * @throws IOException the last failure when retries stop on a failure
   * @throws InterruptedIOException if the thread is interrupted while waiting to retry (flag left set)
   */
  @Override
  public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
      throws IOException {
    Call call = new Call(this, request, body, execution);
    try {
      return RetryLoops.sync(executor, call, call);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException(
          "interrupted while retrying " + request.getMethod() + " " + request.getURI());
      interrupted.initCause(e);
      throw interrupted;
    } catch (Exception e) {
      throw new IOException(e); // execute throws only IOException; kept for the compiler
    }
  }

  private static int status(ClientHttpResponse response) {
    try {
      return response.getStatusCode().value();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return "BackoffRestInterceptor[" + policy + ", " + rules + "]";
  }

  /** One intercepted call: its attempts and its judge. Used by one thread. */
  private static final class Call implements SyncAttempt<ClientHttpResponse>, OutcomeJudge<ClientHttpResponse> {
    private final BackoffRestInterceptor owner;
    private final HttpRequest request;
    private final byte[] body;
    private final ClientHttpRequestExecution execution;
    private final boolean repeatable;
    private Verdict judged; // the last response's verdict, judged once as it arrived, or null

    Call(BackoffRestInterceptor owner, HttpRequest request, byte[] body, ClientHttpRequestExecution execution) {
      this.owner = owner;
      this.request = request;
      this.body = body;
      this.execution = execution;
      this.repeatable = owner.rules.isRepeatable(
          HttpRequestView.of(request.getMethod().name(), request.getHeaders()::getFirst, true));
    }

    @Override
    public ClientHttpResponse run(AttemptContext context) throws IOException {
      judged = null;
      long left = context.nanosLeft();
      long deadline = left == AttemptContext.NO_DEADLINE ? 0 : owner.policy.clock().nanoTime() + left;
      ClientHttpResponse response = execution.execute(request, body);
      if (left != AttemptContext.NO_DEADLINE) {
        // The deadline bounds the body too, read ahead here or by the caller: a trickling or stalled body
        // would otherwise hold the call past it.
        response = DeadlineResponse.bound(response, owner.policy.clock(), deadline, owner.policy.maxElapsed());
      }
      HttpRules rules = owner.rules;
      HttpResponseView view;
      try {
        view = SpringViews.response(response);
      } catch (UncheckedIOException e) {
        // No status: HttpURLConnection reads the response's head only now (a connection closed before any
        // response fails here). The attempt failed with the client's own IOException.
        response.close();
        throw e.getCause();
      }
      if (!rules.isRetryStatus(view.status())) {
        return response;
      }
      Verdict verdict = HttpVerdicts.response(rules, owner.policy, repeatable, view);
      judged = verdict;
      if (!HttpVerdicts.mayRetry(owner.policy, verdict, context.attempt(), context)) {
        return response;
      }
      return ReadAheadResponse.readAhead(response, rules.readAheadLimit());
    }

    @Override
    public void discard(ClientHttpResponse response) {
      if (response instanceof ReadAheadResponse readAhead) {
        readAhead.abandon();
      } else {
        response.close();
      }
    }

    @Override
    public Verdict judge(RetryPolicy<ClientHttpResponse> policy, ClientHttpResponse result, Throwable failure) {
      if (failure != null) {
        return HttpVerdicts.failure(repeatable, failure);
      }
      Verdict verdict = judged; // Retry-After read once per response
      return verdict != null ? verdict : HttpVerdicts.response(owner.rules, policy, repeatable, SpringViews.response(result));
    }

    @Override
    public String toString() {
      return request.getMethod() + " " + request.getURI() + (repeatable ? "" : " (" + StopReason.NOT_RETRYABLE + ")");
    }
  }
}
