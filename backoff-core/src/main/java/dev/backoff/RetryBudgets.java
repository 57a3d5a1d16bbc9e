package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Factories for the {@link RetryBudget}s that the systems known to survive retry storms use. A budget is
 * shared: attach one instance to every policy (and thread) whose retries it should cap, with
 * {@link RetryPolicy.Builder#budget}. When it refuses a retry the call stops at once with
 * {@link StopReason#BUDGET_EXHAUSTED}.
 *
 * <ul>
 *   <li>{@link #awsStandard()} / {@link #tokenBucket()}: the AWS SDK standard-mode retry quota.
 *   <li>{@link #grpcThrottling(int, double)}: gRPC's retry throttling.
 *   <li>{@link #ratio()} / {@link #ratio(double, int, Duration, NanoClock)}: the Finagle and Linkerd budget,
 *       retries as a share of calls over a sliding window.
 * </ul>
 *
 * <p>Every budget made here is thread-safe and lock-free (compare-and-set on atomic longs, integer
 * arithmetic in fixed point; the ratio budget also swaps an immutable snapshot of its window once per tenth
 * of the window), never overdraws (a retry is granted only if the level covers its cost, and
 * concurrent grants cannot together take more), never rises above its capacity, and loses no deposit or
 * refund under contention.
 */
public final class RetryBudgets {
  private RetryBudgets() {}

  /** AWS standard mode: the token bucket's capacity. */
  public static final long AWS_CAPACITY = 500;
  /** AWS standard mode: what a retry costs. */
  public static final long AWS_RETRY_COST = 5;
  /** AWS's newer retry behaviour (see {@link #awsStandard2026()}): what a retry costs. */
  public static final long AWS_2026_RETRY_COST = 14;
  /** AWS's newer retry behaviour: what a retry after a {@link FailureClass#THROTTLED} failure costs. */
  public static final long AWS_2026_THROTTLED_RETRY_COST = 5;
  /** AWS standard mode: what a retry after a {@link FailureClass#TIMEOUT} costs. */
  public static final long AWS_TIMEOUT_RETRY_COST = 10;
  /** gRPC retry throttling, its retry guide's example: the maximum token count. */
  public static final int GRPC_MAX_TOKENS = 10;
  /** gRPC retry throttling, its retry guide's example: tokens earned per success. */
  public static final double GRPC_TOKEN_RATIO = 0.1;
  /** Finagle and Linkerd: retries allowed per call. */
  public static final double RATIO_RETRY_RATIO = 0.2;
  /** Finagle and Linkerd: retries allowed per second whatever the traffic. */
  public static final int RATIO_MIN_RETRIES_PER_SECOND = 10;
  /** Finagle and Linkerd: the window. */
  public static final Duration RATIO_WINDOW = Duration.ofSeconds(10);

  /**
   * The AWS SDK for Java v2 standard-mode retry quota: a bucket of 500 tokens; a retry costs 5, or 10 after a
   * {@link FailureClass#TIMEOUT}; a success refunds what the call's last retry cost, or 1 token when the
   * first attempt succeeded. Equivalent to {@code tokenBucket().build()}.
   */
  public static RetryBudget awsStandard() {
    return tokenBucket().build();
  }

  /**
   * The AWS SDK for Java v2 retry quota under AWS's newer retry behaviour ("retries 2.1", opted into with
   * {@code AWS_NEW_RETRIES_2026=true}; see {@link Preset#AWS_STANDARD_2026}): a bucket of 500 tokens; a
   * retry costs 14, or 5 after a {@link FailureClass#THROTTLED} failure (a timeout costs what any other
   * failure does); a success refunds as {@link #awsStandard()} does. Sources: the SDK's
   * {@code core/retries/src/main/java/software/amazon/awssdk/retries/DefaultRetryStrategy.java}
   * ({@code TOKEN_BUCKET_SIZE}, {@code DEFAULT_EXCEPTION_TOKEN_COST_V21},
   * {@code THROTTLING_EXCEPTION_TOKEN_COST_V21}).
   */
  public static RetryBudget awsStandard2026() {
    return tokenBucket().retryCost(AWS_2026_RETRY_COST)
        .retryCost(FailureClass.TIMEOUT, AWS_2026_RETRY_COST)
        .retryCost(FailureClass.THROTTLED, AWS_2026_THROTTLED_RETRY_COST)
        .build();
  }

  /** A builder for a token-bucket budget, starting from the AWS standard-mode values of {@link #awsStandard()}. */
  public static TokenBucketBuilder tokenBucket() {
    return new TokenBucketBuilder();
  }

  /**
   * gRPC's retry throttling with the values of gRPC's retry guide example, {@code maxTokens} 10 and
   * {@code tokenRatio} 0.1. (gRPC itself has no default: throttling is off unless a service config sets it.)
   */
  public static RetryBudget grpcThrottling() {
    return grpcThrottling(GRPC_MAX_TOKENS, GRPC_TOKEN_RATIO);
  }

  /**
   * gRPC's retry throttling (gRFC A6): the token count starts at {@code maxTokens}; every failed attempt
   * costs 1, every successful call adds {@code tokenRatio} (never beyond {@code maxTokens}); a retry is
   * allowed only while the count is above {@code maxTokens / 2}. As in gRPC, where the retryable status
   * codes decide, only failures the policy's rules would retry count.
   *
   * @param maxTokens the maximum (and initial) token count, 1 to 1000 as gRPC allows
   * @param tokenRatio tokens earned per success, positive, with at most three decimal places
   * @throws IllegalArgumentException if {@code maxTokens} is outside [1, 1000] or {@code tokenRatio} is not
   *     positive, not finite, or has more than three decimal places
   */
  public static RetryBudget grpcThrottling(int maxTokens, double tokenRatio) {
    if (maxTokens < 1 || maxTokens > 1000) {
      throw new IllegalArgumentException("maxTokens must be in [1, 1000], was " + maxTokens);
    }
    Nanos.finite("tokenRatio", tokenRatio);
    if (!(tokenRatio > 0)) {
      throw new IllegalArgumentException("tokenRatio must be positive, was " + tokenRatio);
    }
    long milliRatio = thousandths("tokenRatio", tokenRatio);
    return new GrpcThrottlingBudget(maxTokens * GrpcThrottlingBudget.MILLI, milliRatio);
  }

  /**
   * The Finagle and Linkerd defaults on the system clock: retries at most 20% of calls plus 10 retries per
   * second, over a 10 s window.
   */
  public static RetryBudget ratio() {
    return ratio(RATIO_RETRY_RATIO, RATIO_MIN_RETRIES_PER_SECOND, RATIO_WINDOW, NanoClock.system());
  }

  /**
   * A budget allowing, over a sliding {@code window}, retries up to {@code retryRatio} times the calls made
   * plus {@code minRetriesPerSecond} per second of the window (a floor, so a quiet client can still retry).
   * Each call deposits {@code retryRatio} of a retry and each retry withdraws one; both expire after the
   * window, which slides in steps of a tenth of its length. The level can fall below zero when deposits
   * expire before the retries they paid for (a burst of retries late in a window); no retry is granted
   * until it is positive again, exactly as if the window had never allowed the burst. What has left the
   * window never counts again, however long the budget sits idle (a single silence of 2^63 ns, 292 years, or
   * more is beyond what a wrapping clock difference can express and reads as no time passing).
   *
   * @param retryRatio retries allowed per call, in [0, 10] with at most three decimal places (0.2: 20%)
   * @param minRetriesPerSecond the floor, in [0, 100000]
   * @param window how long deposits and withdrawals count, from 10 ms to 1 hour
   * @param clock the time source (a fake clock in tests)
   * @throws IllegalArgumentException if a parameter is outside its range
   * @throws NullPointerException if {@code window} or {@code clock} is null
   */
  public static RetryBudget ratio(double retryRatio, int minRetriesPerSecond, Duration window, NanoClock clock) {
    Nanos.finite("retryRatio", retryRatio);
    if (retryRatio < 0 || retryRatio > 10) {
      throw new IllegalArgumentException("retryRatio must be in [0, 10], was " + retryRatio);
    }
    long milliRatio = thousandths("retryRatio", retryRatio);
    if (minRetriesPerSecond < 0 || minRetriesPerSecond > 100_000) {
      throw new IllegalArgumentException("minRetriesPerSecond must be in [0, 100000], was " + minRetriesPerSecond);
    }
    Nanos.requireNonNull("window", window);
    if (window.compareTo(Duration.ofMillis(10)) < 0 || window.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("window must be between 10 ms and 1 hour, was " + window);
    }
    Nanos.requireNonNull("clock", clock);
    long windowNanos = window.toNanos();
    // minRetriesPerSecond * window seconds, in thousandths of a retry; at most 3.6e11, far inside a slot's range.
    long reserveMilli = Math.round(minRetriesPerSecond * (windowNanos / 1e6));
    return new RatioBudget(milliRatio, reserveMilli, windowNanos, clock,
        "ratio budget " + retryRatio + " of calls + " + minRetriesPerSecond + "/s over " + window);
  }

  private static long thousandths(String name, double value) {
    double scaled = value * 1000;
    long rounded = Math.round(scaled);
    if (Math.abs(scaled - rounded) > 1e-6) {
      throw new IllegalArgumentException(name + " must have at most three decimal places, was " + value);
    }
    return rounded;
  }

  /**
   * Builds a token-bucket budget. Starts from the AWS standard-mode values (capacity 500, retry cost 5,
   * 10 after a timeout, refund of 1 on a first-try success). Each setter validates its argument at once;
   * {@link #build()} checks that no cost exceeds the capacity. Not thread-safe; the budgets it builds are.
   */
  public static final class TokenBucketBuilder {
    private long capacity = AWS_CAPACITY;
    private long retryCost = AWS_RETRY_COST;
    private final List<FailureClass> classesWithCost = new ArrayList<>(List.of(FailureClass.TIMEOUT));
    private final List<Long> costByClass = new ArrayList<>(List.of(AWS_TIMEOUT_RETRY_COST));
    private long firstTrySuccessRefund = 1;

    TokenBucketBuilder() {}

    /**
     * The number of tokens the bucket holds, and starts with.
     *
     * @throws IllegalArgumentException if {@code capacity < 1}
     */
    public TokenBucketBuilder capacity(long capacity) {
      if (capacity < 1) {
        throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
      }
      this.capacity = capacity;
      return this;
    }

    /**
     * What a retry costs after a failure of a class without its own cost.
     *
     * @throws IllegalArgumentException if {@code cost} is negative
     */
    public TokenBucketBuilder retryCost(long cost) {
      this.retryCost = nonNegative("retryCost", cost);
      return this;
    }

    /**
     * What a retry costs after a failure of this class (e.g. 10 after {@link FailureClass#TIMEOUT}).
     *
     * @throws IllegalArgumentException if {@code cost} is negative
     * @throws NullPointerException if {@code failureClass} is null
     */
    public TokenBucketBuilder retryCost(FailureClass failureClass, long cost) {
      Nanos.requireNonNull("failureClass", failureClass);
      nonNegative("retryCost for " + failureClass, cost);
      int index = classesWithCost.indexOf(failureClass);
      if (index >= 0) {
        costByClass.set(index, cost);
      } else {
        classesWithCost.add(failureClass);
        costByClass.add(cost);
      }
      return this;
    }

    /**
     * Tokens returned when a call succeeds on its first attempt (AWS: 1).
     *
     * @throws IllegalArgumentException if {@code refund} is negative
     */
    public TokenBucketBuilder firstTrySuccessRefund(long refund) {
      this.firstTrySuccessRefund = nonNegative("firstTrySuccessRefund", refund);
      return this;
    }

    /**
     * Builds the budget, full.
     *
     * @throws IllegalArgumentException if a retry cost or the refund exceeds the capacity
     */
    public RetryBudget build() {
      checkNotAboveCapacity("retryCost", retryCost);
      checkNotAboveCapacity("firstTrySuccessRefund", firstTrySuccessRefund);
      long[] costs = new long[costByClass.size()];
      for (int i = 0; i < costs.length; i++) {
        costs[i] = costByClass.get(i);
        checkNotAboveCapacity("retryCost for " + classesWithCost.get(i), costs[i]);
      }
      return new TokenBucketBudget(capacity, retryCost, classesWithCost.toArray(new FailureClass[0]), costs,
          firstTrySuccessRefund);
    }

    private void checkNotAboveCapacity(String name, long value) {
      if (value > capacity) {
        throw new IllegalArgumentException(name + " must not exceed capacity " + capacity + ", was " + value);
      }
    }

    private static long nonNegative(String name, long value) {
      if (value < 0) {
        throw new IllegalArgumentException(name + " must not be negative, was " + value);
      }
      return value;
    }
  }
}
