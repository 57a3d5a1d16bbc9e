package dev.backoff.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.opentelemetry.RetryTelemetry;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * backoff-opentelemetry's HTTP listener on Spring's clients, against a loopback server answering 503, 503,
 * then 200: the resend count and statuses on every attempt span; method and URL where Spring's response
 * carries its request (WebClient's {@code ClientResponse}), not where it does not ({@code ClientHttpResponse}).
 */
class TelemetryAttributesTest {
  private static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
  private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  private static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
      .build();
  private final RetryTelemetry telemetry = RetryTelemetry.create(otel);
  private final ScriptedHttpServer server =
      new ScriptedHttpServer(Response.of(503, "one"), Response.of(503, "two"), Response.of(200, "ok"));

  TelemetryAttributesTest() throws Exception {}

  @AfterEach
  void stop() throws Exception {
    server.close();
    otel.close();
  }

  private RetryPolicy<Object> policy() {
    return RetryPolicy.builder().name("spring").maxAttempts(3).backoff(Backoff.none())
        .listener(telemetry.httpListener()).build();
  }

  private List<SpanData> attempts() {
    List<SpanData> attempts = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("retry attempt"))
        .sorted(Comparator.comparing(s -> s.getAttributes().get(AttributeKey.longKey("backoff.attempt"))))
        .toList();
    assertThat(attempts).hasSize(3);
    assertThat(attempts).extracting(s -> s.getAttributes().get(RESEND_COUNT)).containsExactly(null, 1L, 2L);
    assertThat(attempts).extracting(s -> s.getAttributes().get(STATUS)).containsExactly(503L, 503L, 200L);
    return attempts;
  }

  @Test
  void restClientAttemptsCarryResendsAndStatuses() {
    RestClient client = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory())
        .requestInterceptor(BackoffRestInterceptor.of(policy())).build();

    assertThat(client.get().uri(server.uri("/x")).retrieve().body(String.class)).isEqualTo("ok");

    List<SpanData> attempts = attempts();
    assertThat(attempts).extracting(s -> s.getAttributes().get(METHOD)).containsOnlyNulls();
    assertThat(attempts).extracting(s -> s.getAttributes().get(URL)).containsOnlyNulls();
  }

  @Test
  void webClientAttemptsCarryResendsStatusesMethodAndUrl() {
    WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
        .filter(BackoffExchangeFilter.of(policy())).build();

    assertThat(client.get().uri(server.uri("/x")).retrieve().bodyToMono(String.class).block(Duration.ofSeconds(30)))
        .isEqualTo("ok");

    List<SpanData> attempts = attempts();
    assertThat(attempts).extracting(s -> s.getAttributes().get(METHOD)).containsOnly("GET");
    assertThat(attempts).extracting(s -> s.getAttributes().get(URL)).containsOnly(server.uri("/x").toString());
  }
}
