package dev.backoff.grpc;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.FailureClass;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.RetryLoops;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * A {@link ClientInterceptor} that retries unary calls under a {@link RetryPolicy}, and hedges them under a
 * policy with hedging, on Backoff's asynchronous retry loop: no thread is held while waiting, and each
 * attempt is a new call on the next channel in the chain. Immutable and thread-safe; share one per channel
 * (or per application).
 *
 * <pre>{@code
 * ManagedChannel channel = ManagedChannelBuilder.forTarget(target)
 *     .disableRetry()                                      // Backoff retries; gRPC's own retry would multiply attempts
 *     .intercept(GrpcRetryInterceptor.of(RetryPolicy.<Object>builder().maxAttempts(4).build()))
 *     .build();
 * }</pre>
 *
 * <h2>What is retried (or hedged)</h2>
 * <ul>
 *   <li>Only unary calls. Streaming calls (client, server or bidirectional) pass through untouched: their
 *       messages cannot be replayed without buffering whole streams.
 *   <li>Calls that end with a retryable status code: by default {@code UNAVAILABLE} and
 *       {@code RESOURCE_EXHAUSTED}; {@link Builder#retryOn} adds codes (such as {@code DEADLINE_EXCEEDED},
 *       for attempts cut by the {@linkplain Builder#attemptTimeout attempt timeout} or a server's own
 *       deadline), {@link Builder#retryOnlyOn} replaces the set. A call whose own deadline has passed is
 *       never retried.
 *   <li>A status outside the set is never retried. The policy's abort rules still apply to the status
 *       exceptions (and win over the codes); its own retry rules decide only failures that carry no status
 *       (an exception thrown while starting an attempt). Its failure classifier is replaced: {@code RESOURCE_EXHAUSTED} is
 *       {@link FailureClass#THROTTLED}, {@code DEADLINE_EXCEEDED} {@link FailureClass#TIMEOUT}, every other
 *       code {@link FailureClass#TRANSIENT} (a failure without a status too, except the
 *       {@code TimeoutException} of the policy's own attempt timeout, {@link FailureClass#TIMEOUT} as for
 *       every driver), so the policy can give each class its own backoff and a
 *       budget its own cost. A response message is accepted unless the policy's {@code retryOnResult}
 *       matches it.
 * </ul>
 *
 * <h2>Hedging</h2>
 * With a policy that {@linkplain RetryPolicy.Builder#hedging hedges} (see {@link dev.backoff.Hedging}), a
 * unary call whose attempt has not answered within the hedging delay gets another attempt alongside it,
 * each a new call on the next channel with the same request message and headers
 * ({@code grpc-previous-rpc-attempts} counts the attempts started before it), up to the policy's
 * {@code maxAttempts} (or the hedging's {@code maxHedges} hedges):
 * <ul>
 *   <li>Each attempt's response (headers, message, trailers) is kept until the attempt is judged; only the
 *       winner's reaches the caller's listener. The first attempt that ends {@code OK} (with a message the
 *       policy's {@code retryOnResult} does not match) wins, and every other attempt in flight is cancelled
 *       ({@link ClientCall#cancel}: the server sees the cancellation); their answers are ignored.
 *   <li>A retryable status code (the same set as for retries, gRPC's "non-fatal" codes) starts the next
 *       hedge at once, without the policy's backoff. Any other status is fatal: it ends the call with that
 *       status at once and cancels the other attempts.
 *   <li>A pushback on a retryable status delays the next hedge by the hint; a "do not retry" hint or one
 *       longer than {@code maxPushback} stops further hedges, and the attempts in flight go on.
 *   <li>Every hedge is an attempt: it counts towards {@code maxAttempts} and is charged to the policy's
 *       retry budget (a hedge the budget refuses is not sent, nor is any later one); listeners hear
 *       {@code onHedgeSent} and {@code onHedgeWon}.
 *   <li>No hedge starts once the call's deadline has passed, and cancelling the call cancels every attempt
 *       in flight: no attempt starts after it.
 * </ul>
 * Only methods that may be executed more than once are hedged: by default those whose descriptor says they
 * are {@linkplain MethodDescriptor#isIdempotent() idempotent} or {@linkplain MethodDescriptor#isSafe() safe}
 * (protobuf's {@code idempotency_level} option); {@link Builder#hedgeIf} widens or narrows the set. Every
 * other unary method runs unhedged under the same policy, one attempt at a time and retried as usual, as the
 * HTTP adapters send a POST; a hedged request may be executed by the server more than once. Streaming calls
 * are never hedged, as they are never retried.
 *
 * <h2>Server pushback</h2>
 * A retryable status's {@code grpc-retry-pushback-ms} trailer is the engine's pushback hint: the wait is
 * {@code max(pushback, backoff)} (gRPC's own retry waits exactly the pushback; Backoff never waits less than
 * its backoff). A pushback longer than the policy's {@link RetryPolicy.Builder#maxPushback maxPushback}
 * ends the call at once ({@link StopReason#PUSHBACK_TOO_LONG}); a negative or malformed value means "do not
 * retry", as gRPC specifies ({@link StopReason#PUSHBACK}).
 *
 * <h2>Deadlines</h2>
 * The call's deadline (the sooner of its {@link CallOptions} deadline and its {@link io.grpc.Context}'s)
 * bounds the whole call: every attempt carries it, and the policy's deadline is shortened to it for this
 * call, so no wait that would end past it is started ({@link StopReason#DEADLINE_EXCEEDED}; the caller then
 * gets the last attempt's status). Each attempt's own deadline is also shortened to the policy's time left
 * and to the {@linkplain Builder#attemptTimeout attempt timeout}, if set.
 *
 * <h2>Cancellation</h2>
 * Cancelling the call (the stub's future, {@link ClientCall#cancel}, or the caller's {@link io.grpc.Context})
 * cancels the attempt in flight (every one, when hedging) or the pending retry or hedge; no attempt starts
 * after it, and the caller's listener is closed with {@code CANCELLED} (or the context's status).
 *
 * <h2>Outcome</h2>
 * The caller's listener sees what a plain call would: on success the successful attempt's headers, its one
 * message and its trailers; on failure the last attempt's status and trailers. That status's cause is the
 * last attempt's exception, which carries the earlier attempts' exceptions and a {@link RetryHistory} as
 * suppressed exceptions: {@link #historyOf} finds it from the exception a stub throws. Retries carry the
 * header {@code grpc-previous-rpc-attempts}, as gRPC's own retries do. Listener callbacks run on the call's
 * {@linkplain CallOptions#getExecutor() executor} when it has one (a blocking stub's), else on the thread
 * that ended the call.
 *
 * <h2>gRPC's own retry</h2>
 * Each attempt is an ordinary call on the next channel, so a channel whose service config has a retry or
 * hedging policy would retry or hedge each attempt again (up to its own {@code maxAttempts} times ours).
 * Build such channels with {@code disableRetry()}, or keep those policies out of their service config;
 * gRPC's transparent retry of attempts that never left the client is harmless.
 */
public final class GrpcRetryInterceptor implements ClientInterceptor {
  /** The default of {@link Builder#hedgeIf}: what the method's descriptor says may run more than once. */
  private static final Predicate<MethodDescriptor<?, ?>> IDEMPOTENT = method -> method.isIdempotent() || method.isSafe();

  private final RetryPolicy<Object> policy;
  private final Set<Status.Code> retryable;
  private final boolean[] retryableByCode;
  private final long attemptTimeoutNanos; // 0: none
  private final Deadline.Ticker ticker; // the clock an attempt's deadline is read on, in a call without its own
  private final boolean hedges;
  private final AsyncRetryExecutor<Object> executor;
  // For methods that may not be hedged: the policy without hedging (the same as executor when it does not hedge).
  private final AsyncRetryExecutor<Object> unhedged;
  private final Predicate<? super MethodDescriptor<?, ?>> hedgeable;

  private GrpcRetryInterceptor(Builder builder) {
    this.retryable = Collections.unmodifiableSet(EnumSet.copyOf(builder.retryable));
    this.retryableByCode = new boolean[Status.Code.values().length];
    for (Status.Code code : retryable) {
      retryableByCode[code.ordinal()] = true;
    }
    boolean[] codes = retryableByCode;
    this.policy = builder.policy.toBuilder()
        .retryIf(failure -> {
          Status status = GrpcStatusRules.statusOf(failure);
          return status != null && codes[status.getCode().ordinal()];
        })
        .classifyFailures(failure -> {
          Status status = GrpcStatusRules.statusOf(failure);
          if (status != null) {
            return GrpcStatusRules.classify(status.getCode());
          }
          // The policy's own attempt timeout ends an attempt with a TimeoutException (no status): a timeout,
          // as the core's default classifier (and so every other driver) charges it.
          return failure instanceof TimeoutException ? FailureClass.TIMEOUT : FailureClass.TRANSIENT;
        })
        .build();
    this.attemptTimeoutNanos = builder.attemptTimeoutNanos;
    this.ticker = builder.deadlineTicker;
    this.hedges = policy.hedging() != null;
    this.executor = AsyncRetryExecutor.of(policy, builder.scheduler);
    this.unhedged = hedges ? AsyncRetryExecutor.of(policy.toBuilder().hedging(null).build(), builder.scheduler)
        : executor;
    this.hedgeable = builder.hedgeable;
  }

  /**
   * An interceptor retrying under {@code policy}, with the default status codes and the shared default
   * scheduler.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static GrpcRetryInterceptor of(RetryPolicy<Object> policy) {
    return builder().policy(policy).build();
  }

  /** A builder: the default policy ({@link RetryPolicy#defaults()}), UNAVAILABLE and RESOURCE_EXHAUSTED. */
  public static Builder builder() {
    return new Builder();
  }

  /** The policy in force: the caller's, with the status-code rules and classifier described above. */
  public RetryPolicy<Object> policy() {
    return policy;
  }

  /** The status codes that are retried (an unmodifiable set). */
  public Set<Status.Code> retryableStatusCodes() {
    return retryable;
  }

  /**
   * The {@link RetryHistory} of a retried call that failed, found on {@code failure} or its causes (a stub's
   * {@code StatusRuntimeException} carries it on its cause, the last attempt's exception); null if none.
   * Causes are followed at most 16 deep.
   */
  public static RetryHistory historyOf(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      RetryHistory history = RetryHistory.of(t);
      if (history != null) {
        return history;
      }
    }
    return null;
  }

  /**
   * Returns a retrying call for unary methods, and {@code next}'s own call, untouched, for every other
   * method type.
   */
  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions, Channel next) {
    if (method.getType() != MethodDescriptor.MethodType.UNARY) {
      return next.newCall(method, callOptions);
    }
    // A method that may not be executed twice is never hedged: a hedge would run it again while it runs.
    return new RetryingUnaryCall<>(this, method, callOptions, next, hedges && hedgeable.test(method));
  }

  boolean retries(Status.Code code) {
    return retryableByCode[code.ordinal()];
  }

  /** The executor of a call that hedges (under a policy that hedges) or not. */
  AsyncRetryExecutor<Object> executor(boolean hedged) {
    return hedged ? executor : unhedged;
  }

  /**
   * The executor of a call that hedges or not, its policy's deadline at most {@code nanosLeft} (positive), the
   * call's own.
   */
  AsyncRetryExecutor<Object> executorWithin(boolean hedged, long nanosLeft) {
    return RetryLoops.within(executor(hedged), nanosLeft);
  }

  long attemptTimeoutNanos() {
    return attemptTimeoutNanos;
  }

  /**
   * A deadline {@code nanos} from now on the {@linkplain Builder#deadlineTicker deadline ticker}, for an attempt
   * of a call without a deadline of its own (gRPC cannot compare deadlines read on different tickers).
   */
  Deadline attemptDeadline(long nanos) {
    return Deadline.after(nanos, TimeUnit.NANOSECONDS, ticker);
  }

  @Override
  public String toString() {
    return "GrpcRetryInterceptor[" + policy + ", retrying " + retryable + "]";
  }

  /**
   * Builds a {@link GrpcRetryInterceptor}. Each setter validates its argument at once and names it in the
   * message. Not thread-safe; the interceptors it builds are.
   */
  public static final class Builder {
    private RetryPolicy<Object> policy = RetryPolicy.defaults();
    private final EnumSet<Status.Code> retryable = EnumSet.copyOf(GrpcStatusRules.DEFAULT_RETRYABLE);
    private ScheduledExecutorService scheduler = AsyncRetryExecutor.defaultScheduler();
    private Deadline.Ticker deadlineTicker = Deadline.getSystemTicker();
    private long attemptTimeoutNanos;
    private Predicate<? super MethodDescriptor<?, ?>> hedgeable = IDEMPOTENT;

    private Builder() {}

    /**
     * Which unary methods a policy with hedging may hedge; the others run one attempt at a time under the same
     * policy without its hedging (retried as usual). Default: the methods whose descriptor says they are
     * {@linkplain MethodDescriptor#isIdempotent() idempotent} or {@linkplain MethodDescriptor#isSafe() safe}
     * (protobuf's {@code idempotency_level} option, {@code IDEMPOTENT} or {@code NO_SIDE_EFFECTS}); a method
     * without that option is not hedged. Widen it only for methods the server may execute more than once.
     * Only for a policy that hedges: with another, {@link #build()} fails.
     *
     * @throws NullPointerException if {@code hedgeable} is null
     */
    public Builder hedgeIf(Predicate<? super MethodDescriptor<?, ?>> hedgeable) {
      this.hedgeable = Objects.requireNonNull(hedgeable, "hedgeable must not be null");
      return this;
    }

    /**
     * The policy: attempts, deadline, backoff (per failure class too), maximum pushback, budget, listeners,
     * clock and random source, and {@linkplain RetryPolicy.Builder#hedging hedging}, if set (unary calls are
     * then hedged, see the class description). Default {@link RetryPolicy#defaults()}.
     *
     * @throws NullPointerException if {@code policy} is null
     */
    public Builder policy(RetryPolicy<Object> policy) {
      this.policy = Objects.requireNonNull(policy, "policy must not be null");
      return this;
    }

    /**
     * Retries these status codes too (for example {@code DEADLINE_EXCEEDED}).
     *
     * @throws IllegalArgumentException if a code is {@code OK}
     * @throws NullPointerException if a code is null
     */
    public Builder retryOn(Status.Code... codes) {
      retryable.addAll(valid(codes));
      return this;
    }

    /**
     * Retries exactly these status codes (none: retry nothing but what the policy's own rules match),
     * replacing the default set.
     *
     * @throws IllegalArgumentException if a code is {@code OK}
     * @throws NullPointerException if a code is null
     */
    public Builder retryOnlyOn(Status.Code... codes) {
      Set<Status.Code> valid = valid(codes);
      retryable.clear();
      retryable.addAll(valid);
      return this;
    }

    private static Set<Status.Code> valid(Status.Code... codes) {
      Objects.requireNonNull(codes, "codes must not be null");
      EnumSet<Status.Code> set = EnumSet.noneOf(Status.Code.class);
      for (Status.Code code : codes) {
        Objects.requireNonNull(code, "status code must not be null");
        if (code == Status.Code.OK) {
          throw new IllegalArgumentException("status code OK is a success and cannot be retried");
        }
        set.add(code);
      }
      return set;
    }

    /**
     * The scheduler that starts retries (it only starts them, so one thread serves many calls). Default: the
     * core's shared scheduler ({@link AsyncRetryExecutor#defaultScheduler()}).
     *
     * @throws NullPointerException if {@code scheduler} is null
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
      return this;
    }

    /**
     * The clock on which gRPC reads the deadline this interceptor gives an attempt (the policy's time left, the
     * {@linkplain #attemptTimeout attempt timeout}) in a call without a deadline of its own. Default: the
     * system's ({@link Deadline#getSystemTicker()}). A test that runs the policy on a fake clock and the
     * channel's and server's timers on a fake scheduler (their {@code scheduledExecutorService}) gives the
     * same fake time here, so an attempt's deadline passes in the test's time and never while a slow machine
     * answers it. A call with a deadline of its own (its options' or its context's) keeps the system's for its
     * attempts too: gRPC cannot compare deadlines read on different tickers.
     *
     * @throws NullPointerException if {@code ticker} is null
     */
    public Builder deadlineTicker(Deadline.Ticker ticker) {
      this.deadlineTicker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /**
     * A deadline for each attempt, counted from its start (the call's own deadline still bounds the whole
     * call). An attempt cut by it ends with {@code DEADLINE_EXCEEDED}, retried only if that code is
     * {@linkplain #retryOn retryable}. Default: none.
     *
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is null
     */
    public Builder attemptTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "attemptTimeout must not be null");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("attemptTimeout must be positive, was " + timeout);
      }
      this.attemptTimeoutNanos = timeout.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE
          : timeout.toNanos();
      return this;
    }

    /**
     * Builds the interceptor.
     *
     * @throws IllegalArgumentException if {@code hedgeIf} is set but the policy does not hedge (it would
     *     have no effect)
     */
    public GrpcRetryInterceptor build() {
      if (hedgeable != IDEMPOTENT && policy.hedging() == null) {
        throw new IllegalArgumentException("hedgeIf has no effect: policy '" + policy.name() + "' does not hedge;"
            + " give the policy hedging (RetryPolicy.Builder.hedging) or leave hedgeIf out");
      }
      return new GrpcRetryInterceptor(this);
    }
  }
}
