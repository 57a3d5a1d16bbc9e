package dev.backoff.aws;

import dev.backoff.CircuitBreaker;
import dev.backoff.CircuitOpenException;
import dev.backoff.ConcurrencyLimitedException;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.FailureClass;
import dev.backoff.NanoClock;
import dev.backoff.Pushback;
import dev.backoff.RateLimitedException;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.CallState;
import dev.backoff.driver.Effect;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.lang.ref.Cleaner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import software.amazon.awssdk.retries.api.AcquireInitialTokenRequest;
import software.amazon.awssdk.retries.api.AcquireInitialTokenResponse;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RecordSuccessRequest;
import software.amazon.awssdk.retries.api.RecordSuccessResponse;
import software.amazon.awssdk.retries.api.RefreshRetryTokenRequest;
import software.amazon.awssdk.retries.api.RefreshRetryTokenResponse;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.retries.api.RetryToken;
import software.amazon.awssdk.retries.api.TokenAcquisitionFailedException;

/**
 * An AWS SDK for Java v2 {@link RetryStrategy} whose every decision is a Backoff {@link RetryPolicy}'s: whether
 * to retry, how long to wait, and what its budget, circuit breaker, adaptive rate limiter, deadline and
 * listeners say. The SDK runs the request loop and sleeps; this strategy only translates:
 * <ul>
 *   <li>the SDK's exception into an outcome, as the SDK's own strategies classify it: not retryable (no SDK
 *       retry predicate matches), {@link FailureClass#THROTTLED} (the SDK treats it as throttling) or
 *       {@link FailureClass#TRANSIENT} (anything else it retries);
 *   <li>the server's hint into the engine's pushback hint: the SDK's suggested delay (its reading of
 *       {@code Retry-After}), or, under AWS's 2026 behaviour, the response's {@code x-amz-retry-after}, which
 *       the SDK reads only for its own strategies;
 *   <li>the engine's decision into the SDK's answer: a delay (rounded up to whole milliseconds, as the SDK
 *       sleeps in milliseconds) or a {@link TokenAcquisitionFailedException} saying why the policy stopped.
 * </ul>
 *
 * <pre>{@code
 * DynamoDbClient client = DynamoDbClient.builder()
 *     .overrideConfiguration(o -> o.retryStrategy(
 *         AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).dynamoDb()
 *             .configurePolicy(policy -> policy.circuitBreaker(breaker).listener(metrics))
 *             .build()))
 *     .build();
 * }</pre>
 *
 * <p>The gate in front of every attempt (circuit breaker, concurrency limiter, rate limiter) is the engine's call
 * state machine's, asked through the driver SPI as every other driver asks it: a refused first attempt fails the
 * call with a {@link TokenAcquisitionFailedException} caused by the gate's own exception
 * ({@code CircuitOpenException}, {@code ConcurrencyLimitedException}, {@code RateLimitedException}), a refused
 * retry stops the call, and a wait for the rate limiter's token is the delay the SDK sleeps. The permit the gate
 * hands out (the breaker's, inside the concurrency limiter's slot) travels in the SDK's token and hears the
 * attempt's outcome when the SDK reports it. The SDK sends an attempt after its sleep without asking the
 * strategy again, so the gate for an attempt is asked when the SDK is handed the wait before it, and the permit
 * is held while the SDK sleeps. A call the SDK abandons without reporting its attempt (its sleep interrupted, its
 * future cancelled) gives the permit back when its token is garbage-collected.
 *
 * <p>Immutable and thread-safe: one strategy serves every call of a client (the budget, breaker and limiter
 * it shares are the policy's). A {@link RetryToken} it hands out belongs to one call.
 */
public final class AwsSdkRetryStrategy implements RetryStrategy {
  private final RetryPolicy<Object> policy;
  private final SdkOutcomes outcomes;
  private final boolean longPollBackoff;
  private final boolean xAmzRetryAfter;
  private final NanoClock clock;
  private final Builder settings;

  private AwsSdkRetryStrategy(Builder builder, RetryPolicy<Object> policy) {
    this.settings = builder.copy();
    this.outcomes = new SdkOutcomes(builder.sdkRules, builder.extraRetryPredicates, builder.treatAsThrottling,
        builder.retries2026);
    this.policy = policy.toBuilder().classifyFailures(outcomes::failureClass).build();
    this.longPollBackoff = builder.longPollBackoff;
    this.xAmzRetryAfter = builder.xAmzRetryAfter;
    this.clock = policy.clock();
  }

  /** A builder for a strategy under {@code policy} (the SDK's own retry rules classify the failures). */
  public static Builder builder(RetryPolicy<?> policy) {
    return new Builder().policy(policy);
  }

  /**
   * A builder for a strategy under a preset that matches one of the SDK's retry modes (see
   * {@link AwsRetryMode}): its attempts, backoffs, retry quota, rate limiter and {@code Retry-After} rule.
   */
  public static Builder builder(AwsRetryMode mode) {
    Objects.requireNonNull(mode, "mode must not be null");
    return new Builder().mode(mode);
  }

  /** The policy this strategy follows (with the SDK's failure classes as its classifier). */
  public RetryPolicy<Object> policy() {
    return policy;
  }

  /**
   * Input: start, then the gate in front of the first attempt (breaker, concurrency limiter, rate limiter), as
   * the engine answers it. The SDK sleeps the token's delay and then sends the attempt without asking again, so
   * a wait for the limiter's token is over, for the gate, when it is handed to the SDK: the breaker and the
   * concurrency limiter are asked again at once, and the permit they give is the attempt's (held in the token
   * until the SDK reports the attempt's outcome).
   */
  @Override
  public AcquireInitialTokenResponse acquireInitialToken(AcquireInitialTokenRequest request) {
    Token token = new Token(request.scope(), Engine.startNanos(policy, clock));
    CircuitBreaker.Permit permit = Engine.admit(policy);
    long effect = Engine.gateFirm(policy, token.startNanos, clock, permit);
    long tokenWait = 0;
    if (Effect.isWait(effect)) {
      tokenWait = effect;
      permit = Engine.admit(policy);
      effect = Engine.tokenWaited(policy, permit);
    }
    if (effect != Effect.START) {
      throw refused(token, effect);
    }
    token.hold(permit);
    return AcquireInitialTokenResponse.create(token, millisRoundedUp(tokenWait));
  }

  /**
   * Input: the attempt's outcome (a failure the SDK reports), then, when the engine answers a wait, the timer's
   * input for the next attempt at once (the SDK sleeps the wait and sends the retry without asking again): the
   * gate's permit for the retry goes into the token, and a wait for the limiter's token runs alongside the
   * backoff (the SDK sleeps the longer of the two).
   */
  @Override
  public RefreshRetryTokenResponse refreshRetryToken(RefreshRetryTokenRequest request) {
    Token token = token(request.token());
    Throwable failure = request.failure();
    boolean retryable = outcomes.isRetryable(failure);
    // The 2026 behaviour's hint is x-amz-retry-after, which the SDK hands only to its own strategies (for
    // a configured one it reads Retry-After): read it from the failure's response, as the SDK would.
    long hint = xAmzRetryAfter ? SdkOutcomes.xAmzRetryAfterNanos(failure)
        : request.suggestedDelay().filter(d -> !d.isNegative() && !d.isZero()).map(Pushback::after)
            .orElse(Pushback.NONE);
    Verdict verdict = retryable ? Verdict.retryable(hint) : Verdict.stop(StopReason.NOT_RETRYABLE);
    CircuitBreaker.Permit permit = token.takePermit();
    long now = clock.nanoTime();
    CallState<Object> execution = token.execution;
    if (execution == null) {
      execution = Engine.firstFailed(policy, token.startNanos, now, policy.random(), permit);
      token.execution = execution;
    }
    long effect = Engine.outcome(execution, null, failure, verdict, now, permit);
    if (!Effect.isWait(effect)) {
      Duration longPoll = null;
      if (longPollBackoff && request.isLongPolling() && execution.stopReason() == StopReason.BUDGET_EXHAUSTED) {
        // AWS's 2026 behaviour: a long-polling operation refused by the retry quota still waits the backoff
        // its retry would have had, so that its callers do not spin; the policy's own backoff gives it.
        longPoll = millisRoundedUp(Math.max(0, policy.backoff(outcomes.failureClass(failure))
            .delayNanos(execution.retries() + 1, 0, 0, policy.random())));
      }
      throw stopped(token, execution.stopReason(), failure, longPoll);
    }
    long backoff = effect;
    long tokenWait = 0;
    CircuitBreaker.Permit next = Engine.admit(execution);
    effect = Engine.timerFiredFirm(policy, execution, next, clock);
    if (Effect.isWait(effect)) { // the limiter's token, held: it refills while the backoff runs
      tokenWait = effect;
      next = Engine.admit(execution);
      effect = Engine.timerFiredFirm(policy, execution, next, clock);
    }
    if (effect != Effect.START) {
      throw stopped(token, execution.stopReason(), failure, null);
    }
    token.hold(next);
    token.attempt++;
    return RefreshRetryTokenResponse.create(token, millisRoundedUp(Math.max(backoff, tokenWait)));
  }

  /** Input: the attempt's outcome, accepted (the first-attempt rule when it was the first). */
  @Override
  public RecordSuccessResponse recordSuccess(RecordSuccessRequest request) {
    Token token = token(request.token());
    CircuitBreaker.Permit permit = token.takePermit();
    if (token.execution == null) {
      Engine.firstAccepted(policy, null, token.startNanos, clock, permit);
    } else {
      Engine.outcome(token.execution, null, null, Verdict.ACCEPT, clock.nanoTime(), permit);
    }
    token.succeeded = true;
    return RecordSuccessResponse.create(token);
  }

  /** The policy's attempt limit (the SDK writes it into each request's {@code amz-sdk-request} header). */
  @Override
  public int maxAttempts() {
    return policy.maxAttempts();
  }

  @Override
  public Builder toBuilder() {
    return settings.copy();
  }

  @Override
  public String toString() {
    return "AwsSdkRetryStrategy[policy=" + policy.name() + "]";
  }

  private TokenAcquisitionFailedException stopped(Token token, StopReason reason, Throwable failure,
      Duration delay) {
    token.stopReason = reason;
    String message = "Request will not be retried: Backoff policy '" + policy.name() + "' stopped after "
        + token.attempt + (token.attempt == 1 ? " attempt" : " attempts") + " ("
        + (reason == null ? "no reason" : reason.description()) + ")";
    return delay == null ? new TokenAcquisitionFailedException(message, token, failure)
        : new TokenAcquisitionFailedException(message, token, failure, delay);
  }

  /** The first attempt refused by the gate ({@code effect}, a refusal): the exception names the gate's own. */
  private TokenAcquisitionFailedException refused(Token token, long effect) {
    StopReason reason;
    RuntimeException cause;
    if (effect == Effect.REFUSED_CIRCUIT_OPEN) {
      reason = StopReason.CIRCUIT_OPEN;
      CircuitBreaker breaker = policy.circuitBreaker();
      cause = new CircuitOpenException("circuit breaker '" + breaker.name() + "' is " + breaker.state());
    } else if (effect == Effect.REFUSED_CONCURRENCY_LIMITED) {
      reason = StopReason.CONCURRENCY_LIMITED;
      ConcurrencyLimiter limiter = policy.concurrencyLimiter();
      cause = new ConcurrencyLimitedException("concurrency limiter '" + limiter.name() + "' refused the first "
          + "attempt: " + limiter.inFlight() + " attempts in flight, limit " + limiter.limit());
    } else {
      reason = effect == Effect.REFUSED_RATE_LIMITED ? StopReason.RATE_LIMITED : StopReason.DEADLINE_EXCEEDED;
      cause = new RateLimitedException("rate limiter '" + policy.rateLimiter().name()
          + "' refused the first attempt");
    }
    token.stopReason = reason;
    return new TokenAcquisitionFailedException("Backoff policy '" + policy.name() + "' refused the first attempt: "
        + reason.description(), token, cause);
  }

  private static Token token(RetryToken token) {
    if (token instanceof Token ours) {
      return ours;
    }
    throw new IllegalArgumentException("the retry token was not created by an AwsSdkRetryStrategy: "
        + (token == null ? "null" : token.getClass().getName()));
  }

  /** The SDK sleeps whole milliseconds (truncating): round up, so that no wait is cut short. */
  static Duration millisRoundedUp(long nanos) {
    if (nanos <= 0) {
      return Duration.ZERO;
    }
    long millis = nanos / 1_000_000 + (nanos % 1_000_000 == 0 ? 0 : 1);
    return Duration.ofMillis(millis);
  }

  /**
   * One call's retry token: its start, attempts, engine state and the permit of the attempt in flight. Confined
   * to the call (the SDK hands it back with each report, one at a time).
   */
  static final class Token implements RetryToken {
    final String scope;
    final long startNanos;
    CallState<Object> execution;
    /** The gate's permit for the attempt in flight (its breaker permit and concurrency slot), or null. */
    private HeldPermit held;
    int attempt = 1;
    StopReason stopReason;
    boolean succeeded;

    Token(String scope, long startNanos) {
      this.scope = scope;
      this.startNanos = startNanos;
    }

    /** Holds the gate's permit for the next attempt until the SDK reports that attempt's outcome. */
    void hold(CircuitBreaker.Permit permit) {
      if (permit == null) {
        return;
      }
      if (held == null) {
        held = new HeldPermit();
        HeldPermit.CLEANER.register(this, held);
      }
      held.set(permit);
    }

    /** The attempt's permit, handed over to hear its outcome (taken once: the token no longer holds it). */
    CircuitBreaker.Permit takePermit() {
      return held == null ? null : held.getAndSet(null);
    }

    /** The attempt the call is at, 1 for the first. */
    int attempt() {
      return attempt;
    }

    @Override
    public String toString() {
      return "Token[scope=" + scope + ", attempt=" + attempt + (succeeded ? ", succeeded"
          : stopReason != null ? ", stopped: " + stopReason.description() : "") + "]";
    }
  }

  /**
   * A token's permit, given back when the token becomes unreachable while still holding it: a call the SDK
   * abandoned without reporting its attempt (its sleep interrupted, its future cancelled, an exception the SDK
   * does not hand to the strategy) would otherwise keep a breaker trial and a concurrency slot for good. Taken
   * at most once ({@code getAndSet}), by the token's report or by the cleaner.
   */
  static final class HeldPermit extends AtomicReference<CircuitBreaker.Permit> implements Runnable {
    private static final long serialVersionUID = 1L;
    static final Cleaner CLEANER = Cleaner.create(runnable -> {
      Thread thread = new Thread(runnable, "backoff-aws-abandoned-permits");
      thread.setDaemon(true);
      return thread;
    });

    @Override
    public void run() {
      CircuitBreaker.Permit permit = getAndSet(null);
      if (permit != null) {
        permit.release();
      }
    }
  }

  /**
   * Builds an {@link AwsSdkRetryStrategy}. Implements the SDK's {@link RetryStrategy.Builder} so that the SDK's
   * own configuration helpers and a client's {@code retryStrategy(b -> ...)} work on it: extra retry
   * predicates and the throttling predicate are added as the SDK adds them, {@code maxAttempts} sets the
   * policy's attempt limit, and the SDK's backoff strategies are refused (the backoff is the policy's). Not
   * thread-safe.
   */
  public static final class Builder implements RetryStrategy.Builder<Builder, AwsSdkRetryStrategy> {
    private RetryPolicy<Object> policy;
    private AwsRetryMode mode;
    private boolean dynamoDb;
    private final List<Consumer<RetryPolicy.Builder<Object>>> customizers = new ArrayList<>();
    private final List<Predicate<Throwable>> extraRetryPredicates = new ArrayList<>();
    private Predicate<Throwable> treatAsThrottling;
    private Integer maxAttempts;
    private boolean retries2026;
    private boolean longPollBackoff;
    private boolean xAmzRetryAfter;
    private boolean sdkRules = true;

    Builder() {}

    Builder copy() {
      Builder copy = new Builder();
      copy.policy = policy;
      copy.mode = mode;
      copy.dynamoDb = dynamoDb;
      copy.customizers.addAll(customizers);
      copy.extraRetryPredicates.addAll(extraRetryPredicates);
      copy.treatAsThrottling = treatAsThrottling;
      copy.maxAttempts = maxAttempts;
      copy.retries2026 = retries2026;
      copy.longPollBackoff = longPollBackoff;
      copy.xAmzRetryAfter = xAmzRetryAfter;
      copy.sdkRules = sdkRules;
      return copy;
    }

    /**
     * The policy to follow (replaces a mode's preset). Its budget, breaker, limiter and listeners are
     * shared with every strategy built from it.
     *
     * @throws NullPointerException if {@code policy} is null
     */
    @SuppressWarnings("unchecked")
    public Builder policy(RetryPolicy<?> policy) {
      this.policy = (RetryPolicy<Object>) Objects.requireNonNull(policy, "policy must not be null");
      this.mode = null;
      this.dynamoDb = false;
      return this;
    }

    /**
     * Starts from the preset for an SDK retry mode (replaces a policy given before); also sets whether the
     * strategy follows AWS's 2026 behaviour (see {@link AwsRetryMode}).
     *
     * @throws NullPointerException if {@code mode} is null
     */
    public Builder mode(AwsRetryMode mode) {
      this.mode = Objects.requireNonNull(mode, "mode must not be null");
      this.policy = null;
      this.retries2026 = mode.retries2026();
      this.longPollBackoff = mode.longPollBackoff();
      this.xAmzRetryAfter = mode.retries2026();
      return this;
    }

    /**
     * The DynamoDB client's variant of the mode's preset, as the SDK's {@code DynamoDbRetryPolicy} builds it:
     * a 25 ms base delay and 9 attempts (4 under AWS's 2026 behaviour), and, as that client does in SDK
     * 2.57.8 even with the 2026 behaviour on, the server's hint from {@code Retry-After}, unbounded, and no
     * long-poll wait (see {@link AwsRetryMode#dynamoDbPolicy()}).
     *
     * @throws IllegalStateException if the builder starts from a policy rather than a mode
     */
    public Builder dynamoDb() {
      if (mode == null) {
        throw new IllegalStateException("dynamoDb(): the builder starts from a policy, not an AwsRetryMode; "
            + "use AwsSdkRetryStrategy.builder(AwsRetryMode) for the DynamoDB preset");
      }
      this.dynamoDb = true;
      this.longPollBackoff = false;
      this.xAmzRetryAfter = false;
      return this;
    }

    /**
     * Changes the preset's (or the policy's) settings: a breaker, listeners, a deadline, another budget. Runs
     * when the strategy is built, in the order given.
     *
     * @throws NullPointerException if {@code customizer} is null
     */
    public Builder configurePolicy(Consumer<RetryPolicy.Builder<Object>> customizer) {
      customizers.add(Objects.requireNonNull(customizer, "customizer must not be null"));
      return this;
    }

    /**
     * Whether to follow AWS's 2026 retry behaviour of the standard mode where the strategy itself acts on it:
     * the server's hint is {@code x-amz-retry-after} (milliseconds) instead of {@code Retry-After},
     * {@code LimitExceededException} is retried as throttling, a long-polling operation refused by the retry
     * budget still waits its backoff. Set by {@link #mode}. (The mode's bound on the server's hint is the
     * policy's {@code pushbackAboveBackoff}.)
     */
    public Builder retries2026(boolean enabled) {
      this.retries2026 = enabled;
      this.longPollBackoff = enabled;
      this.xAmzRetryAfter = enabled;
      return this;
    }

    /**
     * Whether the SDK's own retry predicates decide which failures are retryable (default true). Without
     * them only the predicates given to {@link #retryOnException} retry.
     */
    public Builder sdkRetryRules(boolean enabled) {
      this.sdkRules = enabled;
      return this;
    }

    /** Also retries failures matching {@code shouldRetry}, as the SDK's builders do. */
    @Override
    public Builder retryOnException(Predicate<Throwable> shouldRetry) {
      extraRetryPredicates.add(Objects.requireNonNull(shouldRetry, "retryOnException predicate must not be null"));
      return this;
    }

    /**
     * The policy's attempt limit, the first attempt included.
     *
     * @throws IllegalArgumentException if {@code maxAttempts} is below 1
     */
    @Override
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Refused: the backoff is the Backoff policy's.
     *
     * @throws UnsupportedOperationException always, naming the setting to use instead
     */
    @Override
    public Builder backoffStrategy(BackoffStrategy backoffStrategy) {
      throw new UnsupportedOperationException("backoffStrategy: an AwsSdkRetryStrategy waits as its Backoff policy "
          + "says; set RetryPolicy.Builder.backoff(...) through configurePolicy instead");
    }

    /**
     * Refused: the throttling backoff is the Backoff policy's ({@code backoff(FailureClass.THROTTLED, ...)}).
     *
     * @throws UnsupportedOperationException always, naming the setting to use instead
     */
    @Override
    public Builder throttlingBackoffStrategy(BackoffStrategy backoffStrategy) {
      throw new UnsupportedOperationException("throttlingBackoffStrategy: an AwsSdkRetryStrategy waits as its "
          + "Backoff policy says; set RetryPolicy.Builder.backoff(FailureClass.THROTTLED, ...) through "
          + "configurePolicy instead");
    }

    /** Which failures count as throttling ({@link FailureClass#THROTTLED}), instead of the SDK's rule. */
    @Override
    public Builder treatAsThrottling(Predicate<Throwable> treatAsThrottling) {
      this.treatAsThrottling = Objects.requireNonNull(treatAsThrottling, "treatAsThrottling must not be null");
      return this;
    }

    /**
     * Builds the strategy.
     *
     * @throws IllegalStateException if neither a policy nor a mode was given
     * @throws IllegalArgumentException if the policy hedges (the SDK runs one attempt at a time), or a
     *     customizer's setting is invalid (the policy builder's message names it)
     */
    @Override
    public AwsSdkRetryStrategy build() {
      RetryPolicy.Builder<Object> builder;
      if (policy != null) {
        builder = policy.toBuilder();
      } else if (mode != null) {
        builder = dynamoDb ? mode.dynamoDbPolicy() : mode.policy();
      } else {
        throw new IllegalStateException("an AwsSdkRetryStrategy needs a policy or an AwsRetryMode");
      }
      for (Consumer<RetryPolicy.Builder<Object>> customizer : customizers) {
        customizer.accept(builder);
      }
      if (maxAttempts != null) {
        builder.maxAttempts(maxAttempts);
      }
      RetryPolicy<Object> built = builder.build();
      if (built.hedging() != null) {
        throw new IllegalArgumentException("hedging: policy '" + built.name() + "' hedges, but the AWS SDK runs one "
            + "attempt of a request at a time; use a policy without hedging");
      }
      if (!sdkRules && extraRetryPredicates.isEmpty()) {
        throw new IllegalArgumentException("sdkRetryRules(false) with no retryOnException predicate: no failure "
            + "would ever be retried; add a predicate, or keep the SDK's rules");
      }
      return new AwsSdkRetryStrategy(this, built);
    }
  }
}
