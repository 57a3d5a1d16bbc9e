package dev.backoff.aws;

import static dev.backoff.aws.DynamoDbRetryTest.assertSpacing;
import static dev.backoff.aws.DynamoDbRetryTest.dynamoError;
import static dev.backoff.aws.DynamoDbRetryTest.item;

import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;

/**
 * The real {@code DynamoDbAsyncClient}, on the SDK's Netty HTTP client, retrying under a Backoff policy against
 * a loopback server that answers as DynamoDB does, with the server's request count and spacing asserted as in
 * {@link DynamoDbRetryTest}: the asynchronous client asks the same {@code RetryStrategy} and waits on its own
 * scheduler, without a thread held. The jitter is scripted, so each wait is known; the spacing is asserted
 * between that wait and 2 s above it. Slow: closing a client takes about 2 s (Netty's event loops shutting
 * down).
 */
@Tag("slow")
class DynamoDbAsyncRetryTest {
  static DynamoDbAsyncClient client(ScriptedHttpServer server, AwsSdkRetryStrategy strategy) {
    return DynamoDbRetryTest.toLoopback(DynamoDbAsyncClient.builder().httpClientBuilder(NettyNioAsyncHttpClient.builder()),
        server, o -> o.retryStrategy(strategy));
  }

  static CompletableFuture<GetItemResponse> getItem(DynamoDbAsyncClient client) {
    return client.getItem(r -> r.tableName("orders").key(Map.of("id", AttributeValue.fromS("1"))));
  }

  /** The asynchronous client's call: the future's result, or the SDK's exception the future failed with. */
  static final DynamoDbRetryTest.OneCall ASYNC = (server, strategy) -> {
    try (DynamoDbAsyncClient client = client(server, strategy)) {
      return getItem(client).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception failure ? failure : e;
    }
  };

  @Test
  void throttlingIsRetriedAfterThePolicysThrottledBackoff() throws Exception {
    DynamoDbRetryTest.throttlingIsRetriedAfterThePolicysThrottledBackoff(ASYNC);
  }

  @Test
  void theFutureFailsWithTheSdksExceptionWhenThePolicyStops() throws Exception {
    DynamoDbRetryTest.theCallEndsWithTheSdksExceptionWhenThePolicyStops(ASYNC);
  }

  /**
   * AWS's 2026 standard mode on the asynchronous client: the server's {@code x-amz-retry-after: 300} (read by
   * the one wait-header parser) holds the retry 300 ms, above the backoff (0.5 × 50 ms), within the 5 s the
   * mode allows above it. (The generic preset: the DynamoDB one reads {@code Retry-After}, as DynamoDB's own
   * 2026 strategy does in SDK 2.57.8.)
   */
  @Test
  void xAmzRetryAfterHoldsTheRetryAsLongAsTheServerAsks() throws Exception {
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD_2026)
        .configurePolicy(p -> p.random(new ScriptedRandom(0.5)))
        .build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        dynamoError(500, "InternalServerError").header("x-amz-retry-after", "300"), item());
        DynamoDbAsyncClient client = client(server, strategy)) {
      getItem(client).get(30, TimeUnit.SECONDS);
      assertSpacing(server.requests(), Duration.ofMillis(300));
    }
  }
}
