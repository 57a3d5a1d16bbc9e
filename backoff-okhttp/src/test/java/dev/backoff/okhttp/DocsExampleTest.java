package dev.backoff.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpRules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * The example in docs/okhttp.md: compiled here, run against MockWebServer, and checked to be the one the
 * page shows, line for line.
 */
class DocsExampleTest {
  static void example(HttpUrl url) throws Exception {
    // docs:begin
    BackoffOkHttp backoff = BackoffOkHttp.builder()
        .policy(RetryPolicy.<Response>builder()
            .maxAttempts(4)                                    // at most 3 retries
            .maxElapsed(Duration.ofSeconds(20))                // and a deadline for the whole call
            .build())
        .rules(HttpRules.builder().retryOnStatus(408).build()) // the shared HTTP rules, adjusted
        .build();

    // Synchronous calls: the interceptor retries inside execute(); Call.cancel() stops it.
    // install adds it and the network guard that keeps OkHttp from repeating a call by itself.
    OkHttpClient client = backoff.install(new OkHttpClient.Builder()).build();
    try (Response response = client.newCall(new Request.Builder().url(url).build()).execute()) {
      System.out.println(response.code() + " " + response.body().string());
    }

    // Asynchronous calls: no thread waits between attempts; cancel the future to stop.
    // Use a client without the interceptor, or each attempt would be retried twice over.
    OkHttpClient plain = new OkHttpClient();
    CompletableFuture<Response> call = backoff.enqueue(plain, new Request.Builder().url(url).build());
    try (Response response = call.get()) {
      System.out.println(response.code() + " " + response.body().string());
    }
    // docs:end
  }

  @Test
  void theExampleRunsAndRetries() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "0").body("busy").build());
      server.enqueue(new MockResponse.Builder().code(200).body("hello").build());
      server.enqueue(new MockResponse.Builder().code(408).body("too slow").build());
      server.enqueue(new MockResponse.Builder().code(200).body("hello again").build());
      server.start();

      example(server.url("/greeting"));

      assertThat(server.getRequestCount()).isEqualTo(4);
    }
  }

  @Test
  void thePageShowsThisExample() throws Exception {
    String source = Files.readString(Path.of("src/test/java/dev/backoff/okhttp/DocsExampleTest.java"));
    String snippet = source.substring(source.indexOf("// docs:begin\n") + "// docs:begin\n".length(),
        source.indexOf("    // docs:end"));
    String page = Files.readString(Path.of("../docs/okhttp.md"));
    assertThat(page).contains(snippet.replaceAll("(?m)^    ", "")); // the method body's indentation
  }
}
