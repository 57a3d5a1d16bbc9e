package dev.backoff.aws;

import dev.backoff.FailureClass;
import java.util.ArrayList;
import java.util.List;
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
