package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Preset;
import dev.backoff.RetryListener;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedRandom;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The example of docs/http.md: seeds 000/001's REST API answering 5xx and 429, called with Google Cloud's
 * documented backoff, min(2^(n-1) s + random_ms, 32 s), honouring Retry-After.
 */
@Timeout(20)
class SeedCaseExampleTest {
  @Test
  void googleCloudBackoffWithRetryAfterAgainstAnApiAnswering5xxAnd429() throws Exception {
    FakeClock clock = new FakeClock();
    RecordingSleeper sleeper = new RecordingSleeper(clock);
    try (ScriptedHttpServer api = new ScriptedHttpServer(Response.of(500, "internal"),
        Response.of(429, "quota").header("Retry-After", "5"), Response.of(503, "unavailable"),
        Response.of(200, "{\"value\":42}"))) {
      HttpRequest request = HttpRequest.newBuilder(api.uri("/v1/instances")).build();

      // As in docs/http.md, plus test seams: a fake clock, a recording sleeper and a scripted u = 0.5.
      RetryingHttpClient http = RetryingHttpClient.builder(HttpClient.newHttpClient())
          .policy(Preset.GOOGLE_CLOUD.<HttpResponse<?>>policy()        // 10 attempts, cap 32 s
              .maxElapsed(Duration.ofMinutes(5))
              .listener(RetryListener.logging(System.getLogger("api")))
              .clock(clock).sleeper(sleeper).random(new ScriptedRandom(0.5))
              .build())
          .build();
      HttpResponse<String> response = http.send(request, BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("{\"value\":42}");
      // 1 s + 500 ms; max(Retry-After 5 s, 2 s + 500 ms); 4 s + 500 ms.
      assertThat(sleeper.sleeps())
          .containsExactly(Duration.ofMillis(1500), Duration.ofSeconds(5), Duration.ofMillis(4500));
    }
  }
}
