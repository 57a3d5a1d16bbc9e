package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP client gets the policy's adaptive rate limiter through the core loop: 429s (classified
 * THROTTLED by the HTTP rules) enable it and lower its rate, and the next attempt waits for its token on
 * the policy's sleeper, against a real server on loopback.
 */
@Timeout(20)
class AdaptiveRateLimiterHttpTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);

  @Test
  void throttlesEngageTheLimiterAndTheRetryWaitsForItsToken() throws Exception {
    // beta 0.5 (the default is 0.7) so that every rate and wait below is exact in binary.
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("api").clock(clock).beta(0.5).build();
    RetryPolicy<HttpResponse<?>> policy = RetryPolicy.<HttpResponse<?>>builder().maxAttempts(4)
        .backoff(Backoff.fixed(Duration.ofMillis(125))).clock(clock).sleeper(sleeper).rateLimiter(limiter).build();
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(429, "slow down"),
        Response.of(429, "slow down"), Response.of(200, "ok"))) {
      RetryingHttpClient client = RetryingHttpClient.builder(
          HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()).policy(policy).build();

      HttpResponse<String> response = client.send(HttpRequest.newBuilder(server.uri("/a")).GET().build(),
          BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(server.requestCount()).isEqualTo(3);
      // The first 429 comes before any time bucket closed: the open bucket's one response over a whole
      // 0.5 s bucket is the measured rate, 2/s, and the cut halves it: 1 token/s, one token, full. The
      // second attempt takes that token; its 429, 125 ms after the cut, is the same congestion event and
      // cuts nothing; after the 125 ms backoff (0.125 token earned) the third attempt waits
      // (1 - 0.125) / 1 = 0.875 s for its token.
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(125), Duration.ofMillis(125),
          Duration.ofMillis(875));
      assertThat(limiter.enabled()).isTrue();
      assertThat(limiter.throttles()).isEqualTo(2);
      assertThat(limiter.waits()).isEqualTo(1);
    }
  }

  /**
   * A fail-fast limiter refuses the second retry after two 429s: the call ends with the last 429, as when the
   * attempts run out (the response was held, not released, while the call waited to retry), synchronously
   * and asynchronously, and its body is intact.
   */
  @Test
  void aRetryRefusedAfterA429EndsTheCallWithThatResponse() throws Exception {
    for (boolean async : new boolean[] {false, true}) {
      AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("api").clock(clock).failFast(true).build();
      RetryPolicy<HttpResponse<?>> policy = RetryPolicy.<HttpResponse<?>>builder().maxAttempts(4)
          .backoff(Backoff.fixed(Duration.ofMillis(125))).clock(clock).sleeper(sleeper).rateLimiter(limiter).build();
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(429, "slow down"))) {
        RetryingHttpClient client = RetryingHttpClient.builder(
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()).policy(policy).build();
        HttpRequest request = HttpRequest.newBuilder(server.uri("/a")).GET().build();

        HttpResponse<String> response = async
            ? client.sendAsync(request, BodyHandlers.ofString()).get(10, TimeUnit.SECONDS)
            : client.send(request, BodyHandlers.ofString());

        // Attempt 1's 429 enables the limiter at 0.7 x 2/s (the open bucket's rate) = 1.4 tokens/s, 1.4
        // tokens; attempt 2 takes one; attempt 3 finds at most 0.4 + 0.125 x 1.4 = 0.575 and is refused.
        assertThat(response.statusCode()).as("async " + async).isEqualTo(429);
        assertThat(response.body()).isEqualTo("slow down");
        assertThat(limiter.throttles()).isEqualTo(2);
        assertThat(server.requestCount()).isEqualTo(2);
      }
    }
  }
}
