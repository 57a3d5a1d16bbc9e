package dev.backoff.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.Hedging;
import dev.backoff.Jitter;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.httpclient5.ScriptedServer.Reply;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.junit.jupiter.api.Test;

/**
 * The examples of docs/httpclient5.md, run against a server answering 503 then 200. The page's code blocks
 * are these sources between the {@code docs:} markers, checked word for word below, so the page cannot
 * drift from code that compiles and works.
 */
class DocsExampleTest {
  private static final Path PAGE = Path.of("..", "docs", "httpclient5.md");
  private static final Path SOURCE = Path.of("src", "test", "java", "dev", "backoff", "httpclient5",
      "DocsExampleTest.java");

  @Test
  void theClassicExample() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "hello"))) {
      URI uri = server.uri("/greeting");
      // docs: setup
      HttpClient5Retry retry = HttpClient5Retry.builder()
          .policy(RetryPolicy.<HttpResponse>builder()              // org.apache.hc.core5.http.HttpResponse
              .maxAttempts(4)                                       // the first attempt included
              .maxElapsed(Duration.ofSeconds(10))                   // a deadline for the whole call
              .backoff(Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(2), Jitter.full()))
              .budget(RetryBudgets.awsStandard())                   // share one budget between calls
              .build())
          .rules(HttpRules.builder().retryOnStatus(408).build())    // statuses, methods, Retry-After cap...
          .build();
      // docs: end
      // docs: classic
      try (CloseableHttpClient client = retry.install(HttpClients.custom()).build()) {
        String body = client.execute(new HttpGet(uri), response -> EntityUtils.toString(response.getEntity()));
        // docs: end
        assertThat(body).isEqualTo("hello");
      }
      assertThat(server.requests()).isEqualTo(2);
    }
  }

  @Test
  void theAsyncExample() throws Exception {
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "busy"), Reply.of(200, "hello"))) {
      URI uri = server.uri("/greeting");
      HttpClient5Retry retry = HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder()
          .backoff(Backoff.fixed(Duration.ofMillis(10))).build());
      // docs: async
      try (CloseableHttpAsyncClient client = retry.install(HttpAsyncClients.custom()).build()) {
        client.start();
        Future<SimpleHttpResponse> call = client.execute(SimpleRequestBuilder.get(uri).build(), null);
        SimpleHttpResponse response = call.get(30, TimeUnit.SECONDS);  // call.cancel(true): no further attempt
        // docs: end
        assertThat(response.getCode()).isEqualTo(200);
        assertThat(response.getBodyText()).isEqualTo("hello");
      }
      assertThat(server.requests()).isEqualTo(2);
    }
  }

  @Test
  void theHedgingExample() throws Exception {
    // Real time: the first answer never comes within the test; the hedge, sent after 50 ms, is answered at once.
    try (ScriptedServer server = new ScriptedServer(Reply.of(200, "slow").after(Duration.ofSeconds(60)),
        Reply.of(200, "hello"))) {
      URI uri = server.uri("/greeting");
      // docs: hedged
      HttpClient5Retry hedged = HttpClient5Retry.builder()
          .policy(RetryPolicy.<HttpResponse>builder()
              .maxAttempts(3)                                    // the original and at most 2 hedges
              .hedging(Hedging.after(Duration.ofMillis(50)))     // about the p95 latency of this call
              .budget(RetryBudgets.grpcThrottling())             // hedges draw on the retry budget
              .build())
          .build();
      // docs: end
      try (CloseableHttpAsyncClient client = hedged.install(HttpAsyncClients.custom()).build()) {
        client.start();
        SimpleHttpResponse response = client.execute(SimpleRequestBuilder.get(uri).build(), null)
            .get(30, TimeUnit.SECONDS);
        assertThat(response.getBodyText()).isEqualTo("hello");
      }
      assertThat(server.requests()).isGreaterThanOrEqualTo(2); // a third hedge may go on a starved machine
    }
  }

  @Test
  void thePageShowsTheseExamplesWordForWord() throws Exception {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    List<String> source = Files.readAllLines(SOURCE, StandardCharsets.UTF_8);
    for (String name : List.of("setup", "classic", "async", "hedged")) {
      assertThat(page).as("docs/httpclient5.md shows the '" + name + "' example").contains(block(source, name));
    }
  }

  /** The lines between "// docs: NAME" and the next "// docs: end", their common indentation removed. */
  static String block(List<String> source, String name) {
    int start = -1;
    for (int i = 0; i < source.size(); i++) {
      if (source.get(i).strip().equals("// docs: " + name)) {
        start = i + 1;
        break;
      }
    }
    if (start < 0) {
      throw new AssertionError("no '// docs: " + name + "' marker");
    }
    int end = start;
    while (!source.get(end).strip().equals("// docs: end")) {
      end++;
    }
    List<String> lines = source.subList(start, end);
    int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
        .min().orElse(0);
    StringBuilder block = new StringBuilder();
    for (String line : lines) {
      block.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
    }
    return block.toString();
  }
}
