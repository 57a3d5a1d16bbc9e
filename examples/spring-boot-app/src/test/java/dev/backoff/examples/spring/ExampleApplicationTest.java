package dev.backoff.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ScriptedHttpServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example as a web application on a random port, read over HTTP as an operator would: the Actuator
 * endpoint {@code /actuator/backoff} and the meters under {@code /actuator/metrics}, after the startup call
 * was retried against a warehouse on loopback.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(FakeTime.class)
class ExampleApplicationTest {
  static final ScriptedHttpServer WAREHOUSE = LoopbackWarehouse.restartingTwice();

  @DynamicPropertySource
  static void warehouse(DynamicPropertyRegistry properties) {
    properties.add("warehouse.url", () -> WAREHOUSE.uri().toString());
  }

  @AfterAll
  static void stopWarehouse() throws IOException {
    WAREHOUSE.close();
  }

  @Value("${local.server.port}")
  int port;

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theEndpointAndTheMetersShowTheRetriedCallOverHttp() throws Exception {
    // The CommandLineRunner's call at startup: 3 requests reached the warehouse (2 answered 503).
    assertThat(WAREHOUSE.requestCount()).isEqualTo(3);

    HttpResponse<String> policy = get("/actuator/backoff/inventory");
    assertThat(policy.statusCode()).as(policy.body()).isEqualTo(200);
    assertThat(policy.body()).containsPattern("\"maxAttempts\"\\s*:\\s*4\\b").containsPattern("\"budget\"\\s*:\\s*\"warehouse\"")
        .containsPattern("\"calls\"\\s*:\\s*1\\b").containsPattern("\"attempts\"\\s*:\\s*3\\b");

    HttpResponse<String> attempts = get("/actuator/metrics/backoff.attempts?tag=policy:inventory");
    assertThat(attempts.statusCode()).as(attempts.body()).isEqualTo(200);
    assertThat(attempts.body()).containsPattern("\"statistic\"\\s*:\\s*\"COUNT\"\\s*,\\s*\"value\"\\s*:\\s*1\\.0\\b")
        .containsPattern("\"statistic\"\\s*:\\s*\"TOTAL\"\\s*,\\s*\"value\"\\s*:\\s*3\\.0\\b");

    HttpResponse<String> unknown = get("/actuator/backoff/no-such-policy");
    assertThat(unknown.statusCode()).isEqualTo(404);
  }
}
