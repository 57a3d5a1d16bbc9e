package dev.backoff.aws;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.Jitter;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryPolicy;
import java.time.Duration;

/**
 * Presets matching the retry modes of the AWS SDK for Java v2, with the constants of SDK version 2.57.8
 * (module {@code retries}, class {@code software.amazon.awssdk.retries.DefaultRetryStrategy} and the
 * {@code StandardRetryStrategy}, {@code LegacyRetryStrategy} and {@code AdaptiveRetryStrategy} builders beside
 * it). Each preset builds a fresh budget (and rate limiter) as the SDK gives each strategy its own
 * ({@code TokenBucketStore}, {@code RateLimiterTokenBucketStore}), shared by every call of the clients that use
 * that strategy.
 *
 * <p>Delays: the SDK's {@code BackoffStrategy.exponentialDelay(base, 20 s)} waits a whole number of
 * milliseconds uniform in {@code [0, min(20 s, base·2^(n−1)))} before retry {@code n}; these presets use
 * {@code Backoff.exponential(base, 2, 20 s, Jitter.full())}, the same range drawn in nanoseconds. The legacy
 * mode's throttling backoff, {@code exponentialDelayHalfJitter}, is {@code [c/2, c]} in whole milliseconds;
 * here {@link Jitter#equal()}, {@code [c/2, c)}.
 *
 * <p>{@code Retry-After}: in the modes without AWS's 2026 behaviour the SDK waits
 * {@code max(Retry-After, backoff)} for any whole number of seconds the header gives, without a bound
 * ({@code BaseRetryStrategy.computeBackoff}); these presets therefore set the policy's maximum pushback to
 * {@link Integer#MAX_VALUE} seconds, the largest value the SDK parses. Lower it with
 * {@code configurePolicy(p -> p.maxPushback(...))} to stop instead of waiting that long.
 */
public enum AwsRetryMode {
  /**
   * {@code RetryMode.LEGACY} ({@code LegacyRetryStrategy}): 4 attempts; {@code U(0, min(20 s, 100 ms·2^(n−1)))},
   * after throttling {@code [c/2, c)} with {@code c = min(20 s, 500 ms·2^(n−1))}; a retry quota of 500
   * tokens, a retry costing 5, after throttling 0 ({@code DefaultRetryStrategy.Legacy}: {@code MAX_ATTEMPTS},
   * {@code BASE_DELAY}, {@code THROTTLED_BASE_DELAY}, {@code MAX_BACKOFF}, {@code TOKEN_BUCKET_SIZE},
   * {@code DEFAULT_EXCEPTION_TOKEN_COST}, {@code THROTTLE_EXCEPTION_TOKEN_COST}).
   */
  LEGACY(4, Duration.ofMillis(100), 5, 0, false, false),
  /**
   * {@code RetryMode.STANDARD} ({@code StandardRetryStrategy}, behaviour 2.0): 3 attempts;
   * {@code U(0, min(20 s, 100 ms·2^(n−1)))}, after throttling with a 1 s base; a quota of 500 tokens, 5 a
   * retry ({@code DefaultRetryStrategy.Standard}: {@code MAX_ATTEMPTS}, {@code BASE_DELAY_V20},
   * {@code THROTTLED_BASE_DELAY}, {@code MAX_BACKOFF}, {@code TOKEN_BUCKET_SIZE},
   * {@code DEFAULT_EXCEPTION_TOKEN_COST_V20}).
   */
  STANDARD(3, Duration.ofMillis(100), 5, 5, false, false),
  /**
   * {@code RetryMode.ADAPTIVE_V2} ({@code AdaptiveRetryStrategy}, behaviour 2.0): {@link #STANDARD} plus the
   * adaptive client-side rate limiter ({@link AdaptiveRateLimiter} with the SDK's constants, those of its
   * {@code RateLimiterTokenBucket}).
   */
  ADAPTIVE(3, Duration.ofMillis(100), 5, 5, true, false),
  /**
   * {@code RetryMode.STANDARD} under AWS's 2026 behaviour ("retries 2.1", on in the SDK when
   * {@code AWS_NEW_RETRIES_2026=true} or {@code -Daws.newRetries2026=true}): 3 attempts;
   * {@code U(0, min(20 s, 50 ms·2^(n−1)))}, after throttling a 1 s base; a quota of 500 tokens, a retry
   * costing 14, after throttling 5 ({@code BASE_DELAY_V21}, {@code DEFAULT_EXCEPTION_TOKEN_COST_V21},
   * {@code THROTTLING_EXCEPTION_TOKEN_COST_V21}); {@code LimitExceededException} retried as throttling
   * ({@code AwsRetryStrategy.configure}); a long-polling operation refused by the quota still waits its
   * backoff ({@code DefaultStandardRetryStrategy.computeAcquireFailureBackoff}); and the server's hint read
   * from {@code x-amz-retry-after} (milliseconds) instead of {@code Retry-After} ({@code RetryableStage}),
   * lifting the wait at most 5 s above the backoff: the SDK waits
   * {@code min(max(hint, backoff), backoff + 5 s)} ({@code DefaultStandardRetryStrategy.computeBackoff} and
   * its {@code FIVE_SECONDS}), which is the policy's {@code pushbackAboveBackoff(5 s)}.
   */
  STANDARD_2026(3, Duration.ofMillis(50), 14, 5, false, true),
  /**
   * {@code RetryMode.ADAPTIVE_V2} under AWS's 2026 behaviour: {@link #STANDARD_2026}'s delays, quota and
   * {@code LimitExceededException} rule, plus the adaptive rate limiter. As in the SDK
   * ({@code DefaultAdaptiveRetryStrategy} overrides neither), no long-poll wait and no 5 s bound on the
   * server's hint.
   */
  ADAPTIVE_2026(3, Duration.ofMillis(50), 14, 5, true, true);

  /** The SDK's {@code MAX_BACKOFF}: 20 s. */
  static final Duration MAX_BACKOFF = Duration.ofSeconds(20);
  /** The SDK's standard and adaptive throttling base, {@code THROTTLED_BASE_DELAY}: 1 s. */
  static final Duration THROTTLED_BASE_DELAY = Duration.ofSeconds(1);
  /** The SDK's legacy throttling base, {@code Legacy.THROTTLED_BASE_DELAY}: 500 ms. */
  static final Duration LEGACY_THROTTLED_BASE_DELAY = Duration.ofMillis(500);
  /** The SDK's retry quota, {@code TOKEN_BUCKET_SIZE}: 500 tokens. */
  static final long TOKEN_BUCKET_SIZE = 500;
  /** DynamoDB's base delay ({@code DynamoDbRetryPolicy.BASE_DELAY}, in the {@code dynamodb} module): 25 ms. */
  static final Duration DYNAMODB_BASE_DELAY = Duration.ofMillis(25);
  /** DynamoDB's attempts ({@code DynamoDbRetryPolicy.MAX_ATTEMPTS_V20}): 9. */
  static final int DYNAMODB_MAX_ATTEMPTS = 9;
  /** DynamoDB's attempts under AWS's 2026 behaviour ({@code DynamoDbRetryPolicy.MAX_ATTEMPTS_V21}): 4. */
  static final int DYNAMODB_MAX_ATTEMPTS_2026 = 4;
  /** The 2026 behaviour's bound on the server's hint above the backoff ({@code DefaultStandardRetryStrategy.FIVE_SECONDS}). */
  static final Duration RETRY_AFTER_ABOVE_BACKOFF_2026 = Duration.ofSeconds(5);
  /** The longest {@code Retry-After} the SDK parses (an {@code int} of seconds), honoured unbounded before 2026. */
  static final Duration LONGEST_RETRY_AFTER = Duration.ofSeconds(Integer.MAX_VALUE);

  private final int maxAttempts;
  private final Duration baseDelay;
  private final long retryCost;
  private final long throttledRetryCost;
  private final boolean adaptive;
  private final boolean retries2026;

  AwsRetryMode(int maxAttempts, Duration baseDelay, long retryCost, long throttledRetryCost, boolean adaptive,
      boolean retries2026) {
    this.maxAttempts = maxAttempts;
    this.baseDelay = baseDelay;
    this.retryCost = retryCost;
    this.throttledRetryCost = throttledRetryCost;
    this.adaptive = adaptive;
    this.retries2026 = retries2026;
  }

  /** The SDK's attempt limit in this mode, the first attempt included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The base delay of the backoff for failures other than throttling. */
  public Duration baseDelay() {
    return baseDelay;
  }

  /** Whether this mode follows AWS's 2026 retry behaviour. */
  public boolean retries2026() {
    return retries2026;
  }

  /** Whether a long-polling operation refused by the quota still waits its backoff (standard, 2026 only). */
  boolean longPollBackoff() {
    return this == STANDARD_2026;
  }

  /** Whether the server's hint is bounded to 5 s (standard, 2026 only). */
  boolean boundsHint() {
    return this == STANDARD_2026;
  }

  /** A policy builder for this mode, named {@code aws-<mode>}, with a fresh budget (and rate limiter). */
  public RetryPolicy.Builder<Object> policy() {
    return policy(maxAttempts, baseDelay, "aws-" + name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
        boundsHint());
  }

  /**
   * As {@link #policy()} for DynamoDB, as the SDK's {@code DynamoDbRetryPolicy.resolveRetryStrategy} builds it:
   * a 25 ms base for failures other than throttling, 9 attempts (4 under the 2026 behaviour). In SDK 2.57.8
   * that method rebuilds the 2026 standard strategy with {@code toBuilder()}, whose builder
   * ({@code DefaultStandardRetryStrategy.Builder(DefaultStandardRetryStrategy)}) does not copy the 2026 flag,
   * and the client, having a strategy before its builder looks, does not turn the 2026 header on: the
   * DynamoDB client's own 2026 strategy keeps the 2026 constants but honours {@code Retry-After} unbounded and
   * has no long-poll wait ({@code Retries2026Test} measures it). So does this preset (with
   * {@code AwsSdkRetryStrategy.Builder.dynamoDb()}); add {@code pushbackAboveBackoff(5 s)} for the bound AWS
   * designed.
   */
  public RetryPolicy.Builder<Object> dynamoDbPolicy() {
    return policy(retries2026 ? DYNAMODB_MAX_ATTEMPTS_2026 : DYNAMODB_MAX_ATTEMPTS, DYNAMODB_BASE_DELAY,
        "aws-dynamodb-" + name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), false);
  }

  private RetryPolicy.Builder<Object> policy(int attempts, Duration base, String name, boolean boundHint) {
    RetryPolicy.Builder<Object> builder = RetryPolicy.builder()
        .name(name)
        .maxAttempts(attempts)
        .backoff(Backoff.exponential(base, 2, MAX_BACKOFF, Jitter.full()))
        .backoff(FailureClass.THROTTLED, this == LEGACY
            ? Backoff.exponential(LEGACY_THROTTLED_BASE_DELAY, 2, MAX_BACKOFF, Jitter.equal())
            : Backoff.exponential(THROTTLED_BASE_DELAY, 2, MAX_BACKOFF, Jitter.full()))
        .budget(RetryBudgets.tokenBucket().capacity(TOKEN_BUCKET_SIZE)
            .retryCost(retryCost)
            .retryCost(FailureClass.TIMEOUT, retryCost)
            .retryCost(FailureClass.THROTTLED, throttledRetryCost)
            .build())
        .maxPushback(LONGEST_RETRY_AFTER);
    if (boundHint) {
      builder.pushbackAboveBackoff(RETRY_AFTER_ABOVE_BACKOFF_2026);
    }
    if (adaptive) {
      builder.rateLimiter(AdaptiveRateLimiter.builder().name(name).build());
    }
    return builder;
  }
}
