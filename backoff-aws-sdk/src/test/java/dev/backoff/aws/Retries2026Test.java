package dev.backoff.aws;

import static dev.backoff.aws.DynamoDbRetryTest.assertSpacing;
import static dev.backoff.aws.DynamoDbRetryTest.dynamoError;
import static dev.backoff.aws.DynamoDbRetryTest.gaps;
import static dev.backoff.aws.DynamoDbRetryTest.getItem;
import static dev.backoff.aws.DynamoDbRetryTest.item;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedRandom;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkClient;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * AWS's 2026 retry behaviour end to end: a {@code DynamoDbClient} built with the SDK's opt-in
 * ({@code -Daws.newRetries2026=true}, read when the client is built) reads {@code x-amz-retry-after} instead
 * of {@code Retry-After}, and the {@code STANDARD_2026} DynamoDB preset then waits as the client's own 2026
 * strategy does: at most 5 s above the backoff, and 4 attempts.
 */
class Retries2026Test {
  private static final String OPT_IN = "aws.newRetries2026";

  @BeforeEach
  void theEnvironmentLeavesTheBehaviourToTheTest() {
    assumeTrue(System.getenv("AWS_NEW_RETRIES_2026") == null && System.getenv("AWS_RETRY_MODE") == null
        && System.getProperty("aws.retryMode") == null && System.getenv("AWS_MAX_ATTEMPTS") == null,
        "the environment sets the SDK's retry behaviour here");
  }

  /** A client built with the SDK's 2026 opt-in; the property is set only while the client is built. */
  static DynamoDbClient client2026(ScriptedHttpServer server, Consumer<ClientOverrideConfiguration.Builder> retries) {
    return optedIn(() -> DynamoDbRetryTest.client(server, retries));
  }

  static <T> T optedIn(java.util.function.Supplier<T> build) {
    String previous = System.getProperty(OPT_IN);
    System.setProperty(OPT_IN, "true");
    try {
      return build.get();
    } finally {
      if (previous == null) {
        System.clearProperty(OPT_IN);
      } else {
        System.setProperty(OPT_IN, previous);
      }
    }
  }

  private static List<Consumer<ClientOverrideConfiguration.Builder>> oursAndTheSdks() {
    return DynamoDbRetryTest.oursThenTheSdks(AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD_2026).dynamoDb()
        .configurePolicy(p -> p.random(new ScriptedRandom(0.1))).build(),
        o -> { }); // the client's own: DynamoDbRetryPolicy under the 2026 behaviour
  }

  @Test
  void bothMakeDynamoDbs2026FourAttempts() throws Exception {
    for (Consumer<ClientOverrideConfiguration.Builder> retries : oursAndTheSdks()) {
      try (ScriptedHttpServer server = new ScriptedHttpServer(dynamoError(500, "InternalServerError"));
          DynamoDbClient client = client2026(server, retries)) {
        assertThatThrownBy(() -> getItem(client)).isInstanceOf(DynamoDbException.class);
        assertThat(server.requestCount()).isEqualTo(4);
        assertThat(server.requests()).extracting(r -> r.header("amz-sdk-request"))
            .containsExactly("attempt=1; max=4", "attempt=2; max=4", "attempt=3; max=4", "attempt=4; max=4");
        for (Duration gap : gaps(server.requests())) {
          assertThat(gap).isLessThan(Duration.ofMillis(100).plus(Duration.ofSeconds(2))); // 25 ms base: below 100 ms
        }
      }
    }
  }

  /**
   * {@code x-amz-retry-after: 7000} (7 s) and {@code Retry-After: 9} on a 500. In SDK 2.57.8 the DynamoDB
   * client's own 2026 strategy reads {@code Retry-After} and honours it whole (see
   * {@link AwsRetryMode#dynamoDbPolicy()}), and so does the DynamoDB preset: both wait the 9 s. With
   * {@code pushbackAboveBackoff(5 s)} the preset waits {@code 0.1 × 25 ms + 5 s}, 5003 ms.
   */
  @Test
  @Tag("slow")
  void theDynamoDbClientHonoursRetryAfterWholeUnderThe2026BehaviourAndSoDoesItsPreset() throws Exception {
    List<Consumer<ClientOverrideConfiguration.Builder>> strategies = new ArrayList<>(oursAndTheSdks());
    strategies.add(o -> o.retryStrategy(AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD_2026).dynamoDb()
        .configurePolicy(p -> p.random(new ScriptedRandom(0.1)).pushbackAboveBackoff(Duration.ofSeconds(5)))
        .build()));
    Duration[] floors = {Duration.ofSeconds(9), Duration.ofSeconds(9), Duration.ofMillis(5_003)};
    Duration[] waits = firstWaitsSideBySide(strategies.size(), () -> new ScriptedHttpServer(
            dynamoError(500, "InternalServerError").header("x-amz-retry-after", "7000").header("Retry-After", "9"),
            item()),
        (server, run) -> client2026(server, strategies.get(run)), DynamoDbRetryTest::getItem);
    for (int run = 0; run < strategies.size(); run++) {
      assertThat(waits[run]).as("run %d", run).isBetween(floors[run], floors[run].plus(Duration.ofSeconds(2)));
    }
  }

  /**
   * The same header pair on S3, whose client has no service-specific strategy: the client's own 2026
   * strategy reads {@code x-amz-retry-after} and cuts it to 5 s above its backoff ({@code [0, 50 ms)}), and so
   * does the {@code STANDARD_2026} preset ({@code 0.1 × 50 ms + 5 s}): neither waits the 7 s nor the 9 s.
   */
  @Test
  @Tag("slow")
  void onS3BothReadXAmzRetryAfterAndBoundItToFiveSecondsAboveTheBackoff() throws Exception {
    List<Consumer<ClientOverrideConfiguration.Builder>> strategies = DynamoDbRetryTest.oursThenTheSdks(
        AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD_2026).configurePolicy(p -> p.random(new ScriptedRandom(0.1)))
            .build(),
        o -> { }); // the client's own 2026 standard strategy
    Duration[] floors = {Duration.ofMillis(5_005), Duration.ofSeconds(5)};
    Duration[] waits = firstWaitsSideBySide(strategies.size(), () -> new ScriptedHttpServer(
            S3RetryTest.s3Error(500, "InternalError").header("x-amz-retry-after", "7000").header("Retry-After", "9"),
            S3RetryTest.emptyListing()),
        (server, run) -> optedIn(() -> S3RetryTest.client(server, strategies.get(run))), S3RetryTest::list);
    for (int run = 0; run < strategies.size(); run++) {
      assertThat(waits[run]).as("run %d", run).isBetween(floors[run], Duration.ofMillis(6_900));
    }
  }

  /** A server answering a call's attempts; its constructor may fail to bind. */
  interface ServerFactory {
    ScriptedHttpServer start() throws IOException;
  }

  /**
   * Starts {@code runs} servers and builds a client on each, one after another (the 2026 opt-in is a system
   * property read while a client is built), then makes every client's call on a thread of its own and
   * returns, per run, the wait between the server's first two requests. The calls only wait out what their
   * own server's headers ask, so they wait side by side rather than one after another (seconds each); a
   * call's failure fails the test.
   */
  static <C extends SdkClient> Duration[] firstWaitsSideBySide(int runs, ServerFactory servers,
      BiFunction<ScriptedHttpServer, Integer, C> clients, Consumer<C> call) throws Exception {
    List<ScriptedHttpServer> started = new ArrayList<>();
    List<C> built = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(runs);
    try {
      for (int run = 0; run < runs; run++) {
        started.add(servers.start());
        built.add(clients.apply(started.get(run), run));
      }
      List<Future<?>> calls = new ArrayList<>();
      for (C client : built) {
        calls.add(threads.submit(() -> call.accept(client)));
      }
      for (Future<?> made : calls) {
        made.get();
      }
      Duration[] waits = new Duration[runs];
      for (int run = 0; run < runs; run++) {
        waits[run] = gaps(started.get(run).requests())[0];
      }
      return waits;
    } finally {
      threads.shutdownNow();
      built.forEach(SdkClient::close);
      for (ScriptedHttpServer server : started) {
        server.close();
      }
    }
  }
}
