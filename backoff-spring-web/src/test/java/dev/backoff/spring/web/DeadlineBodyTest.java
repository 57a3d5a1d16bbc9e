package dev.backoff.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.backoff.RetryPolicy;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * The policy's deadline bounds the body of the response a caller reads: a body that stalls after its first
 * byte ends at the deadline with the client's own error type, whose cause names the deadline. On loopback,
 * against a server that sends one byte of a 1000-byte body and then nothing for an hour.
 */
class DeadlineBodyTest {
  private static final Duration DEADLINE = Duration.ofMillis(500);
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static final RetryPolicy<Object> POLICY = RetryPolicy.builder().maxAttempts(3).maxElapsed(DEADLINE).build();

  private static HttpClient jdkClient() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  /**
   * Reads a stalled body with {@code read}: it fails with {@code type}, its root cause a {@code cause} naming
   * the deadline, within the deadline plus 2 s, after one request.
   */
  private static void assertEndsAtTheDeadline(Function<URI, ThrowingCallable> read, Class<?> type,
      Class<? extends Throwable> cause) {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(200, 1000).trickle(Duration.ofHours(1)))) {
        long start = System.nanoTime();
        assertThatThrownBy(read.apply(server.uri()))
            .isInstanceOf(type)
            .hasRootCauseInstanceOf(cause)
            .rootCause().hasMessage("the call's deadline (maxElapsed PT0.5S) passed while reading the response's body");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DEADLINE.plusSeconds(2));
        assertThat(server.requestCount()).isEqualTo(1);
      }
    });
  }

  private static RestClient restClient() {
    return RestClient.builder()
        .requestFactory(new JdkClientHttpRequestFactory(jdkClient()))
        .requestInterceptor(BackoffRestInterceptor.of(POLICY))
        .build();
  }

  @Test
  void restClientEndsAStalledBodyAtTheDeadline() {
    RestClient client = restClient();
    assertEndsAtTheDeadline(uri -> () -> client.get().uri(uri).retrieve().body(String.class),
        RestClientException.class, SocketTimeoutException.class);
  }

  @Test
  void webClientEndsAStalledBodyAtTheDeadline() {
    WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector(jdkClient()))
        .filter(BackoffExchangeFilter.of(POLICY)).build();
    assertEndsAtTheDeadline(uri -> () -> client.get().uri(uri).retrieve().bodyToMono(String.class).block(),
        WebClientResponseException.class, TimeoutException.class);
  }

  @Test
  void restClientReadsAWholeBodyWithinTheDeadline() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "whole"))) {
      assertThat(restClient().get().uri(server.uri()).retrieve().body(String.class)).isEqualTo("whole");
    }
  }
}
