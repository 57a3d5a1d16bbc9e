package dev.backoff.aws;

import static dev.backoff.aws.DynamoDbRetryTest.assertSpacing;
import static dev.backoff.aws.DynamoDbRetryTest.gaps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.FailureClass;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedRandom;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The real {@code S3Client} (path-style, on loopback) retrying under a Backoff policy when S3 answers
 * {@code 503 SlowDown} or {@code 500 InternalError}, with the server's request count and spacing asserted and
 * the same scripts run under the SDK's own standard strategy. Real waits, scripted jitter (see
 * {@link DynamoDbRetryTest}).
 */
class S3RetryTest {
  private static final Duration SLACK = Duration.ofSeconds(2);

  static Response s3Error(int status, String code) {
    return Response.of(status, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>"
        + code + "</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>").header("Content-Type", "application/xml");
  }

  static Response emptyListing() {
    return Response.of(200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult "
        + "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>photos</Name><Prefix></Prefix><KeyCount>0"
        + "</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>")
        .header("Content-Type", "application/xml");
  }

  static S3Client client(ScriptedHttpServer server, Consumer<ClientOverrideConfiguration.Builder> retries) {
    return DynamoDbRetryTest.loopback(S3Client.builder().forcePathStyle(true), server, retries);
  }

  static int list(S3Client client) {
    return client.listObjectsV2(r -> r.bucket("photos")).keyCount();
  }

  @Test
  void slowDownIsThrottlingAndWaitsTheThrottledBackoff() throws Exception {
    RecordingListener<Object> listener = new RecordingListener<>();
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
        .configurePolicy(p -> p.random(new ScriptedRandom(0.1, 0.1)).listener(listener))
        .build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(
        s3Error(503, "SlowDown"), s3Error(503, "SlowDown"), emptyListing());
        S3Client client = client(server, o -> o.retryStrategy(strategy))) {
      assertThat(list(client)).isZero();
      assertThat(server.requestCount()).isEqualTo(3);
      assertThat(server.requests()).allSatisfy(r -> assertThat(r.target()).startsWith("/photos"));
      // 0.1 × 1 s and 0.1 × 2 s: the SDK treats SlowDown as throttling, so the policy's throttled backoff waits.
      assertSpacing(server.requests(), Duration.ofMillis(100), Duration.ofMillis(200));
    }
    assertThat(listener.events(RecordingListener.Kind.RETRY)).extracting(e -> e.failureClass())
        .containsExactly(FailureClass.THROTTLED, FailureClass.THROTTLED);
  }

  @Test
  void anInternalErrorWaitsTheBaseBackoff() throws Exception {
    AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
        .configurePolicy(p -> p.random(new ScriptedRandom(0.5)))
        .build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(s3Error(500, "InternalError"), emptyListing());
        S3Client client = client(server, o -> o.retryStrategy(strategy))) {
      list(client);
      assertSpacing(server.requests(), Duration.ofMillis(50)); // 0.5 × 100 ms
    }
  }

  /**
   * {@code Retry-After: 1} on a 503: the SDK reads it (as whole seconds, behaviour 2.0) and both strategies
   * wait at least that second, here well above the backoff drawn ({@code 0.1 × 1 s}).
   */
  @Test
  @Tag("slow")
  void bothStrategiesHonourRetryAfter() throws Exception {
    for (Consumer<ClientOverrideConfiguration.Builder> retries : List.<Consumer<ClientOverrideConfiguration.Builder>>of(
        o -> o.retryStrategy(AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD)
            .configurePolicy(p -> p.random(new ScriptedRandom(0.1))).build()),
        o -> o.retryStrategy(RetryMode.STANDARD))) {
      try (ScriptedHttpServer server = new ScriptedHttpServer(
          s3Error(503, "SlowDown").header("Retry-After", "1"), emptyListing());
          S3Client client = client(server, retries)) {
        list(client);
        assertSpacing(server.requests(), Duration.ofSeconds(1));
      }
    }
  }

  /**
   * The same scripts under the preset and the SDK's own standard strategy: the same number of requests and
   * the same outcome, and the SDK's waits within the ranges the preset draws from.
   */
  @Test
  @Tag("slow")
  void theSdksOwnStandardStrategyMakesTheSameAttemptsOnTheSameScripts() throws Exception {
    for (Consumer<ClientOverrideConfiguration.Builder> retries : DynamoDbRetryTest.oursThenTheSdks(
        AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).configurePolicy(p -> p.random(new ScriptedRandom(0.5))).build(),
        o -> o.retryStrategy(RetryMode.STANDARD))) {
      // Recovers on the third attempt: a throttle (below 1 s), then a server error (below 200 ms).
      try (ScriptedHttpServer server = new ScriptedHttpServer(
          s3Error(503, "SlowDown"), s3Error(500, "InternalError"), emptyListing());
          S3Client client = client(server, retries)) {
        assertThat(list(client)).isZero();
        assertThat(server.requestCount()).isEqualTo(3);
        Duration[] gaps = gaps(server.requests());
        assertThat(gaps[0]).isLessThan(Duration.ofSeconds(1).plus(SLACK));
        assertThat(gaps[1]).isLessThan(Duration.ofMillis(200).plus(SLACK));
      }
      // Never recovers: 3 attempts, then the SDK's exception with the last status.
      try (ScriptedHttpServer server = new ScriptedHttpServer(s3Error(500, "InternalError"));
          S3Client client = client(server, retries)) {
        assertThatThrownBy(() -> list(client)).isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(500);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InternalError");
          assertThat(e.numAttempts()).isEqualTo(3);
        });
        assertThat(server.requestCount()).isEqualTo(3);
      }
    }
  }
}
