package dev.backoff.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.CircuitBreaker;
import dev.backoff.CircuitOpenException;
import dev.backoff.ConcurrencyLimitedException;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.FailureClass;
import dev.backoff.Hedging;
import dev.backoff.RateLimitedException;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedRandom;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.retries.api.AcquireInitialTokenRequest;
import software.amazon.awssdk.retries.api.RecordSuccessRequest;
import software.amazon.awssdk.retries.api.RefreshRetryTokenRequest;
import software.amazon.awssdk.retries.api.RetryToken;
import software.amazon.awssdk.retries.api.TokenAcquisitionFailedException;

/** The strategy driven as the SDK drives it, on a fake clock with scripted jitter: exact delays and stops. */
class AwsSdkRetryStrategyTest {
  private final FakeClock clock = new FakeClock();

  static AwsServiceException serviceError(int status, String code) {
    return AwsServiceException.builder().statusCode(status)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code).build()).build();
  }

  static AwsServiceException withRetryAfterMillis(AwsServiceException e, String value) {
    SdkHttpResponse response = SdkHttpResponse.builder().statusCode(e.statusCode())
        .putHeader("x-amz-retry-after", value).build();
    return AwsServiceException.builder().statusCode(e.statusCode()).awsErrorDetails(
        e.awsErrorDetails().toBuilder().sdkHttpResponse(response).build()).build();
  }

  private AwsSdkRetryStrategy strategy(AwsRetryMode mode, double... jitter) {
    return AwsSdkRetryStrategy.builder(mode)
        .configurePolicy(p -> p.clock(clock).random(new ScriptedRandom(jitter)))
        .build();
  }

  private static RetryToken first(AwsSdkRetryStrategy strategy) {
    var response = strategy.acquireInitialToken(AcquireInitialTokenRequest.create("GLOBAL"));
    assertThat(response.delay()).isZero();
    return response.token();
  }

  private static RefreshRetryTokenRequest failed(RetryToken token, Throwable failure, Duration suggested) {
    return RefreshRetryTokenRequest.builder().token(token).failure(failure).suggestedDelay(suggested).build();
  }

  @Test
  void throttlingWaitsTheThrottledBackoffAndTransientFailuresTheBaseOne() {
    AwsSdkRetryStrategy strategy = strategy(AwsRetryMode.STANDARD, 0.5, 0.5);
    RetryToken token = first(strategy);
    var retry = strategy.refreshRetryToken(
        failed(token, serviceError(400, "ThrottlingException"), Duration.ZERO));
    assertThat(retry.delay()).isEqualTo(Duration.ofMillis(500)); // 0.5 × 1 s (throttled base)
    var second = strategy.refreshRetryToken(failed(retry.token(), serviceError(500, "InternalError"), Duration.ZERO));
    assertThat(second.delay()).isEqualTo(Duration.ofMillis(100)); // 0.5 × 100 ms × 2 (second retry)
    assertThatThrownBy(() -> strategy.refreshRetryToken(
        failed(second.token(), serviceError(500, "InternalError"), Duration.ZERO)))
        .isInstanceOf(TokenAcquisitionFailedException.class)
        .hasMessageContaining("stopped after 3 attempts (attempts exhausted)");
  }

  @Test
  void aFailureTheSdkDoesNotRetryStopsAtOnceAndCostsNoBudget() {
    AwsSdkRetryStrategy strategy = strategy(AwsRetryMode.STANDARD, 0.5);
    RetryBudget budget = strategy.policy().budget();
    double before = budget.level();
    RetryToken token = first(strategy);
    AwsServiceException validation = serviceError(400, "ValidationException");
    assertThatThrownBy(() -> strategy.refreshRetryToken(failed(token, validation, Duration.ZERO)))
        .isInstanceOf(TokenAcquisitionFailedException.class)
        .hasMessageContaining("(not retryable)")
        .hasCause(validation);
    assertThat(budget.level()).isEqualTo(before);
  }

  @Test
  void anIoFailureIsRetriedAsTheSdkRetriesIt() {
    AwsSdkRetryStrategy strategy = strategy(AwsRetryMode.LEGACY, 0.25);
    RetryToken token = first(strategy);
    SdkClientException io = SdkClientException.create("Unable to execute HTTP request", new IOException("reset"));
    assertThat(strategy.refreshRetryToken(failed(token, io, Duration.ZERO)).delay())
        .isEqualTo(Duration.ofMillis(25)); // 0.25 × 100 ms
  }

  @Test
  void theServersHintIsAFloorAndUnboundedBefore2026() {
    AwsSdkRetryStrategy strategy = strategy(AwsRetryMode.STANDARD, 0.5);
    RetryToken token = first(strategy);
    var retry = strategy.refreshRetryToken(
        failed(token, serviceError(503, "SlowDown"), Duration.ofSeconds(3600)));
    assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(3600)); // the SDK's max(Retry-After, backoff)
  }

  @Test
  void the2026StandardModeReadsXAmzRetryAfterAndLetsItLiftTheWaitAtMostFiveSecondsAboveTheBackoff() {
    AwsSdkRetryStrategy strategy = strategy(AwsRetryMode.STANDARD_2026, 0.5, 0.5);
    RetryToken token = first(strategy);
    // The SDK's suggested delay (its Retry-After reading) is not the 2026 hint: x-amz-retry-after is.
    var retry = strategy.refreshRetryToken(
        failed(token, withRetryAfterMillis(serviceError(500, "InternalError"), "60000"), Duration.ofSeconds(9)));
    assertThat(retry.delay()).isEqualTo(Duration.ofMillis(5_025)); // min(max(60 s, 25 ms), 25 ms + 5 s)
    var second = strategy.refreshRetryToken(
        failed(retry.token(), withRetryAfterMillis(serviceError(500, "InternalError"), "10"), Duration.ZERO));
    assertThat(second.delay()).isEqualTo(Duration.ofMillis(50)); // 0.5 × 50 ms × 2: the backoff is the floor
    AwsSdkRetryStrategy adaptive = strategy(AwsRetryMode.ADAPTIVE_2026, 0.5);
    assertThat(adaptive.refreshRetryToken(failed(first(adaptive),
        withRetryAfterMillis(serviceError(500, "InternalError"), "60000"), Duration.ZERO)).delay())
        .isEqualTo(Duration.ofSeconds(60)); // the SDK's adaptive strategy keeps the unbounded max(hint, backoff)
  }

  /** The delay before the first retry after a 500 carrying these {@code x-amz-retry-after} values. */
  private Duration firstDelay(AwsRetryMode mode, String... xAmzRetryAfter) {
    SdkHttpResponse.Builder response = SdkHttpResponse.builder().statusCode(500);
    for (String value : xAmzRetryAfter) {
      response.appendHeader("x-amz-retry-after", value);
    }
    AwsServiceException failure = AwsServiceException.builder().statusCode(500).awsErrorDetails(
        serviceError(500, "InternalError").awsErrorDetails().toBuilder().sdkHttpResponse(response.build()).build())
        .build();
    AwsSdkRetryStrategy strategy = strategy(mode, 0.5);
    return strategy.refreshRetryToken(failed(first(strategy), failure, Duration.ZERO)).delay();
  }

  @Test
  void xAmzRetryAfterIsReadByTheOneWaitHeaderParserWithItsRuleForHostileValues() {
    // Unreadable (garbage, a sign, a fraction, hex, nothing): no hint, the backoff alone (0.5 × 50 ms).
    for (String unreadable : new String[] {"abc", "-5", "+5", "", "1.5", "0x10", "100ms"}) {
      assertThat(firstDelay(AwsRetryMode.STANDARD_2026, unreadable)).as("x-amz-retry-after: '%s'", unreadable)
          .isEqualTo(Duration.ofMillis(25));
    }
    // Padding is not part of the value (the SDK's Integer.parseInt would refuse it).
    assertThat(firstDelay(AwsRetryMode.STANDARD_2026, " 100\t")).isEqualTo(Duration.ofMillis(100));
    // Several values, folded into one line or repeated: the longest, provided each part is readable.
    assertThat(firstDelay(AwsRetryMode.STANDARD_2026, "100, 300")).isEqualTo(Duration.ofMillis(300));
    assertThat(firstDelay(AwsRetryMode.STANDARD_2026, "300", "100")).isEqualTo(Duration.ofMillis(300));
    assertThat(firstDelay(AwsRetryMode.STANDARD_2026, "100, abc")).isEqualTo(Duration.ofMillis(25));
    // A large value never gives a sooner retry. Past an int (the SDK would ignore it): cut to the 2026
    // standard mode's 5 s above the backoff, and without that bound (the 2026 adaptive mode, as in the SDK)
    // waited in full.
    for (String large : new String[] {"2147483647", "2147483648"}) {
      assertThat(firstDelay(AwsRetryMode.STANDARD_2026, large)).as("x-amz-retry-after: %s", large)
          .isEqualTo(Duration.ofMillis(5_025));
    }
    assertThat(firstDelay(AwsRetryMode.ADAPTIVE_2026, "2147483648")).isEqualTo(Duration.ofMillis(2_147_483_648L));
    // Past a long of nanoseconds, an infinite wait: longer than any policy allows, so the engine stops the call
    // (the SDK would ignore the value and retry after its backoff).
    for (AwsRetryMode mode : new AwsRetryMode[] {AwsRetryMode.STANDARD_2026, AwsRetryMode.ADAPTIVE_2026}) {
      assertThatThrownBy(() -> firstDelay(mode, "99999999999999999999")).as("%s", mode)
          .isInstanceOf(TokenAcquisitionFailedException.class)
          .hasMessageContaining("(" + StopReason.PUSHBACK_TOO_LONG.description() + ")");
    }
  }

  @Test
  void limitExceededIsThrottlingOnlyUnderThe2026Behaviour() {
    AwsServiceException limit = serviceError(400, "LimitExceededException");
    assertThatThrownBy(() -> strategy(AwsRetryMode.STANDARD, 0.5).refreshRetryToken(
        failed(new RetryToken() {}, limit, Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class) // a token another kind of strategy made is refused
        .hasMessageStartingWith("the retry token was not created by an AwsSdkRetryStrategy");
    AwsSdkRetryStrategy before = strategy(AwsRetryMode.STANDARD, 0.5);
    assertThatThrownBy(() -> before.refreshRetryToken(failed(first(before), limit, Duration.ZERO)))
        .hasMessageContaining("(not retryable)");
    AwsSdkRetryStrategy after = strategy(AwsRetryMode.STANDARD_2026, 0.5);
    assertThat(after.refreshRetryToken(failed(first(after), limit, Duration.ZERO)).delay())
        .isEqualTo(Duration.ofMillis(500)); // 0.5 × the 1 s throttled base
  }

  @Test
  void theQuotaRunsOutAsTheSdksDoesAndALongPollStillWaitsItsBackoff() {
    // 500 tokens at 14 a retry: 35 retries, then refused.
    double[] jitter = new double[40];
    java.util.Arrays.fill(jitter, 0.5);
    AwsSdkRetryStrategy strategy = strategy(AwsRetryMode.STANDARD_2026, jitter);
    for (int i = 0; i < 35; i++) {
      RetryToken token = first(strategy);
      strategy.refreshRetryToken(failed(token, serviceError(500, "InternalError"), Duration.ZERO));
    }
    RetryToken token = first(strategy);
    RefreshRetryTokenRequest longPoll = RefreshRetryTokenRequest.builder().token(token)
        .failure(serviceError(500, "InternalError")).isLongPolling(true).build();
    assertThatThrownBy(() -> strategy.refreshRetryToken(longPoll))
        .isInstanceOfSatisfying(TokenAcquisitionFailedException.class, refused -> {
          assertThat(refused).hasMessageContaining("(retry budget exhausted)");
          assertThat(refused.delay()).contains(Duration.ofMillis(25)); // 0.5 × 50 ms, the refused retry's backoff
        });
    RetryToken another = first(strategy);
    assertThatThrownBy(() -> strategy.refreshRetryToken(
        failed(another, serviceError(500, "InternalError"), Duration.ZERO)))
        .isInstanceOfSatisfying(TokenAcquisitionFailedException.class,
            refused -> assertThat(refused.delay()).isEmpty()); // not a long poll: fails at once
  }

  @Test
  void aSuccessRefundsTheQuotaAsTheSdkDoes() {
    AwsSdkRetryStrategy strategy = strategy(AwsRetryMode.STANDARD_2026, 0.5);
    RetryBudget budget = strategy.policy().budget();
    RetryToken token = first(strategy);
    var retry = strategy.refreshRetryToken(failed(token, serviceError(400, "ThrottlingException"), Duration.ZERO));
    assertThat(budget.level()).isEqualTo(495); // a throttled retry costs 5
    strategy.recordSuccess(RecordSuccessRequest.create(retry.token()));
    assertThat(budget.level()).isEqualTo(500);
  }

  @Test
  void anOpenBreakerRefusesTheFirstAttemptAndEveryOutcomeReachesIt() {
    CircuitBreaker breaker = CircuitBreaker.builder().name("dynamo").countWindow(2).minimumCalls(2)
        .failureRateThreshold(100).waitInOpen(Duration.ofSeconds(30)).clock(clock).build();
    RecordingListener<Object> listener = new RecordingListener<>();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
        .configurePolicy(p -> p.clock(clock).random(new ScriptedRandom(0.5)).circuitBreaker(breaker).listener(listener))
        .build();
    RetryToken token = first(strategy);
    var retry = strategy.refreshRetryToken(failed(token, serviceError(500, "InternalError"), Duration.ZERO));
    assertThatThrownBy(() -> strategy.refreshRetryToken(
        failed(retry.token(), serviceError(500, "InternalError"), Duration.ZERO)))
        .hasMessageContaining("(circuit breaker open)");
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThatThrownBy(() -> strategy.acquireInitialToken(AcquireInitialTokenRequest.create("GLOBAL")))
        .isInstanceOf(TokenAcquisitionFailedException.class)
        .hasMessageContaining("refused the first attempt: circuit breaker open")
        .hasCauseInstanceOf(CircuitOpenException.class);
    assertThat(listener.stopReasons()).containsExactly(StopReason.CIRCUIT_OPEN);
  }

  @Test
  void aHalfOpenBreakersTrialIsHeldByTheTokenUntilTheSdkReportsItsOutcome() {
    CircuitBreaker breaker = CircuitBreaker.builder().name("dynamo").countWindow(1).minimumCalls(1)
        .failureRateThreshold(100).waitInOpen(Duration.ofSeconds(30)).trialCalls(1).clock(clock).build();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
        .configurePolicy(p -> p.clock(clock).random(new ScriptedRandom(0.5)).circuitBreaker(breaker))
        .build();
    RetryToken opener = first(strategy);
    assertThatThrownBy(() -> strategy.refreshRetryToken(failed(opener, serviceError(500, "InternalError"), Duration.ZERO)))
        .hasMessageContaining("(circuit breaker open)"); // its failure opened the breaker before the retry's gate
    clock.advance(Duration.ofSeconds(30));
    RetryToken trial = first(strategy); // the one trial call, its permit held in the token
    assertThatThrownBy(() -> strategy.acquireInitialToken(AcquireInitialTokenRequest.create("GLOBAL")))
        .isInstanceOf(TokenAcquisitionFailedException.class)
        .hasMessageContaining("refused the first attempt: circuit breaker open")
        .hasCauseInstanceOf(CircuitOpenException.class);
    strategy.recordSuccess(RecordSuccessRequest.create(trial));
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    first(strategy);
  }

  @Test
  void theAdaptiveLimiterHearsEveryOutcomeAndItsWaitIsTheDelayTheSdkSleeps() {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().clock(clock).build();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.ADAPTIVE)
        .configurePolicy(p -> p.clock(clock).random(new ScriptedRandom(0.5)).rateLimiter(limiter))
        .build();
    assertThat(limiter.enabled()).isFalse();
    RetryToken token = first(strategy);
    strategy.refreshRetryToken(failed(token, serviceError(400, "ThrottlingException"), Duration.ZERO));
    assertThat(limiter.enabled()).isTrue(); // the first throttle enables it, as in the SDK's adaptive mode
    // Without time passing, the bucket (capacity at least 1) runs dry: the next first attempt must wait.
    Duration waited = Duration.ZERO;
    for (int i = 0; i < 5 && waited.isZero(); i++) {
      waited = strategy.acquireInitialToken(AcquireInitialTokenRequest.create("GLOBAL")).delay();
    }
    assertThat(waited).isPositive();
    assertThat(limiter.waits()).isEqualTo(1);
    // The SDK sleeps whole milliseconds: the wait is rounded up, never cut short.
    assertThat(AwsSdkRetryStrategy.millisRoundedUp(1)).isEqualTo(Duration.ofMillis(1));
    assertThat(AwsSdkRetryStrategy.millisRoundedUp(2_000_000)).isEqualTo(Duration.ofMillis(2));
    assertThat(AwsSdkRetryStrategy.millisRoundedUp(2_000_001)).isEqualTo(Duration.ofMillis(3));
  }

  @Test
  void aLimiterThatRefusesFailsTheCallBeforeItsFirstAttempt() {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().clock(clock).maxWait(Duration.ZERO).build();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.ADAPTIVE)
        .configurePolicy(p -> p.clock(clock).random(new ScriptedRandom(0.5)).rateLimiter(limiter))
        .build();
    RetryToken token = first(strategy);
    strategy.refreshRetryToken(failed(token, serviceError(400, "ThrottlingException"), Duration.ZERO));
    assertThatThrownBy(() -> {
      for (int i = 0; i < 5; i++) {
        strategy.acquireInitialToken(AcquireInitialTokenRequest.create("GLOBAL"));
      }
    }).isInstanceOf(TokenAcquisitionFailedException.class)
        .hasMessageContaining("refused the first attempt: rate limiter refused")
        .hasCauseInstanceOf(RateLimitedException.class);
  }

  private AwsSdkRetryStrategy limited(ConcurrencyLimiter limiter, RecordingListener<Object> listener) {
    return AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
        .configurePolicy(p -> p.clock(clock).random(new ScriptedRandom(0.5)).concurrencyLimiter(limiter)
            .listener(listener))
        .build();
  }

  @Test
  void aFirstAttemptRefusedByAFullConcurrencyLimitFailsTheCallWithTheLimitersException() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).name("db").build();
    AwsSdkRetryStrategy strategy = limited(limiter, new RecordingListener<>());
    RetryToken holder = first(strategy);
    assertThat(limiter.inFlight()).isEqualTo(1); // the token holds the attempt's slot
    assertThatThrownBy(() -> strategy.acquireInitialToken(AcquireInitialTokenRequest.create("GLOBAL")))
        .isInstanceOf(TokenAcquisitionFailedException.class)
        .hasMessage("Backoff policy 'aws-standard' refused the first attempt: concurrency limit reached")
        .cause().isInstanceOf(ConcurrencyLimitedException.class)
        .hasMessage("concurrency limiter 'db' refused the first attempt: 1 attempts in flight, limit 1");
    assertThat(limiter.refusedFirstAttempts()).isEqualTo(1);
    strategy.recordSuccess(RecordSuccessRequest.create(holder));
    assertThat(limiter.inFlight()).isZero();
    first(strategy); // the slot is free again
  }

  @Test
  void aRetryBeyondTheConcurrencyLimitersRetryShareStopsTheCall() {
    // A limit of 5 with a retry share of 0.8: a retry takes a slot only while fewer than 4 attempts are in flight.
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(5).retryShare(0.8).build();
    RecordingListener<Object> listener = new RecordingListener<>();
    AwsSdkRetryStrategy strategy = limited(limiter, listener);
    RetryBudget budget = strategy.policy().budget();
    for (int i = 0; i < 3; i++) {
      first(strategy); // other calls' first attempts, in flight
    }
    RetryToken call = first(strategy);
    var retry = strategy.refreshRetryToken(failed(call, serviceError(500, "InternalError"), Duration.ZERO));
    assertThat(retry.delay()).isEqualTo(Duration.ofMillis(50)); // 0.5 × 100 ms: 3 others in flight, admitted
    assertThat(limiter.inFlight()).isEqualTo(4);
    first(strategy); // a fourth other call: first attempts may fill the limit
    assertThat(limiter.inFlight()).isEqualTo(5);
    assertThatThrownBy(() -> strategy.refreshRetryToken(
        failed(retry.token(), serviceError(500, "InternalError"), Duration.ZERO)))
        .isInstanceOf(TokenAcquisitionFailedException.class)
        .hasMessageContaining("stopped after 2 attempts (concurrency limit reached)");
    assertThat(limiter.refusedRetriesAndHedges()).isEqualTo(1);
    assertThat(limiter.inFlight()).isEqualTo(4); // the stopped call's slot went back; the others' are held
    assertThat(listener.stopReasons()).containsExactly(StopReason.CONCURRENCY_LIMITED);
    assertThat(budget.level()).isEqualTo(495); // one retry ran (5); the refused one's grant went back
  }

  @Test
  void slotsGoBackOnSuccessOnFailureAndWhenTheSdkGivesUp() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(4).build();
    AwsSdkRetryStrategy strategy = limited(limiter, new RecordingListener<>());
    // A first-try success.
    strategy.recordSuccess(RecordSuccessRequest.create(first(strategy)));
    assertThat(limiter.inFlight()).isZero();
    // A failure retried: the failed attempt's slot goes back, the retry takes one; its success gives it back.
    var retry = strategy.refreshRetryToken(failed(first(strategy), serviceError(503, "SlowDown"), Duration.ZERO));
    assertThat(limiter.inFlight()).isEqualTo(1);
    strategy.recordSuccess(RecordSuccessRequest.create(retry.token()));
    assertThat(limiter.inFlight()).isZero();
    // A failure the SDK does not retry.
    RetryToken validation = first(strategy);
    assertThatThrownBy(() -> strategy.refreshRetryToken(
        failed(validation, serviceError(400, "ValidationException"), Duration.ZERO)))
        .hasMessageContaining("(not retryable)");
    assertThat(limiter.inFlight()).isZero();
    // The SDK gives up when the policy's attempts run out.
    RetryToken token = first(strategy);
    for (int attempt = 1; attempt < 3; attempt++) {
      token = strategy.refreshRetryToken(failed(token, serviceError(500, "InternalError"), Duration.ZERO)).token();
      assertThat(limiter.inFlight()).isEqualTo(1);
    }
    RetryToken last = token;
    assertThatThrownBy(() -> strategy.refreshRetryToken(failed(last, serviceError(500, "InternalError"), Duration.ZERO)))
        .hasMessageContaining("stopped after 3 attempts (attempts exhausted)");
    assertThat(limiter.inFlight()).isZero();
  }

  @Test
  void aCallTheSdkAbandonsGivesItsSlotBackWhenItsTokenIsCollected() throws InterruptedException {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(4).build();
    AwsSdkRetryStrategy strategy = limited(limiter, new RecordingListener<>());
    RetryToken kept = first(strategy);
    abandonAfterARetry(strategy); // as an SDK call interrupted in its sleep: nothing more is reported
    assertThat(limiter.inFlight()).isEqualTo(2);
    for (int i = 0; i < 100 && limiter.inFlight() > 1; i++) {
      System.gc();
      Thread.sleep(20);
    }
    assertThat(limiter.inFlight()).isEqualTo(1); // the kept token's slot stays held
    strategy.recordSuccess(RecordSuccessRequest.create(kept));
    assertThat(limiter.inFlight()).isZero();
  }

  private void abandonAfterARetry(AwsSdkRetryStrategy strategy) {
    strategy.refreshRetryToken(failed(first(strategy), serviceError(500, "InternalError"), Duration.ZERO));
  }

  @Test
  void theDynamoDbPresetsAreTheSdksDynamoDbRetryPolicy() {
    RetryPolicy<Object> legacy = AwsRetryMode.STANDARD.dynamoDbPolicy().build();
    assertThat(legacy.maxAttempts()).isEqualTo(9);
    assertThat(legacy.backoff().maxDelayNanos()).isEqualTo(Duration.ofSeconds(20).toNanos());
    assertThat(legacy.backoff().delayNanos(1, 0, 0, new ScriptedRandom(0.999999))).isLessThan(25_000_000);
    assertThat(legacy.backoff(FailureClass.THROTTLED).delayNanos(1, 0, 0, new ScriptedRandom(0.5)))
        .isEqualTo(500_000_000);
    assertThat(AwsRetryMode.STANDARD_2026.dynamoDbPolicy().build().maxAttempts()).isEqualTo(4);
  }

  @Test
  void badConfigurationFailsAtBuildNamingTheSetting() {
    assertThatThrownBy(() -> AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
        .backoffStrategy(software.amazon.awssdk.retries.api.BackoffStrategy.retryImmediately()))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageStartingWith("backoffStrategy:");
    assertThatThrownBy(() -> AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxAttempts must be at least 1, was 0");
    assertThatThrownBy(() -> AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
        .configurePolicy(p -> p.hedging(Hedging.after(Duration.ofMillis(10)))).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("hedging:");
    assertThatThrownBy(() -> AwsSdkRetryStrategy.builder(RetryPolicy.defaults()).dynamoDb())
        .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("dynamoDb():");
    assertThatThrownBy(() -> AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).sdkRetryRules(false).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("sdkRetryRules(false)");
  }

  @Test
  void toBuilderKeepsTheSettingsAndMaxAttemptsIsThePolicys() {
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.LEGACY).dynamoDb().build();
    assertThat(strategy.maxAttempts()).isEqualTo(9);
    assertThat(strategy.toBuilder().maxAttempts(2).build().maxAttempts()).isEqualTo(2);
    assertThat(strategy.toBuilder().build().policy().name()).isEqualTo("aws-dynamodb-legacy");
  }
}
