package dev.backoff.aws;

import dev.backoff.FailureClass;
import dev.backoff.Pushback;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.internal.retry.SdkDefaultRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;

/**
 * The translation of an SDK exception into an outcome, by the SDK's own rules: retryable when one of the
 * retry predicates the SDK's own strategies carry matches it, {@link FailureClass#THROTTLED} when the SDK
 * treats it as throttling. The predicates are the SDK's, collected from its public configuration helpers
 * ({@code SdkDefaultRetryStrategy.configureStrategy} and {@code AwsRetryStrategy.configureStrategy}), so they
 * follow the SDK version on the class path. Immutable and thread-safe.
 */
final class SdkOutcomes {
  /**
   * The error code AWS's 2026 behaviour retries and treats as throttling (the SDK's
   * {@code AwsRetryStrategy.isLimitExceededErrorCode}, added to the standard and adaptive strategies when
   * the behaviour is on).
   */
  static final String LIMIT_EXCEEDED = "LimitExceededException";
  /** The header AWS's 2026 behaviour reads the server's hint from (the SDK's {@code RetryableStage}). */
  static final String X_AMZ_RETRY_AFTER = "x-amz-retry-after";

  private final List<Predicate<Throwable>> retryPredicates;
  private final Predicate<Throwable> throttling;
  private final boolean retries2026;

  SdkOutcomes(boolean sdkRules, List<Predicate<Throwable>> extraRetryPredicates,
      Predicate<Throwable> treatAsThrottling, boolean retries2026) {
    Collecting sdk = new Collecting();
    if (sdkRules) {
      SdkDefaultRetryStrategy.configureStrategy(sdk);
      AwsRetryStrategy.configureStrategy(sdk);
    }
    List<Predicate<Throwable>> predicates = new ArrayList<>(sdk.retryPredicates);
    predicates.addAll(extraRetryPredicates);
    this.retryPredicates = List.copyOf(predicates);
    Predicate<Throwable> sdkThrottling = sdk.throttling == null ? failure -> false : sdk.throttling;
    this.throttling = treatAsThrottling != null ? treatAsThrottling : sdkThrottling;
    this.retries2026 = retries2026;
  }

  /** Whether the SDK's rules retry {@code failure}. */
  boolean isRetryable(Throwable failure) {
    if (retries2026 && isLimitExceeded(failure)) {
      return true;
    }
    for (Predicate<Throwable> predicate : retryPredicates) {
      if (predicate.test(failure)) {
        return true;
      }
    }
    return false;
  }

  /** {@link FailureClass#THROTTLED} if the SDK treats {@code failure} as throttling, else {@link FailureClass#TRANSIENT}. */
  FailureClass failureClass(Throwable failure) {
    return throttling.test(failure) || (retries2026 && isLimitExceeded(failure)) ? FailureClass.THROTTLED
        : FailureClass.TRANSIENT;
  }

  /**
   * The service's {@code x-amz-retry-after} on the failure's HTTP response, in nanoseconds, or
   * {@link Pushback#NONE}: read as the SDK's {@code RetryableStage.xAmzRetryAfter} reads it under the 2026
   * behaviour (the first value, {@code Integer.parseInt} as milliseconds, an unparsable value ignored); a
   * negative value, which the SDK would reject with an exception, is ignored too. The SDK 2.57.8 reads this
   * header only for a client without a configured retry strategy, so a configured one reads it here.
   */
  static long xAmzRetryAfterNanos(Throwable failure) {
    if (!(failure instanceof AwsServiceException aws) || aws.awsErrorDetails() == null
        || aws.awsErrorDetails().sdkHttpResponse() == null) {
      return Pushback.NONE;
    }
    Optional<String> header = aws.awsErrorDetails().sdkHttpResponse().firstMatchingHeader(X_AMZ_RETRY_AFTER);
    if (header.isEmpty()) {
      return Pushback.NONE;
    }
    try {
      int millis = Integer.parseInt(header.get());
      return millis < 0 ? Pushback.NONE : millis * 1_000_000L;
    } catch (NumberFormatException unparsable) {
      return Pushback.NONE;
    }
  }

  private static boolean isLimitExceeded(Throwable failure) {
    return failure instanceof AwsServiceException aws && aws.awsErrorDetails() != null
        && LIMIT_EXCEEDED.equals(aws.awsErrorDetails().errorCode());
  }

  /** Collects what the SDK's configuration helpers add to a strategy builder. */
  private static final class Collecting implements RetryStrategy.Builder<Collecting, RetryStrategy> {
    final List<Predicate<Throwable>> retryPredicates = new ArrayList<>();
    Predicate<Throwable> throttling;

    @Override
    public Collecting retryOnException(Predicate<Throwable> shouldRetry) {
      retryPredicates.add(shouldRetry);
      return this;
    }

    @Override
    public Collecting treatAsThrottling(Predicate<Throwable> treatAsThrottling) {
      this.throttling = treatAsThrottling;
      return this;
    }

    @Override
    public Collecting maxAttempts(int maxAttempts) {
      return this; // the SDK's helpers set no attempt limit here; the policy has its own
    }

    @Override
    public Collecting backoffStrategy(BackoffStrategy backoffStrategy) {
      return this;
    }

    @Override
    public Collecting throttlingBackoffStrategy(BackoffStrategy backoffStrategy) {
      return this;
    }

    @Override
    public RetryStrategy build() {
      throw new UnsupportedOperationException("collects the SDK's predicates only");
    }
  }
}
