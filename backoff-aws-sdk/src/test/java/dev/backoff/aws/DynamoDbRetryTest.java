package dev.backoff.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backoff.CircuitBreaker;
import dev.backoff.CircuitOpenException;
import dev.backoff.StopReason;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.core.client.builder.SdkSyncClientBuilder;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;

/**
 * The real {@code DynamoDbClient} retrying under a Backoff policy against a loopback server that answers as
 * DynamoDB does when it throttles or fails, with the server's request count and spacing asserted, and the
 * same scripts run under the SDK's own strategy for comparison. The SDK sleeps in real time: the jitter is
 * scripted, so each wait is known, and the spacing is asserted between that wait and a generous bound above.
 */
class DynamoDbRetryTest {
  static final String JSON = "application/x-amz-json-1.0";
  private static final Duration SLACK = Duration.ofSeconds(2);

  static Response dynamoError(int status, String code) {
    return Response.of(status, "{\"__type\":\"com.amazonaws.dynamodb.v20120810#" + code + "\",\"message\":\"" + code
        + "\"}").header("Content-Type", JSON);
  }

  static Response item() {
    return Response.of(200, "{\"Item\":{\"id\":{\"S\":\"1\"}}}").header("Content-Type", JSON);
  }

  static DynamoDbClient client(ScriptedHttpServer server, Consumer<ClientOverrideConfiguration.Builder> retries) {
    return loopback(DynamoDbClient.builder(), server, retries);
  }

  /** A client of any service on the loopback server: static credentials, a fixed region, the URL-connection client. */
  static <B extends AwsClientBuilder<B, C> & SdkSyncClientBuilder<B, C>, C> C loopback(B builder,
      ScriptedHttpServer server, Consumer<ClientOverrideConfiguration.Builder> retries) {
    return toLoopback(builder.httpClient(UrlConnectionHttpClient.create()), server, retries);
  }

  /** A client of any service, with any HTTP client, on the loopback server: static credentials, a fixed region. */
  static <B extends AwsClientBuilder<B, C>, C> C toLoopback(B builder, ScriptedHttpServer server,
      Consumer<ClientOverrideConfiguration.Builder> retries) {
    return builder.endpointOverride(server.uri())
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "secret")))
        .overrideConfiguration(retries)
        .build();
  }

  /** Two ways to configure a client's retries: ours first, then the SDK's own. */
  static List<Consumer<ClientOverrideConfiguration.Builder>> oursThenTheSdks(AwsSdkRetryStrategy ours,
      Consumer<ClientOverrideConfiguration.Builder> sdk) {
    return List.of(o -> o.retryStrategy(ours), sdk);
  }

  static GetItemResponse getItem(DynamoDbClient client) {
    return client.getItem(r -> r.tableName("orders").key(Map.of("id", AttributeValue.fromS("1"))));
  }

  /** The gaps between the server's consecutive requests. */
  static Duration[] gaps(List<RecordedRequest> requests) {
    Duration[] gaps = new Duration[requests.size() - 1];
    for (int i = 1; i < requests.size(); i++) {
      gaps[i - 1] = Duration.ofNanos(requests.get(i).receivedNanos() - requests.get(i - 1).receivedNanos());
    }
    return gaps;
  }

  static void assertSpacing(List<RecordedRequest> requests, Duration... waits) {
    Duration[] gaps = gaps(requests);
    assertThat(gaps).hasSameSizeAs(waits);
    for (int i = 0; i < waits.length; i++) {
      assertThat(gaps[i]).as("gap before request %d", i + 2).isBetween(waits[i], waits[i].plus(SLACK));
    }
  }

  /**
   * One {@code GetItem} on a new client of {@code server} retrying under {@code strategy}: its response, or the
   * SDK's exception as the call ends with it. The synchronous client here, the asynchronous one in
   * {@link DynamoDbAsyncRetryTest}: the same scenarios run on both.
   */
  interface OneCall {
    GetItemResponse getItem(ScriptedHttpServer server, AwsSdkRetryStrategy strategy) throws Exception;
  }

  static final OneCall SYNC = (server, strategy) -> {
    try (DynamoDbClient client = client(server, o -> o.retryStrategy(strategy))) {
      return getItem(client);
    }
  };

  @Test
  void throttlingIsRetriedAfterThePolicysThrottledBackoff() throws Exception {
    throttlingIsRetriedAfterThePolicysThrottledBackoff(SYNC);
  }

  static void throttlingIsRetriedAfterThePolicysThrottledBackoff(OneCall call) throws Exception {
    RecordingListener<Object> listener = new RecordingListener<>();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).dynamoDb()
        .configurePolicy(p -> p.random(new ScriptedRandom(0.1, 0.1)).listener(listener))
        .build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        dynamoError(400, "ProvisionedThroughputExceededException"),
        dynamoError(400, "ThrottlingException"),
        item())) {
      assertThat(call.getItem(server, strategy).item()).containsEntry("id", AttributeValue.fromS("1"));

      List<RecordedRequest> requests = server.requests();
      assertThat(requests).hasSize(3);
      // 0.1 × 1 s and 0.1 × 2 s: the throttled base, not DynamoDB's 25 ms one.
      assertSpacing(requests, Duration.ofMillis(100), Duration.ofMillis(200));
      // The SDK tells the server the policy's attempt limit (DynamoDB's 9).
      assertThat(requests).extracting(r -> r.header("amz-sdk-request"))
          .containsExactly("attempt=1; max=9", "attempt=2; max=9", "attempt=3; max=9");
    }
    assertThat(listener.kinds()).containsExactly(RecordingListener.Kind.RETRY,
        RecordingListener.Kind.RETRY, RecordingListener.Kind.SUCCESS);
    assertThat(strategy.policy().budget().level()).isEqualTo(495); // two retries at 5, the last refunded
  }

  @Test
  void aServerErrorIsRetriedAfterDynamoDbsShortBackoff() throws Exception {
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).dynamoDb()
        .configurePolicy(p -> p.random(new ScriptedRandom(0.5, 0.5)))
        .build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        dynamoError(500, "InternalServerError"), dynamoError(503, "ServiceUnavailable"), item());
        DynamoDbClient client = client(server, o -> o.retryStrategy(strategy))) {
      getItem(client);
      // 0.5 × 25 ms and 0.5 × 50 ms, rounded up to the SDK's whole milliseconds.
      assertSpacing(server.requests(), Duration.ofMillis(13), Duration.ofMillis(25));
    }
  }

  @Test
  void aValidationErrorIsNotRetriedByEitherStrategy() throws Exception {
    for (Consumer<ClientOverrideConfiguration.Builder> retries : List.<Consumer<ClientOverrideConfiguration.Builder>>of(
        o -> o.retryStrategy(AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).dynamoDb().build()),
        o -> o.retryStrategy(RetryMode.STANDARD))) {
      try (ScriptedHttpServer server = new ScriptedHttpServer(dynamoError(400, "ValidationException"), item());
          DynamoDbClient client = client(server, retries)) {
        assertThatThrownBy(() -> getItem(client)).isInstanceOf(DynamoDbException.class)
            .satisfies(e -> assertThat(((DynamoDbException) e).statusCode()).isEqualTo(400));
        assertThat(server.requestCount()).isEqualTo(1);
      }
    }
  }

  @Test
  void theCallEndsWithTheSdksExceptionWhenThePolicyStops() throws Exception {
    theCallEndsWithTheSdksExceptionWhenThePolicyStops(SYNC);
  }

  static void theCallEndsWithTheSdksExceptionWhenThePolicyStops(OneCall call) throws Exception {
    RecordingListener<Object> listener = new RecordingListener<>();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).dynamoDb()
        .configurePolicy(p -> p.maxAttempts(3).random(new ScriptedRandom(0.1)).listener(listener))
        .build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(dynamoError(400, "ProvisionedThroughputExceededException"))) {
      assertThatThrownBy(() -> call.getItem(server, strategy)).isInstanceOf(ProvisionedThroughputExceededException.class)
          .satisfies(e -> assertThat(((DynamoDbException) e).numAttempts()).isEqualTo(3));
      assertThat(server.requestCount()).isEqualTo(3);
      assertSpacing(server.requests(), Duration.ofMillis(100), Duration.ofMillis(200));
    }
    assertThat(listener.stopReasons()).containsExactly(StopReason.ATTEMPTS_EXHAUSTED);
  }

  @Test
  void anOpenBreakerFailsTheNextCallWithoutARequest() throws Exception {
    CircuitBreaker breaker = CircuitBreaker.builder().name("orders").countWindow(2).minimumCalls(2)
        .failureRateThreshold(100).waitInOpen(Duration.ofMinutes(1)).build();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).dynamoDb()
        .configurePolicy(p -> p.random(new ScriptedRandom(0.1)).circuitBreaker(breaker))
        .build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(dynamoError(500, "InternalServerError"));
        DynamoDbClient client = client(server, o -> o.retryStrategy(strategy))) {
      // Two failed attempts open the breaker: the engine stops the first call before a third.
      assertThatThrownBy(() -> getItem(client)).isInstanceOf(DynamoDbException.class);
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
      // The next call is refused before its first attempt: the server hears nothing more.
      assertThatThrownBy(() -> getItem(client)).hasRootCauseInstanceOf(CircuitOpenException.class);
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  /**
   * The same script, every answer a 500, under the DynamoDB preset and under the DynamoDB client's own
   * default strategy (no retry configuration: the SDK's {@code DynamoDbRetryPolicy} in the default legacy
   * mode): both make DynamoDB's 9 attempts, and the SDK's waits lie in the range the preset draws from,
   * {@code [0, 25 ms·2^(n−1))} before retry {@code n}. (A client configured with
   * {@code retryStrategy(RetryMode.STANDARD)} skips {@code DynamoDbRetryPolicy}: 3 attempts.)
   */
  @Test
  @Tag("slow")
  void theDynamoDbClientsOwnStrategyMakesTheSameAttemptsOnTheSameScript() throws Exception {
    assumeTrue(System.getenv("AWS_RETRY_MODE") == null && System.getProperty("aws.retryMode") == null
        && System.getenv("AWS_MAX_ATTEMPTS") == null && System.getProperty("aws.maxAttempts") == null,
        "the SDK's default retry mode is the environment's here");
    AwsSdkRetryStrategy ours = AwsSdkRetryStrategy.builder(AwsRetryMode.LEGACY).dynamoDb()
        .configurePolicy(p -> p.random(new ScriptedRandom(0.5)))
        .build();
    int[] counts = new int[2];
    int run = 0;
    for (Consumer<ClientOverrideConfiguration.Builder> retries : oursThenTheSdks(ours, o -> { })) {
      try (ScriptedHttpServer server = new ScriptedHttpServer(dynamoError(500, "InternalServerError"));
          DynamoDbClient client = client(server, retries)) {
        assertThatThrownBy(() -> getItem(client)).isInstanceOf(DynamoDbException.class)
            .satisfies(e -> assertThat(((DynamoDbException) e).statusCode()).isEqualTo(500));
        counts[run++] = server.requestCount();
        Duration[] gaps = gaps(server.requests());
        for (int i = 0; i < gaps.length; i++) {
          Duration ceiling = Duration.ofMillis(25L << i);
          assertThat(gaps[i]).as("gap before request %d", i + 2).isLessThan(ceiling.plus(SLACK));
        }
      }
    }
    assertThat(counts).containsExactly(9, 9);
  }
}
