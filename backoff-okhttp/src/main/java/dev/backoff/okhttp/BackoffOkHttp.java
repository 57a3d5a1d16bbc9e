package dev.backoff.okhttp;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.RetryLoops;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.WaitHeader;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Backoff for OkHttp: retries what is safe and worth retrying under a {@link RetryPolicy}, with the HTTP
 * rules every Backoff adapter shares ({@link HttpRules}: statuses, methods, {@code Retry-After},
 * failures). Two ways in, on the core's two loops:
 *
 * <ul>
 *   <li><b>{@link #interceptor()}</b>, an application interceptor, for calls run with
 *       {@code Call.execute()}: it retries inside the call, on the calling thread, sleeping between
 *       attempts. {@code Call.cancel()} stops it (no attempt starts after it; a retry waiting to start
 *       wakes within about {@value #CANCEL_CHECK_MILLIS} ms and the call fails with OkHttp's
 *       {@code IOException("Canceled")}), and the call's own timeout ({@code callTimeout}) is the call's
 *       deadline: the engine never waits past it.
 *   <li><b>{@link #enqueue(Call.Factory, Request)}</b>, for asynchronous calls: each attempt is a call of
 *       its own, {@code enqueue}d, and the waits in between are tasks on a scheduler, so no thread is held
 *       while waiting. Cancelling the returned future cancels the attempt in flight or the pending retry.
 * </ul>
 *
 * <p>Which to use: the interceptor for synchronous code (it also works with {@code Call.enqueue}, but then
 * holds one of OkHttp's dispatcher threads, and a slot of the dispatcher's per-host limit, for the whole
 * wait); {@code enqueue} here for asynchronous code. Do not combine them on one client: the calls made by
 * {@code enqueue} would each be retried again by the interceptor.
 *
 * <pre>{@code
 * BackoffOkHttp backoff = BackoffOkHttp.of(RetryPolicy.<Response>builder()
 *     .maxAttempts(4).maxElapsed(Duration.ofSeconds(20)).build());
 * OkHttpClient client = backoff.install(new OkHttpClient.Builder()).build();
 * try (Response response = client.newCall(request).execute()) { ... }
 * }</pre>
 *
 * <h2>Outcomes</h2>
 * As OkHttp does without retries: the response that is not retried, or the <b>last response</b> when
 * retries stop on one (check {@link Response#code()}); the last failure, unchanged, when retries stop on a
 * failure (earlier failures and a {@link RetryHistory} attached as suppressed exceptions). Every response
 * retried after is closed. Why a call stopped goes to the policy's listeners with a {@link StopReason}.
 *
 * <h2>Bodies</h2>
 * The decision is made on the status and headers alone. When a retry is possible, the body is first read
 * ahead into OkHttp's buffer, up to the rules' {@linkplain HttpRules#readAheadLimit() read-ahead limit}
 * (64 KiB by default): a body that ends within it leaves its connection for the next attempt. A longer body
 * is not buffered further: the response is closed, OkHttp may skip (not keep) a little more of it trying to
 * save the connection, then drops the connection. A response that is not retried after all (a budget
 * refusal) is handed to the caller unchanged, its body still whole and unread. Nothing here holds more than
 * the limit (and one read's worth) of a body in memory.
 *
 * <h2>Requests</h2>
 * GET, HEAD, OPTIONS, PUT, DELETE and TRACE are repeated; other methods need an {@code Idempotency-Key}
 * header or the rules' opt-in. A one-shot or duplex request body is never sent twice. A failure before the
 * request was sent (a refused connection, a connect timeout) is retried for any request.
 *
 * <h2>OkHttp's own retries and the deadline</h2>
 * Each attempt is one exchange: OkHttp's retry of a lost connection ({@code retryOnConnectionFailure}) is
 * off for Backoff's calls, and the {@linkplain #networkInterceptor() network guard} keeps OkHttp's follow-up
 * step from resending a 503 that says {@code Retry-After: 0} (and from failing on a {@code Retry-After} past
 * an {@code int}); {@link #install} adds it, {@code enqueue} adds it to a copy of the client. The policy's
 * {@code maxElapsed} ends the call as OkHttp's {@code callTimeout} does (the shorter of the two wins): the
 * attempts, the waits, the reading ahead and the caller's read of the last body.
 *
 * <p>Immutable and thread-safe; make one per policy and share it.
 */
public final class BackoffOkHttp {
  /** How often, at most, a synchronous retry waiting to start checks whether its call was cancelled: 20 ms. */
  public static final int CANCEL_CHECK_MILLIS = 20;

  private final RetryPolicy<Response> policy;
  private final HttpRules rules;
  private final RetryExecutor<Response> sync;
  private final AsyncRetryExecutor<Response> async;
  private final AsyncRetryExecutor<Response> unhedged; // for requests that must not be repeated
  private final RetryInterceptor interceptor;
  private final long maxElapsedNanos; // Long.MAX_VALUE for no deadline
  private volatile GuardedClient lastGuarded; // the client enqueue last ran on, and its guarded copy

  /** A client passed to {@code enqueue} and the copy of it that the calls run on. */
  private record GuardedClient(OkHttpClient given, OkHttpClient guarded) {}

  private BackoffOkHttp(Builder builder) {
    this.rules = builder.rules;
    this.policy = rules.applyTo(builder.policy, Response::code);
    this.sync = RetryExecutor.of(policy);
    this.async = AsyncRetryExecutor.of(policy,
        builder.scheduler == null ? AsyncRetryExecutor.defaultScheduler() : builder.scheduler);
    this.unhedged = policy.hedging() == null ? async : AsyncRetryExecutor.of(policy.toBuilder().hedging(null).build(),
        async.scheduler());
    this.interceptor = new RetryInterceptor(this);
    Duration maxElapsed = policy.maxElapsed();
    this.maxElapsedNanos = maxElapsed == null ? Long.MAX_VALUE : maxElapsed.toNanos();
  }

  /**
   * Backoff for OkHttp with this policy and the default HTTP rules ({@link HttpRules#defaults()}).
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static BackoffOkHttp of(RetryPolicy<Response> policy) {
    return builder().policy(policy).build();
  }

  /** A builder: the default policy ({@link RetryPolicy#defaults()}) and rules until set. */
  public static Builder builder() {
    return new Builder();
  }

  /** The policy in force: the caller's, with the HTTP rules for statuses and failures added. */
  public RetryPolicy<Response> policy() {
    return policy;
  }

  /** The HTTP rules in force. */
  public HttpRules rules() {
    return rules;
  }

  /**
   * The application interceptor: add it with {@link #install}, or with
   * {@link OkHttpClient.Builder#addInterceptor} together with the {@linkplain #networkInterceptor() network
   * guard} (without the guard, OkHttp itself resends a 503 that says {@code Retry-After: 0}, and a
   * {@code Retry-After} past an {@code int} fails the attempt with a {@code ProtocolException}). As a network
   * interceptor, which sees one connection's exchange and may not repeat it, it refuses to run: the call
   * fails with an {@link IllegalStateException}. The same instance every time.
   *
   * @throws IllegalStateException if the policy hedges: the interceptor runs one attempt at a time on the
   *     caller's thread (hedged calls go through {@link #enqueue})
   */
  public Interceptor interceptor() {
    refuseHedgingForInterceptor();
    return interceptor;
  }

  /**
   * The interceptor runs each call on the caller's thread, one attempt after another, so it cannot have two
   * attempts in flight: a hedging policy is refused when the interceptor is taken, before any client is
   * built with it, rather than at the first request.
   */
  private void refuseHedgingForInterceptor() {
    if (policy.hedging() != null) {
      throw new IllegalStateException("policy '" + policy.name() + "' hedges (" + policy.hedging() + "), which the "
          + "interceptor cannot do: it runs one attempt at a time on the calling thread. Send hedged requests "
          + "with enqueue(client, request), which hedges, or give the interceptor a policy without hedging");
    }
  }

  /**
   * The network interceptor that keeps OkHttp from repeating a call on its own: OkHttp's follow-up step sends
   * a request again, whatever its method, when a 503 says {@code Retry-After: 0}, and fails with a
   * {@code NumberFormatException} on a {@code Retry-After} past an {@code int}; this interceptor hides
   * {@code Retry-After} from that step on the calls Backoff makes, and Backoff reads it instead. It leaves
   * other calls alone. The same instance for every {@code BackoffOkHttp}; {@link #install} adds it.
   */
  public Interceptor networkInterceptor() {
    return FollowUpGuard.INSTANCE;
  }

  /**
   * Adds this adapter to a client's builder: the {@linkplain #interceptor() interceptor} as an application
   * interceptor (after those already added) and the {@linkplain #networkInterceptor() network guard} (once).
   * The way to build a client whose calls {@code execute()} with retries.
   *
   * @return {@code builder}
   * @throws NullPointerException if {@code builder} is null
   * @throws IllegalStateException if the policy hedges (see {@link #interceptor()})
   */
  public OkHttpClient.Builder install(OkHttpClient.Builder builder) {
    Objects.requireNonNull(builder, "builder must not be null");
    builder.addInterceptor(interceptor());
    if (!builder.networkInterceptors().contains(FollowUpGuard.INSTANCE)) {
      builder.addNetworkInterceptor(FollowUpGuard.INSTANCE);
    }
    return builder;
  }

  /**
   * Sends {@code request} asynchronously with retries, holding no thread while waiting to retry: each
   * attempt is {@code client.newCall(request).enqueue(...)}, and retries are scheduled on the
   * {@linkplain Builder#scheduler scheduler}. The client's own timeouts apply to each attempt; the policy's
   * {@code maxElapsed} bounds the whole, each attempt's call (and the read of the body the caller gets)
   * ending at the deadline as by OkHttp's call timeout. Pass a client without this adapter's
   * {@linkplain #interceptor() interceptor}. An {@link OkHttpClient} is used through a copy (sharing its
   * dispatcher, pool and settings) with OkHttp's connection retry off and the {@linkplain #networkInterceptor()
   * network guard} added, so OkHttp never repeats an attempt by itself; another {@link Call.Factory} is used
   * as it is.
   *
   * <p>With a policy that {@linkplain RetryPolicy.Builder#hedging hedges}, another call is enqueued when none
   * has answered within the hedging delay (see {@link dev.backoff.Hedging}); the first response the rules
   * accept wins and the other calls are cancelled. A request that may not be repeated is never hedged. The
   * {@linkplain #interceptor() interceptor} runs on the caller's thread and cannot hedge: under a hedging
   * policy, taking it (or {@link #install}) fails with an {@link IllegalStateException}.
   *
   * <p>Cancelling the returned future (or completing it, as {@code orTimeout} does) ends the call: the
   * attempt in flight is cancelled ({@code Call.cancel()}), no further attempt starts, and a response that
   * still arrives is closed. The caller must close the response it gets.
   *
   * @return a future completed with the response (the last one, when retries stop on a response) or with
   *     the last failure, unchanged
   * @throws NullPointerException if an argument is null
   */
  public CompletableFuture<Response> enqueue(Call.Factory client, Request request) {
    return new AsyncExchange(this, client, request).start();
  }

  /**
   * As {@link #enqueue(Call.Factory, Request)}, reporting to an OkHttp {@link Callback} with the last
   * attempt's call: {@code onResponse} with the response (the callback must close it), {@code onFailure}
   * with the last failure (wrapped in an {@link IOException} if it is not one; a cancelled call reports
   * {@code IOException("Canceled")}).
   *
   * @return the call's future, also the handle to cancel it
   * @throws NullPointerException if an argument is null
   */
  public CompletableFuture<Response> enqueue(Call.Factory client, Request request, Callback callback) {
    Objects.requireNonNull(callback, "callback must not be null");
    AsyncExchange exchange = new AsyncExchange(this, client, request);
    CompletableFuture<Response> call = exchange.start();
    call.whenComplete((response, failure) -> {
      Call last = exchange.lastCall(response);
      if (failure == null) {
        try {
          callback.onResponse(last, response);
        } catch (IOException e) {
          response.close(); // the callback failed before it could close the response
          callback.onFailure(last, e);
        }
      } else {
        callback.onFailure(last, AsyncExchange.asIoException(failure));
      }
    });
    return call;
  }

  /**
   * The factory attempts are made with: for an {@link OkHttpClient}, a copy sharing its dispatcher, pool and
   * settings, with OkHttp's own connection retry off and the {@linkplain #networkInterceptor() network
   * guard} added (the client itself if it has both already); the last one made is kept for the next call.
   * Another factory is used as it is.
   */
  Call.Factory guarded(Call.Factory factory) {
    if (!(factory instanceof OkHttpClient client)) {
      return factory;
    }
    GuardedClient last = lastGuarded;
    if (last != null && last.given() == client) {
      return last.guarded();
    }
    OkHttpClient guarded = !client.retryOnConnectionFailure() && client.networkInterceptors().contains(FollowUpGuard.INSTANCE)
        ? client
        : client.newBuilder().retryOnConnectionFailure(false).addNetworkInterceptor(FollowUpGuard.INSTANCE).build();
    lastGuarded = new GuardedClient(client, guarded);
    return guarded;
  }

  HttpRules httpRules() {
    return rules;
  }

  AsyncRetryExecutor<Response> asyncExecutor() {
    return async;
  }

  /** The asynchronous executor without hedging, for requests that must not be sent twice. */
  AsyncRetryExecutor<Response> unhedgedExecutor() {
    return unhedged;
  }

  /**
   * The synchronous executor for a call: the policy's, or, for a call with a timeout, the policy with its
   * deadline shortened to that timeout (the engine then never waits past it: it stops on the last outcome).
   * The shortened one is a cheap per-call copy sharing the policy's settings; a call without a timeout, or
   * whose policy's deadline is no longer, uses the shared executor and allocates nothing here.
   */
  RetryExecutor<Response> syncExecutor(long callTimeoutNanos) {
    return callTimeoutNanos <= 0 ? sync : RetryLoops.within(sync, callTimeoutNanos);
  }

  /** Runs one intercepted call on the synchronous loop. */
  Response intercept(Interceptor.Chain chain) throws IOException {
    if (chain.connection() != null) {
      throw new IllegalStateException("BackoffOkHttp.interceptor() was added with addNetworkInterceptor, where an"
          + " exchange may not be repeated: add it with addInterceptor, or build the client with install(builder)");
    }
    Call call = chain.call();
    RetryExecutor<Response> executor = syncExecutor(call.timeout().timeoutNanos());
    InterceptedCall attempt = new InterceptedCall(rules, executor.policy(), chain, maxElapsedNanos);
    Response response;
    try {
      response = RetryLoops.sync(executor, attempt, attempt);
    } catch (java.util.concurrent.CancellationException e) {
      throw canceled(e);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (InterruptedException e) {
      // The loop set the thread's interrupt flag again; OkHttp's callers expect an IOException.
      java.io.InterruptedIOException interrupted =
          new java.io.InterruptedIOException("interrupted while waiting to retry");
      interrupted.initCause(e);
      throw interrupted;
    } catch (Exception e) {
      throw new IOException(e); // the attempt throws nothing else; kept for the compiler
    }
    if (call.isCanceled()) {
      response.close(); // cancelled while the last attempt was answered: OkHttp's contract is a failure
      throw new IOException("Canceled");
    }
    return response;
  }

  private static IOException canceled(Throwable cause) {
    IOException canceled = new IOException("Canceled");
    canceled.initCause(cause);
    return canceled;
  }

  /** The interceptor: one instance per {@link BackoffOkHttp}, stateless apart from it. */
  private static final class RetryInterceptor implements Interceptor {
    private final BackoffOkHttp owner;

    RetryInterceptor(BackoffOkHttp owner) {
      this.owner = owner;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
      return owner.intercept(chain);
    }

    @Override
    public String toString() {
      return "BackoffOkHttp interceptor (" + owner.policy + ", " + owner.rules + ")";
    }
  }

  /**
   * Builds a {@link BackoffOkHttp}. Each setter validates its argument at once and names it in the message.
   * Not thread-safe; what it builds is.
   */
  public static final class Builder {
    private RetryPolicy<Response> policy = RetryPolicy.defaults();
    private HttpRules rules = HttpRules.defaults();
    private WaitHeader[] waitHeaders; // null: the rules' own
    private ScheduledExecutorService scheduler;

    private Builder() {}

    /**
     * The policy: attempts, deadline, backoff (per failure class too), maximum pushback (the longest
     * {@code Retry-After} honoured), budget, listeners, clock, sleeper and random source. Its result rules
     * are replaced by the HTTP status rules; its failure rules are combined with the HTTP ones.
     *
     * @throws NullPointerException if {@code policy} is null
     */
    public Builder policy(RetryPolicy<Response> policy) {
      this.policy = Objects.requireNonNull(policy, "policy must not be null");
      return this;
    }

    /**
     * The HTTP rules: statuses, methods, maximum {@code Retry-After}, read-ahead limit, wall clock. Default
     * {@link HttpRules#defaults()}.
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
     * Where {@link BackoffOkHttp#enqueue} schedules its retries. Its tasks only enqueue the next attempt
     * (they never block), so one thread serves many calls. Default:
     * {@link AsyncRetryExecutor#defaultScheduler()}, the library's shared daemon thread.
     *
     * @throws NullPointerException if {@code scheduler} is null
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
      return this;
    }

    /** Builds it. */
    public BackoffOkHttp build() {
      if (waitHeaders != null) {
        rules = rules.toBuilder().waitHeaders(waitHeaders).build();
        waitHeaders = null;
      }
      return new BackoffOkHttp(this);
    }
  }
}
