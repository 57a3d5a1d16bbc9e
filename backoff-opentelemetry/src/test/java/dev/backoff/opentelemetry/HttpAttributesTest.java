package dev.backoff.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.Backoff;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.httpclient5.HttpClient5Retry;
import dev.backoff.okhttp.BackoffOkHttp;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP listener through the HTTP drivers other than java.net.http (which {@link RetryTelemetryTest}
 * covers), each against a real loopback server answering 503, 503, then 200; spans read back from the SDK's
 * in-memory exporter. The attribute names are spelled out here, not taken from the code under test.
 */
class HttpAttributesTest {
  private static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
  private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  private static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
      .build();
  private final RetryTelemetry telemetry = RetryTelemetry.create(otel);
  private final AtomicInteger requests = new AtomicInteger();
  private HttpServer server;
  private String url;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      int status = requests.incrementAndGet() < 3 ? 503 : 200;
      byte[] body = ("status " + status).getBytes();
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort() + "/items?page=2";
  }

  @AfterEach
  void stop() {
    server.stop(0);
    otel.close();
  }

  private <R> RetryPolicy<R> policy(String name) {
    return RetryPolicy.<R>builder().name(name).maxAttempts(3).backoff(Backoff.none())
        .listener(telemetry.httpListener()).build();
  }

  private List<SpanData> attempts() {
    return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("retry attempt"))
        .sorted(Comparator.comparing(s -> s.getAttributes().get(AttributeKey.longKey("backoff.attempt"))))
        .collect(Collectors.toList());
  }

  /** Resends counted from the second attempt, statuses 503, 503, 200, the 503s marked as errors. */
  private List<SpanData> assertResendsAndStatuses() {
    List<SpanData> attempts = attempts();
    assertThat(attempts).hasSize(3);
    assertThat(attempts).extracting(s -> s.getAttributes().get(RESEND_COUNT)).containsExactly(null, 1L, 2L);
    assertThat(attempts).extracting(s -> s.getAttributes().get(STATUS)).containsExactly(503L, 503L, 200L);
    assertThat(attempts).extracting(s -> s.getAttributes().get(ERROR_TYPE)).containsExactly("503", "503", null);
    assertThat(attempts).extracting(s -> s.getStatus().getStatusCode())
        .containsExactly(StatusCode.ERROR, StatusCode.ERROR, StatusCode.UNSET);
    return attempts;
  }

  @Test
  void okHttpThroughTheInterceptor() throws Exception {
    BackoffOkHttp retry = BackoffOkHttp.of(policy("okhttp"));
    OkHttpClient client = new OkHttpClient.Builder().addInterceptor(retry.interceptor()).build();
    try (Response response = client.newCall(new Request.Builder().url(url).build()).execute()) {
      assertThat(response.code()).isEqualTo(200);
    }
    List<SpanData> attempts = assertResendsAndStatuses();
    assertThat(attempts).extracting(s -> s.getAttributes().get(METHOD)).containsOnly("GET");
    assertThat(attempts).extracting(s -> s.getAttributes().get(URL)).containsOnly(url);
    client.dispatcher().executorService().shutdown();
    client.connectionPool().evictAll();
  }

  @Test
  void okHttpThroughEnqueueOnTheAsyncLoop() throws Exception {
    BackoffOkHttp retry = BackoffOkHttp.of(policy("okhttp"));
    OkHttpClient client = new OkHttpClient();
    try (Response response = retry.enqueue(client, new Request.Builder().url(url).build()).get(30, TimeUnit.SECONDS)) {
      assertThat(response.code()).isEqualTo(200);
    }
    List<SpanData> attempts = assertResendsAndStatuses();
    assertThat(attempts).extracting(s -> s.getAttributes().get(METHOD)).containsOnly("GET");
    assertThat(attempts).extracting(s -> s.getAttributes().get(URL)).containsOnly(url);
    client.dispatcher().executorService().shutdown();
    client.connectionPool().evictAll();
  }

  @Test
  void httpClient5ClassicGetsStatusesAndResendsButNoMethodOrUrl() throws Exception {
    HttpClient5Retry retry = HttpClient5Retry.of(this.<HttpResponse>policy("httpclient5"));
    try (CloseableHttpClient client = retry.install(HttpClients.custom()).build()) {
      int status = client.execute(new HttpGet(url), response -> response.getCode());
      assertThat(status).isEqualTo(200);
    }
    List<SpanData> attempts = assertResendsAndStatuses();
    // HttpClient 5's responses do not carry their request: documented, and checked so a change shows.
    assertThat(attempts).extracting(s -> s.getAttributes().get(METHOD)).containsOnlyNulls();
    assertThat(attempts).extracting(s -> s.getAttributes().get(URL)).containsOnlyNulls();
  }

  @Test
  void aReaderOfYourOwnSuppliesTheAttributesOfAnyResultType() throws Exception {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().name("own").maxAttempts(3).backoff(Backoff.none())
        .retryOnResult(result -> result.startsWith("503"))
        .listener(telemetry.<String>httpListener(result ->
            new HttpAttributes.Exchange(Integer.parseInt(result.substring(0, 3)), "PUT", "http://example.test/x")))
        .build();
    AtomicInteger calls = new AtomicInteger();
    String result = RetryExecutor.of(policy).call(() -> calls.incrementAndGet() < 3 ? "503 busy" : "200 ok");
    assertThat(result).isEqualTo("200 ok");
    List<SpanData> attempts = assertResendsAndStatuses();
    assertThat(attempts).extracting(s -> s.getAttributes().get(METHOD)).containsOnly("PUT");
    assertThat(attempts).extracting(s -> s.getAttributes().get(URL)).containsOnly("http://example.test/x");
  }

  @Test
  void aReaderThatThrowsLosesTheAttributesNotTheCall() throws Exception {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().name("own").maxAttempts(2).backoff(Backoff.none())
        .listener(telemetry.<String>httpListener(result -> {
          throw new IllegalStateException("unreadable");
        }))
        .build();
    assertThat(RetryExecutor.of(policy).call(() -> "fine")).isEqualTo("fine");
    List<SpanData> attempts = attempts();
    assertThat(attempts).hasSize(1);
    assertThat(attempts.get(0).getAttributes().get(STATUS)).isNull();
    assertThat(attempts.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void detectIgnoresResultsThatAreNoKnownResponse() {
    assertThat(HttpAttributes.detect().read("a string")).isNull();
    assertThat(HttpAttributes.detect().read(List.of(503))).isNull();
  }

  @Test
  void badInputIsRefusedByName() {
    assertThatThrownBy(() -> new HttpAttributes.Exchange(42, "GET", null))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("status must be between 100 and 999, was 42");
    assertThatThrownBy(() -> telemetry.httpListener(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("attributes");
  }
}
