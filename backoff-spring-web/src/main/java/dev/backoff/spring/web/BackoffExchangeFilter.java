package dev.backoff.spring.web;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.NanoClock;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpResponseView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.driver.HttpVerdicts;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * An {@link ExchangeFilterFunction} that retries {@code WebClient} exchanges under a {@link RetryPolicy}
 * and the HTTP rules every Backoff adapter shares ({@link HttpRules}), without blocking: the wait before
 * a retry is a task on a {@link RetryScheduler}, and no thread is held meanwhile. Immutable and
 * thread-safe.
 *
 * <pre>{@code
 * WebClient client = WebClient.builder()
 *     .filter(BackoffExchangeFilter.of(RetryPolicy.builder().maxAttempts(4).build()))
 *     .build();
 * }</pre>
 *
 * <h2>What is retried</h2>
 * As for {@link BackoffRestInterceptor}: the {@link HttpRules} statuses, methods, failures and
 * {@code Retry-After}. Each attempt runs the rest of the filter chain again with the same request, so its
 * body inserter writes the body again: a body from a value is sent whole each time. A request whose body
 * is a one-shot publisher must not be retried: send it with a method that is not retried, or without this
 * filter.
 *
 * <h2>Outcomes</h2>
 * The returned {@code Mono} emits the first response that is not retried, or the last response when
 * retries stop on one; when they stop on a failure it errors with that last failure, unchanged, with
 * earlier failures and a {@link RetryHistory} attached (suppressed). <b>Cancellation</b>: cancelling the
 * subscription (dispose, {@code timeout}, a cancelled {@code block}) ends the call: a pending retry is
 * cancelled and no further attempt starts; the attempt in flight is cancelled; a response that still
 * arrives has its body released.
 *
 * <h2>Hedging</h2>
 * With a policy that {@linkplain RetryPolicy.Builder#hedging hedges}, another exchange of the same request
 * starts when none has answered within the hedging delay, or at once after a retryable failure (see
 * {@link dev.backoff.Hedging}); the first response the rules accept is emitted, and every other exchange
 * still in flight is cancelled (its subscription cancelled, which closes its connection unless its response
 * has already arrived). A losing response that arrives anyway, and every retried one, has its body released
 * as below: only the winner's body reaches the caller. A request the rules will not repeat (a POST without an
 * {@code Idempotency-Key}, say) is never hedged: it is sent once, as without hedging. The hedging delay is a
 * task on the same scheduler as the waits.
 *
 * <h2>Bodies</h2>
 * Only the status and headers are judged; no body is buffered. A retried response's body is read and
 * freed buffer by buffer up to the rules' {@linkplain HttpRules#readAheadLimit() read-ahead limit} (64 KiB
 * by default), so that a short body leaves its connection reusable; a longer one is cancelled there (its
 * connection closed), never drained to its end.
 *
 * <h2>Deadline</h2>
 * With a policy that has a deadline ({@link RetryPolicy.Builder#maxElapsed maxElapsed}), the deadline also
 * bounds every response's body, the caller's and the retried ones the filter releases: past it the body's
 * {@code Flux} fails with a {@link java.util.concurrent.TimeoutException} naming the deadline (which
 * {@code retrieve()} reports inside a {@code WebClientResponseException}), and its subscription to the
 * connection is cancelled.
 *
 * <p>Time: the policy's clock; waits on the scheduler (default the core's shared one,
 * {@link AsyncRetryExecutor#defaultScheduler()}); HTTP-dates are compared with the rules'
 * {@linkplain HttpRules#wallClock() wall clock}. The policy's attempt timeout, if any, bounds each exchange
 * up to its response's headers.
 */
public final class BackoffExchangeFilter implements ExchangeFilterFunction {
  private final RetryPolicy<ClientResponse> policy;
  private final AsyncRetryExecutor<ClientResponse> executor;
  // For requests the rules will not repeat: never hedged (the same as executor when the policy does not hedge).
  private final AsyncRetryExecutor<ClientResponse> unhedged;
  private final HttpRules rules;

  private BackoffExchangeFilter(RetryPolicy<? super ClientResponse> policy, HttpRules rules, RetryScheduler scheduler) {
    this.rules = rules;
    this.policy = rules.applyTo(SpringViews.narrow(policy), response -> response.statusCode().value());
    this.executor = executor(this.policy, scheduler);
    this.unhedged = this.policy.hedging() == null ? executor : executor(this.policy.toBuilder().hedging(null).build(),
        scheduler);
  }

  private static AsyncRetryExecutor<ClientResponse> executor(RetryPolicy<ClientResponse> policy,
      RetryScheduler scheduler) {
    return scheduler == null ? AsyncRetryExecutor.of(policy) : AsyncRetryExecutor.of(policy, scheduler);
  }

  /**
   * A filter retrying under {@code policy} with the default {@link HttpRules}, waiting on the core's shared
   * scheduler.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static BackoffExchangeFilter of(RetryPolicy<? super ClientResponse> policy) {
    Objects.requireNonNull(policy, "policy must not be null");
    return new BackoffExchangeFilter(policy, HttpRules.defaults(), null);
  }

  /**
   * A filter retrying under {@code policy} with {@code rules} (statuses, methods, the header fields read as
   * the server's wait: {@link HttpRules.Builder#waitHeaders}), waiting on the core's shared scheduler.
   *
   * @throws NullPointerException if an argument is null
   */
  public static BackoffExchangeFilter of(RetryPolicy<? super ClientResponse> policy, HttpRules rules) {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(rules, "rules must not be null");
    return new BackoffExchangeFilter(policy, rules, null);
  }

  /**
   * A filter retrying under {@code policy} with {@code rules}, waiting on {@code scheduler}.
   *
   * @throws NullPointerException if an argument is null
   */
  public static BackoffExchangeFilter of(RetryPolicy<? super ClientResponse> policy, HttpRules rules,
      RetryScheduler scheduler) {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(rules, "rules must not be null");
    Objects.requireNonNull(scheduler, "scheduler must not be null");
    return new BackoffExchangeFilter(policy, rules, scheduler);
  }

  /** The policy in force: the caller's, with the HTTP rules for statuses and failures added. */
  public RetryPolicy<ClientResponse> policy() {
    return policy;
  }

  /** The HTTP rules in force. */
  public HttpRules rules() {
    return rules;
  }

  /**
   * Runs the exchange, retrying as described in the class documentation. Nothing is sent until the
   * returned {@code Mono} is subscribed to; each subscription is a call of its own.
   */
  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    return Mono.fromFuture(() -> {
      Exchange exchange = new Exchange(this, request, next);
      // A request that must not be repeated is never hedged: a hedge would send it twice.
      return RetryLoops.async(exchange.repeatable ? executor : unhedged, exchange, exchange);
    }, false); // false: cancelling the subscription cancels the call
  }

  @Override
  public String toString() {
    return "BackoffExchangeFilter[" + policy + ", " + rules + "]";
  }

  /**
   * One subscribed call: its attempts and its judge. Holds no per-attempt state, so hedged attempts, which
   * overlap, share it safely (each response carries what judging and discarding it needs).
   */
  private static final class Exchange implements AsyncAttempt<ClientResponse>, OutcomeJudge<ClientResponse> {
    private final BackoffExchangeFilter owner;
    private final ClientRequest request;
    private final ExchangeFunction next;
    final boolean repeatable;

    Exchange(BackoffExchangeFilter owner, ClientRequest request, ExchangeFunction next) {
      this.owner = owner;
      this.request = request;
      this.next = next;
      this.repeatable = owner.rules.isRepeatable(
          HttpRequestView.of(request.method().name(), request.headers()::getFirst, true));
    }

    @Override
    public CompletionStage<ClientResponse> start(AttemptContext context) {
      long left = context.nanosLeft();
      Mono<ClientResponse> exchange = next.exchange(request);
      if (left != AttemptContext.NO_DEADLINE) {
        // The deadline bounds the body too, whoever reads it (the caller, or discard for a retried one).
        NanoClock clock = owner.policy.clock();
        long deadline = clock.nanoTime() + left;
        exchange = exchange.map(response -> DeadlineBody.bound(response, clock, deadline, owner.policy.maxElapsed()));
      }
      // toFuture(): cancelling the future cancels the exchange's subscription.
      return exchange.toFuture();
    }

    @Override
    public void discard(ClientResponse response) {
      // Read at most the read-ahead limit, releasing each buffer at once; a longer body is cancelled
      // there (its connection closed) instead of being drained to its end.
      int limit = owner.rules.readAheadLimit();
      long[] read = {0};
      response.bodyToFlux(DataBuffer.class)
          .takeUntil(buffer -> (read[0] += buffer.readableByteCount()) > limit)
          .subscribe(DataBufferUtils::release, failure -> { }); // nothing to tell anyone
    }

    @Override
    public Verdict judge(RetryPolicy<ClientResponse> policy, ClientResponse result, Throwable failure) {
      if (failure != null) {
        return HttpVerdicts.failure(repeatable, failure);
      }
      HttpResponseView view = HttpResponseView.of(result.statusCode().value(), result.headers()::header);
      return HttpVerdicts.response(owner.rules, policy, repeatable, view);
    }

    @Override
    public String toString() {
      return request.method() + " " + request.url();
    }
  }
}
