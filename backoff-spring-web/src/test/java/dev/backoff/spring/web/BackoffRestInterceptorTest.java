package dev.backoff.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.Hedging;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.RecordingSleeper;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

class BackoffRestInterceptorTest {
  private final RecordingSleeper sleeper = new RecordingSleeper();
  private final RecordingFactory factory = new RecordingFactory();
  private ScriptedHttpServer server;

  private List<String> methods() {
    return server.requests().stream().map(RecordedRequest::method).toList();
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private RetryPolicy<Object> policy(int maxAttempts) {
    return RetryPolicy.builder().maxAttempts(maxAttempts).backoff(Backoff.fixed(Duration.ofMillis(10)))
        .sleeper(sleeper).build();
  }

  // The example in docs/spring-web.md.
  static RestClient restClient(RetryPolicy<Object> policy, org.springframework.http.client.ClientHttpRequestFactory factory) {
    return RestClient.builder()
        .requestFactory(factory)
        .requestInterceptor(BackoffRestInterceptor.of(policy)) // last: see "Interceptor order"
        .build();
  }

  private int status(RestClient client, String method, String... headers) {
    return client.method(org.springframework.http.HttpMethod.valueOf(method)).uri(server.uri("/x"))
        .headers(h -> {
          for (int i = 0; i + 1 < headers.length; i += 2) {
            h.add(headers[i], headers[i + 1]);
          }
        })
        .body("payload")
        .exchange((request, response) -> response.getStatusCode().value());
  }

  @Test
  void retriesA503AfterItsRetryAfterInSeconds() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy").header("Retry-After", "2"), Response.of(200, "ok"));
    RestClient client = restClient(policy(3), factory);

    String body = client.get().uri(server.uri("/x")).retrieve().body(String.class);

    assertThat(body).isEqualTo("ok");
    assertThat(server.requestCount()).isEqualTo(2);
    assertThat(factory.requests()).isEqualTo(2);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2)); // max(Retry-After 2 s, backoff 10 ms)
  }

  @Test
  void retriesA429AfterItsRetryAfterAsAnHttpDate() throws Exception {
    Instant now = Instant.parse("2026-11-23T12:00:00Z");
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(now.plusSeconds(3).atOffset(ZoneOffset.UTC));
    server = new ScriptedHttpServer(Response.of(429, "slow down").header("Retry-After", date), Response.of(200, "ok"));
    HttpRules rules = HttpRules.builder().wallClock(Clock.fixed(now, ZoneOffset.UTC)).build();
    RestClient client = RestClient.builder().requestFactory(factory)
        .requestInterceptor(BackoffRestInterceptor.of(policy(3), rules)).build();

    assertThat(client.get().uri(server.uri("/x")).retrieve().body(String.class)).isEqualTo("ok");
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(3));
  }

  @Test
  void aRetryAfterBeyondMaxPushbackReturnsTheResponseAtOnce() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "later").header("Retry-After", "120"), Response.of(200, "ok"));
    RetryPolicy<Object> policy = RetryPolicy.builder().maxAttempts(3).maxPushback(Duration.ofSeconds(30))
        .sleeper(sleeper).build();
    RestClient client = restClient(policy, factory);

    assertThat(status(client, "GET")).isEqualTo(503);
    assertThat(server.requestCount()).isEqualTo(1);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void postIsNotRetriedUnlessAllowed() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"));
    RestClient client = restClient(policy(3), factory);

    assertThat(status(client, "POST")).isEqualTo(503);
    assertThat(methods()).containsExactly("POST");
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void postWithAnIdempotencyKeyIsRetried() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"));
    RestClient client = restClient(policy(3), factory);

    assertThat(status(client, "POST", "Idempotency-Key", "k-1")).isEqualTo(200);
    assertThat(methods()).containsExactly("POST", "POST");
  }

  @Test
  void postOptedInByTheRulesIsRetried() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"));
    RestClient client = RestClient.builder().requestFactory(factory)
        .requestInterceptor(BackoffRestInterceptor.of(policy(3), HttpRules.builder().retryMethods("POST").build()))
        .build();

    assertThat(status(client, "POST")).isEqualTo(200);
    assertThat(methods()).containsExactly("POST", "POST");
  }

  @Test
  void aConnectionResetBeforeTheResponseIsRetried() throws Exception {
    // Two resets: the JDK client retries a reset GET once by itself, so at least one reaches the interceptor.
    server = new ScriptedHttpServer(Response.reset(), Response.reset(), Response.of(200, "ok"));
    RestClient client = restClient(policy(3), factory);

    assertThat(client.get().uri(server.uri("/x")).retrieve().body(String.class)).isEqualTo("ok");
    assertThat(factory.requests()).isGreaterThanOrEqualTo(2); // our attempts
    assertThat(sleeper.sleeps()).hasSize(factory.requests() - 1).allMatch(Duration.ofMillis(10)::equals);
  }

  @Test
  void aConnectionResetMidBodyWhileReadingAheadIsRetriedAndTheResponseClosed() throws Exception {
    server = new ScriptedHttpServer(Response.ofLength(503, 10_000).resetAfter(100), Response.of(200, "ok"));
    RestClient client = restClient(policy(3), factory);

    assertThat(client.get().uri(server.uri("/x")).retrieve().body(String.class)).isEqualTo("ok");
    assertThat(factory.requests()).isEqualTo(2);
    assertThat(factory.responses().get(0).closed).isTrue();
  }

  @Test
  void resetsUntilExhaustedThrowTheLastFailureWithItsHistory() throws Exception {
    server = new ScriptedHttpServer(Response.reset());
    RestClient client = restClient(policy(3), factory);

    assertThatThrownBy(() -> client.get().uri(server.uri("/x")).retrieve().body(String.class))
        .isInstanceOf(ResourceAccessException.class)
        .cause().satisfies(failure -> {
          assertThat(failure).isInstanceOf(java.io.IOException.class);
          assertThat(Arrays.stream(failure.getSuppressed()).filter(RetryHistory.class::isInstance)).hasSize(1);
        });
    assertThat(factory.requests()).isEqualTo(3);
  }

  @Test
  void everyRetriedResponseIsClosedAndTheLastIsReturnedWhole() throws Exception {
    byte[] big = new byte[200_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = ScriptedHttpServer.patternByte(i);
    }
    server = new ScriptedHttpServer(Response.ofLength(503, big.length));
    HttpRules rules = HttpRules.builder().readAheadLimit(1024).build();
    RestClient client = RestClient.builder().requestFactory(factory)
        .requestInterceptor(BackoffRestInterceptor.of(policy(3), rules)).build();

    ResponseEntity<byte[]> last = client.get().uri(server.uri("/x"))
        .exchange((request, response) -> ResponseEntity.status(response.getStatusCode())
            .body(response.getBody().readAllBytes()));

    assertThat(last.getStatusCode().value()).isEqualTo(503);
    assertThat(last.getBody()).isEqualTo(big); // 1 KiB read ahead, then the rest from the connection
    List<RecordingFactory.Recorded> responses = factory.responses();
    assertThat(responses).hasSize(3);
    assertThat(responses.get(0).closed).isTrue();
    assertThat(responses.get(1).closed).isTrue();
  }

  @Test
  void aSmallRetryableBodyIsReadAheadWhole() throws Exception {
    server = new ScriptedHttpServer(Response.of(500, "oops"));
    RestClient client = restClient(policy(2), factory);

    String body = client.get().uri(server.uri("/x"))
        .exchange((request, response) -> new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8));
    assertThat(body).isEqualTo("oops");
    assertThat(factory.requests()).isEqualTo(2);
  }

  @Test
  void anInterruptWhileWaitingEndsTheCallAndKeepsTheFlag() throws Exception {
    server = new ScriptedHttpServer(Response.of(503, "busy"), Response.of(200, "ok"));
    sleeper.interruptAfter(0);
    RestClient client = restClient(policy(3), factory);

    try {
      assertThatThrownBy(() -> client.get().uri(server.uri("/x")).retrieve().body(String.class))
          .isInstanceOf(ResourceAccessException.class)
          .hasCauseInstanceOf(InterruptedIOException.class);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(server.requestCount()).isEqualTo(1);
    assertThat(factory.responses().get(0).closed).isTrue();
  }

  @Test
  void worksOnRestTemplate() throws Exception {
    server = new ScriptedHttpServer(Response.of(502, "bad gateway"), Response.of(200, "ok"));
    RestTemplate template = new RestTemplate(factory);
    template.getInterceptors().add(BackoffRestInterceptor.of(policy(3)));

    assertThat(template.getForObject(server.uri("/x"), String.class)).isEqualTo("ok");
    assertThat(server.requestCount()).isEqualTo(2);
  }

  @Test
  void aStatusThatIsNotRetriedIsReturnedUntouched() throws Exception {
    server = new ScriptedHttpServer(Response.of(404, "missing"));
    RestClient client = restClient(policy(3), factory);

    assertThat(status(client, "GET")).isEqualTo(404);
    assertThat(server.requestCount()).isEqualTo(1);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void nullArgumentsAreNamed() {
    assertThatThrownBy(() -> BackoffRestInterceptor.of(null)).hasMessageContaining("policy");
    assertThatThrownBy(() -> BackoffRestInterceptor.of(policy(2), null)).hasMessageContaining("rules");
  }


  @Test
  void aHedgingPolicyIsRefusedWhenTheInterceptorIsBuilt() {
    RetryPolicy<Object> hedged = RetryPolicy.builder().name("reads").maxAttempts(3)
        .hedging(Hedging.after(Duration.ofMillis(50))).build();

    assertThatThrownBy(() -> BackoffRestInterceptor.of(hedged))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("policy 'reads' hedges")
        .hasMessageContaining("BackoffRestInterceptor runs each attempt on the calling thread and cannot hedge")
        .hasMessageContaining("BackoffExchangeFilter");
    assertThatThrownBy(() -> BackoffRestInterceptor.of(hedged, HttpRules.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("policy 'reads' hedges");
  }
}
