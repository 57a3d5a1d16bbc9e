package dev.backoff.httpclient5;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.driver.HttpVerdicts;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.support.BasicRequestBuilder;

/**
 * One async request as the core's asynchronous loop sees it: the attempt hook (the rest of the chain, with
 * an {@link AsyncAttemptState} as its callback) and the outcome judge (the HTTP rules through their views).
 * The loop owns waiting, scheduling and cancellation; this class translates.
 *
 * <p>Cancellation: the caller's future (the scope's cancellable dependency) is made to depend on this
 * exchange alone, so cancelling it cancels the loop's call (the pending retry, or the attempt in flight).
 * Each attempt runs with a scope of its own whose dependency is the attempt's, so the chain's elements
 * never replace the caller's.
 *
 * <p>Hedging: when the policy hedges and the request may be hedged (the rules repeat it, and it has no
 * entity: HttpClient's one {@link AsyncEntityProducer} cannot be written by two attempts at once), several
 * attempts are in flight at once. Each then runs with a scope of its own (a forked runtime, a copy of the
 * context), each response is mapped to its attempt ({@link #byResponse}) for the judge, the discard hook and
 * the hand-over, and only the winner's response reaches the caller's callback. Other requests run on the
 * policy without hedging ({@link HttpClient5Retry#unhedgedExecutor()}).
 *
 * <p>Per call. Without hedging attempts run one after another; {@link #current} is volatile because attempts
 * complete, and callers cancel, on other threads.
 */
final class AsyncExchange implements AsyncAttempt<HttpResponse>, OutcomeJudge<HttpResponse>, HttpRequestView,
    Cancellable {
  private final HttpClient5Retry owner;
  private final HttpRules rules;
  private final HttpRequest request;
  private final AsyncEntityProducer entityProducer;
  private final AsyncExecChain.Scope scope;
  private final AsyncExecChain chain;
  private final Reporting callback;
  private final AttemptTimeout timeout;
  private final boolean hedged;
  private final AsyncRetryExecutor<HttpResponse> executor;
  // Hedged only (null otherwise): each response's attempt, and every attempt started, until the call ends.
  private final Map<HttpResponse, AsyncAttemptState> byResponse;
  private final List<AsyncAttemptState> attempts;
  private volatile AsyncAttemptState current;
  private volatile CompletableFuture<HttpResponse> call;
  private volatile boolean cancelled;
  private volatile int repeatable; // 0 unknown, 1 yes, -1 no
  // The call's deadline: a timer armed when the first attempt starts (policies with a deadline only).
  private volatile Future<?> deadlineTimer;
  private volatile boolean expired;
  // The attempt whose response is being handed to the caller's consumer once the loop has ended.
  private volatile AsyncAttemptState delivering;

  AsyncExchange(HttpClient5Retry owner, HttpRequest request, AsyncEntityProducer entityProducer,
      AsyncExecChain.Scope scope, AsyncExecChain chain, AsyncExecCallback callback) {
    this.owner = owner;
    this.rules = owner.rules();
    this.request = request;
    this.entityProducer = entityProducer;
    this.scope = scope;
    this.chain = chain;
    this.callback = new Reporting(callback);
    this.timeout = new AttemptTimeout(scope.clientContext);
    boolean policyHedges = owner.policy().hedging() != null;
    // A request the rules will not repeat, or one with an entity, is never hedged: see the class comment.
    this.hedged = policyHedges && entityProducer == null && repeatable();
    this.executor = hedged || !policyHedges ? owner.asyncExecutor() : owner.unhedgedExecutor();
    this.byResponse = hedged ? Collections.synchronizedMap(new IdentityHashMap<>()) : null;
    this.attempts = hedged ? Collections.synchronizedList(new ArrayList<>(2)) : null;
  }

  /** Starts the call: the first attempt now, on this thread; retries on the loop's scheduler. */
  void begin() {
    scope.cancellableDependency.setDependency(this); // cancels at once if the caller already has
    if (cancelled) {
      callback.failed(new java.util.concurrent.CancellationException("the call was cancelled before it started"));
      return;
    }
    CompletableFuture<HttpResponse> started = RetryLoops.async(executor, this, this);
    call = started;
    if (cancelled) {
      started.cancel(true); // cancelled while the first attempt was starting
    }
    started.whenComplete(this::finish);
  }

  /** The caller cancelled its future: the loop stops (no attempt starts after this returns). */
  @Override
  public boolean cancel() {
    cancelled = true;
    CompletableFuture<HttpResponse> started = call;
    if (started != null) {
      started.cancel(true);
    }
    return true;
  }

  @Override
  public CompletionStage<HttpResponse> start(AttemptContext context) {
    if (context.attempt() == 1 && deadlineTimer == null) {
      long left = context.nanosLeft();
      if (left != AttemptContext.NO_DEADLINE) {
        try {
          deadlineTimer = executor.scheduler().schedule(this::expire, left);
        } catch (RuntimeException rejected) {
          // A scheduler that takes no more tasks: the loop's own waits fail on it too; each read is still
          // bounded by the response timeout cut to the time left.
        }
      }
    }
    if (hedged) {
      return startHedged(context);
    }
    int number = context.attempt();
    HttpRequest attemptRequest = request;
    if (number > 1) {
      // As HttpClient's own retry: a fresh copy of the original request (the chain adds headers to what it
      // sends), the producer reset so that it writes the entity again, and the execution count moved on.
      attemptRequest = BasicRequestBuilder.copy(scope.originalRequest).build();
      if (entityProducer != null) {
        entityProducer.releaseResources();
      }
      scope.execCount.incrementAndGet();
    }
    timeout.shorten(context.nanosLeft());
    AsyncAttemptState attempt = new AsyncAttemptState(this, number, context, false, scope.execRuntime,
        scope.clientContext);
    current = attempt;
    AsyncExecChain.Scope attemptScope = new AsyncExecChain.Scope(scope.exchangeId, scope.route,
        scope.originalRequest, attempt.dependency(), scope.clientContext, scope.execRuntime, scope.scheduler,
        scope.execCount);
    try {
      chain.proceed(attemptRequest, entityProducer, attemptScope, attempt);
    } catch (HttpException | IOException | RuntimeException e) {
      attempt.failed(e);
    }
    return attempt.stage();
  }

  /**
   * A hedged attempt: a scope of its own (its own runtime, forked from the call's, so its own connection;
   * its own context; its own cancellable), a fresh copy of the original request after the first, and no
   * entity (requests with one are not hedged). May run while other attempts of the call are in flight.
   */
  private CompletionStage<HttpResponse> startHedged(AttemptContext context) {
    int number = context.attempt();
    HttpRequest attemptRequest = request;
    if (number > 1) {
      attemptRequest = BasicRequestBuilder.copy(scope.originalRequest).build();
      scope.execCount.incrementAndGet();
    }
    HttpClientContext attemptContext = AttemptContexts.copyOf(scope.clientContext);
    RequestConfig shortened = AttemptTimeout.shortened(attemptContext.getRequestConfig(), context.nanosLeft());
    if (shortened != null) {
      attemptContext.setRequestConfig(shortened);
    }
    AsyncAttemptState attempt = new AsyncAttemptState(this, number, context, true, scope.execRuntime.fork(),
        attemptContext);
    attempts.add(attempt);
    AsyncExecChain.Scope attemptScope = new AsyncExecChain.Scope(scope.exchangeId, scope.route,
        scope.originalRequest, attempt.dependency(), attemptContext, attempt.runtime(), scope.scheduler,
        scope.execCount);
    try {
      chain.proceed(attemptRequest, null, attemptScope, attempt);
    } catch (HttpException | IOException | RuntimeException e) {
      attempt.failed(e);
    }
    return attempt.stage();
  }

  /**
   * The deadline has passed and the caller has no outcome yet. Attempts in flight (waiting for a connection,
   * for a response, or reading a body ahead) end with a timeout, so the loop stops on its deadline as after
   * any timeout; a body already going to the caller's consumer is cut off (its connection closed) and the
   * call fails with the same timeout. Either way nothing of the call runs on past its deadline.
   */
  private void expire() {
    if (callback.ended()) {
      return;
    }
    expired = true;
    AsyncAttemptState handedOver = delivering;
    if (handedOver == null) {
      List<AsyncAttemptState> inFlight;
      if (hedged) {
        synchronized (attempts) {
          inFlight = new ArrayList<>(attempts);
        }
      } else {
        AsyncAttemptState attempt = current;
        inFlight = attempt == null ? List.of() : List.of(attempt);
      }
      for (AsyncAttemptState attempt : inFlight) {
        attempt.expire(deadlinePassed(null));
      }
      return;
    }
    handedOver.expire(deadlinePassed(null));
    callback.failed(deadlinePassed(null)); // in case the client reports nothing for a closed connection
  }

  /** What a call whose deadline passed before its response was complete fails with. */
  SocketTimeoutException deadlinePassed(Exception cause) {
    SocketTimeoutException timeout = new SocketTimeoutException("the call's deadline (maxElapsed "
        + owner.policy().maxElapsed() + ") passed before its response was complete");
    if (cause != null) {
      timeout.initCause(cause);
    }
    return timeout;
  }

  /** Hedged: {@code attempt} received {@code response} (called before the loop can see it). */
  void responded(HttpResponse response, AsyncAttemptState attempt) {
    byResponse.put(response, attempt);
  }

  /** The attempt that produced {@code response}: the current one, unless attempts overlap (hedging). */
  private AsyncAttemptState attemptOf(HttpResponse response) {
    return hedged ? byResponse.get(response) : current;
  }

  /** A response retried after, or one nobody will read: released within the read-ahead bound. */
  @Override
  public void discard(HttpResponse response) {
    if (hedged) {
      AsyncAttemptState attempt = byResponse.get(response);
      if (attempt != null) {
        attempt.drop(); // the loop discards a hedged call's result only once it can never be the outcome
      }
      return;
    }
    AsyncAttemptState attempt = current; // attempts are sequential: the one that produced this response
    if (attempt != null) {
      attempt.discard();
    }
  }

  @Override
  public Verdict judge(RetryPolicy<HttpResponse> policy, HttpResponse response, Throwable failure) {
    if (cancelled) {
      return Verdict.stop(StopReason.CANCELLED);
    }
    AsyncAttemptState attempt = attemptOf(response);
    if (failure != null) {
      if (attempt != null && attempt.forwarded()) {
        // The response was the caller's already (its consumer has part of the body): it cannot be repeated.
        return Verdict.stop(StopReason.NOT_RETRYABLE);
      }
      return HttpVerdicts.failure(repeatable(), failure);
    }
    if (!rules.isRetryStatus(response.getCode())) {
      return Verdict.ACCEPT;
    }
    // The verdict the read-ahead decision was taken with as the head arrived (Retry-After read once): where
    // that decision said "no retry" (the response went straight to the caller), the engine stops too.
    Verdict judged = attempt == null ? null : attempt.verdict();
    return judged != null ? judged : judgeHead(response);
  }

  /** The verdict on a response's head (its status and headers), judged once per response. */
  Verdict judgeHead(HttpResponse head) {
    if (!rules.isRetryStatus(head.getCode())) {
      return Verdict.ACCEPT; // the success path: no view, no clock
    }
    return HttpVerdicts.response(rules, owner.policy(), repeatable(), Views.response(head));
  }

  /** Whether a retry may follow a response judged {@code verdict}: the engine's side-effect-free preview. */
  boolean mayRetry(Verdict verdict, int attempt, AttemptContext context) {
    return HttpVerdicts.mayRetry(owner.policy(), verdict, attempt, context);
  }

  /** The call is over: hand its outcome to the caller's callback. */
  private void finish(HttpResponse response, Throwable failure) {
    timeout.restore();
    if (hedged) {
      finishHedged(response, failure);
      return;
    }
    AsyncAttemptState attempt = current;
    if (failure != null) {
      Throwable cause = unwrap(failure);
      if (attempt != null) {
        attempt.abandon();
      }
      callback.failed(cause instanceof Exception ? (Exception) cause : new ExecutionException(cause));
      return;
    }
    delivering = attempt;
    attempt.handOver();
  }

  /**
   * Hedged: the winner's response goes to the caller (and its context's state to the caller's context);
   * every other attempt's kept bytes are dropped. The loop cancelled the attempts still in flight.
   */
  private void finishHedged(HttpResponse response, Throwable failure) {
    AsyncAttemptState winner = failure == null ? byResponse.get(response) : null;
    List<AsyncAttemptState> started;
    synchronized (attempts) {
      started = new ArrayList<>(attempts);
    }
    byResponse.clear();
    for (AsyncAttemptState attempt : started) {
      if (attempt != winner) {
        attempt.drop();
      }
    }
    if (failure != null) {
      Throwable cause = unwrap(failure);
      callback.failed(cause instanceof Exception ? (Exception) cause : new ExecutionException(cause));
      return;
    }
    if (winner == null) { // cannot happen: every response the loop sees was mapped on arrival
      callback.failed(new IllegalStateException("the hedged call ended with a response of no attempt: " + response));
      return;
    }
    AttemptContexts.copyBack(winner.clientContext(), scope.clientContext);
    delivering = winner;
    winner.handOver();
  }

  private boolean repeatable() {
    int known = repeatable;
    if (known == 0) {
      known = rules.isRepeatable(this) ? 1 : -1;
      repeatable = known;
    }
    return known > 0;
  }

  HttpRules rules() {
    return rules;
  }

  AsyncExecCallback callback() {
    return callback;
  }

  AsyncExecChain.Scope scope() {
    return scope;
  }

  /**
   * The caller's callback, told of the call's end once: by the exchange, or by the deadline's timer if the
   * connection it closed is never reported. Once the deadline has passed, a failure is reported as the
   * deadline's timeout (the client's own failure for the closed connection is its cause).
   */
  private final class Reporting extends ForwardingCallback {
    private final AtomicBoolean ended = new AtomicBoolean();

    Reporting(AsyncExecCallback caller) {
      super(caller);
    }

    boolean ended() {
      return ended.get();
    }

    @Override
    public void completed() {
      if (ended.compareAndSet(false, true)) {
        stopTimer();
        delegate.completed();
      }
    }

    @Override
    public void failed(Exception cause) {
      if (ended.compareAndSet(false, true)) {
        stopTimer();
        delegate.failed(expired && !(cause instanceof SocketTimeoutException) ? deadlinePassed(cause) : cause);
      }
    }

    private void stopTimer() {
      Future<?> timer = deadlineTimer;
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; depth < 16 && (t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null; depth++) {
      t = t.getCause();
    }
    return t;
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String header(String name) {
    return Views.firstHeader(request, name);
  }

  @Override
  public boolean bodyRepeatable() {
    return entityProducer == null || entityProducer.isRepeatable();
  }
}
