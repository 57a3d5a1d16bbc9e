package dev.backoff.aws;

import dev.backoff.FailureClass;
import dev.backoff.Pushback;
import dev.backoff.http.rules.HttpResponseView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.WaitHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.internal.retry.SdkDefaultRetryStrategy;
import software.amazon.awssdk.http.SdkHttpResponse;
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
  /**
   * {@code x-amz-retry-after} alone, the header AWS's 2026 behaviour reads the server's hint from, read by
   * backoff-http-rules' one parser of "wait" headers ({@link WaitHeader#X_AMZ_RETRY_AFTER}), as every HTTP
   * adapter reads it.
   */
  private static final HttpRules X_AMZ_RETRY_AFTER = HttpRules.builder().waitHeaders(WaitHeader.X_AMZ_RETRY_AFTER).build();

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
   * {@link Pushback#NONE}, read by {@link WaitHeader#X_AMZ_RETRY_AFTER}'s parser, with its rule for hostile
   * values: whole milliseconds, the longest of the readable values; a negative, fractional or garbled value
   * gives no hint; a value too large for a {@code long} of nanoseconds is
   * {@link dev.backoff.http.rules.RetryAfter#INFINITE_NANOS}. The SDK 2.57.8 parses it more loosely and more
   * narrowly ({@code AsyncRetryableStage.xAmzRetryAfter}, lines 215-228 of its source by the jar's line
   * table, and {@code RetryableStage.xAmzRetryAfter}, lines 133-140: the first value,
   * {@code Integer.parseInt}, so a sign is accepted and a value of 2^31 ms or more is ignored); the clamp
   * is the SDK's, applied where the SDK applies it: the standard strategy's
   * {@code min(max(hint, backoff), backoff + 5 s)} ({@code DefaultStandardRetryStrategy.computeBackoff},
   * lines 82-88, {@code FIVE_SECONDS}) is the {@link AwsRetryMode#STANDARD_2026} policy's
   * {@code pushbackAboveBackoff}, which the engine applies; the adaptive strategy has none. The SDK reads
   * this header only for a client without a configured retry strategy, so a configured one reads it here.
   */
  static long xAmzRetryAfterNanos(Throwable failure) {
    if (!(failure instanceof AwsServiceException aws) || aws.awsErrorDetails() == null
        || aws.awsErrorDetails().sdkHttpResponse() == null) {
      return Pushback.NONE;
    }
    SdkHttpResponse response = aws.awsErrorDetails().sdkHttpResponse();
    return X_AMZ_RETRY_AFTER.waitHintNanos(HttpResponseView.of(response.statusCode(), response::matchingHeaders),
        X_AMZ_RETRY_AFTER.wallNow());
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
