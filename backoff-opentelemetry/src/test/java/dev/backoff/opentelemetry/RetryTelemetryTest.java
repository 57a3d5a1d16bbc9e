package dev.backoff.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.http.RetryingHttpClient;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingSleeper;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Spans and metrics, read back from the OpenTelemetry SDK's in-memory exporters. */
class RetryTelemetryTest {
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
      .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
      .build();
  private final RetryTelemetry telemetry = RetryTelemetry.create(otel);
  private final FakeClock clock = new FakeClock();

  @AfterEach
  void close() {
    otel.close();
  }

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().name("orders").maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(250)))
        .clock(clock).sleeper(new RecordingSleeper(clock)).listener(telemetry.listener());
  }

  private List<SpanData> attempts() {
    return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("retry attempt"))
        .sorted(Comparator.comparing(s -> s.getAttributes().get(RetryTelemetry.ATTEMPT)))
        .collect(Collectors.toList());
  }

  private SpanData callSpan() {
    List<SpanData> calls = spans.getFinishedSpanItems().stream().filter(s -> s.getName().startsWith("retry orders"))
        .collect(Collectors.toList());
    assertThat(calls).hasSize(1);
    return calls.get(0);
  }

  private MetricData metric(String name) {
    return metrics.collectAllMetrics().stream().filter(m -> m.getName().equals(name)).findFirst().orElseThrow();
  }

  @SuppressWarnings("try") // the scope is entered for its effect: the span made inside it
  @Test
  void aSyncCallIsOneSpanWithAChildSpanPerAttemptUnderTheCallersSpan() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    Span outer = otel.getTracer("test").spanBuilder("request").startSpan();
    String result;
    try (Scope ignored = outer.makeCurrent()) {
      result = RetryExecutor.of(policy().build()).call(() -> {
        clock.advance(Duration.ofMillis(10));
        if (tries.incrementAndGet() < 3) {
          throw new IOException("down " + tries.get());
        }
        return "ok";
      });
    } finally {
      outer.end();
    }

    assertThat(result).isEqualTo("ok");
    SpanData call = callSpan();
    assertThat(call.getParentSpanId()).isEqualTo(outer.getSpanContext().getSpanId());
    assertThat(call.getAttributes().get(RetryTelemetry.POLICY)).isEqualTo("orders");
    assertThat(call.getAttributes().get(RetryTelemetry.ATTEMPTS)).isEqualTo(3L);
    assertThat(call.getAttributes().get(RetryTelemetry.OUTCOME)).isEqualTo("success");
    assertThat(call.getAttributes().get(RetryTelemetry.STOP_REASON)).isNull();
    assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(call.getEvents()).extracting(e -> e.getName())
        .containsExactly("backoff.retry_scheduled", "backoff.retry_scheduled");
    assertThat(call.getEvents().get(0).getAttributes().get(RetryTelemetry.RETRY_DELAY)).isEqualTo(0.25);

    List<SpanData> attempts = attempts();
    assertThat(attempts).hasSize(3);
    assertThat(attempts).allSatisfy(a -> {
      assertThat(a.getParentSpanId()).isEqualTo(call.getSpanId());
      assertThat(a.getTraceId()).isEqualTo(outer.getSpanContext().getTraceId());
    });
    assertThat(attempts.get(0).getAttributes().get(RetryTelemetry.RETRY_DELAY)).isNull();
    assertThat(attempts.get(1).getAttributes().get(RetryTelemetry.RETRY_DELAY)).isEqualTo(0.25);
    assertThat(attempts.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(attempts.get(0).getAttributes().get(RetryTelemetry.ERROR_TYPE)).isEqualTo("java.io.IOException");
    assertThat(attempts.get(0).getEvents()).extracting(e -> e.getName()).containsExactly("exception");
    assertThat(attempts.get(2).getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(attempts).allSatisfy(a ->
        assertThat(a.getAttributes().get(RetryTelemetry.RESEND_COUNT)).as("not an HTTP listener").isNull());
  }

  @Test
  void exhaustedRetriesMarkTheCallSpanWithTheStopReason() {
    Throwable thrown = catchThrowable(() -> RetryExecutor.of(policy().build()).call(() -> {
      throw new IOException("down");
    }));

    assertThat(thrown).isInstanceOf(IOException.class);
    SpanData call = callSpan();
    assertThat(call.getAttributes().get(RetryTelemetry.OUTCOME)).isEqualTo("exhausted");
    assertThat(call.getAttributes().get(RetryTelemetry.STOP_REASON)).isEqualTo("attempts_exhausted");
    assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(call.getStatus().getDescription()).isEqualTo("attempts exhausted");
    assertThat(call.getEvents()).extracting(e -> e.getName()).contains("exception");
    assertThat(attempts()).hasSize(3);
  }

  @Test
  void aRetryTheConcurrencyLimiterRefusesIsTheStopReason() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(2).name("inventory").build();
    // One slot of two held elsewhere: a retry may take one of max(1, floor(2 × 0.8)) = 1, so it is refused.
    ConcurrencyLimiter.Permit held = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
    Throwable thrown = catchThrowable(() -> RetryExecutor.of(policy().concurrencyLimiter(limiter).build()).call(() -> {
      throw new IOException("down");
    }));
    held.release();

    assertThat(thrown).isInstanceOf(IOException.class);
    SpanData call = callSpan();
    assertThat(call.getAttributes().get(RetryTelemetry.OUTCOME)).isEqualTo("exhausted");
    assertThat(call.getAttributes().get(RetryTelemetry.STOP_REASON)).isEqualTo("concurrency_limited");
    assertThat(call.getStatus().getDescription()).isEqualTo("concurrency limit reached");
    assertThat(attempts()).hasSize(1);
    HistogramPointData duration = metric("backoff.call.duration").getHistogramData().getPoints().iterator().next();
    assertThat(duration.getAttributes().get(RetryTelemetry.STOP_REASON)).isEqualTo("concurrency_limited");
  }

  @Test
  void metricsCountAttemptsAndTimeCallsAndDelays() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    RetryExecutor<String> retry = RetryExecutor.of(policy().build());
    retry.call(() -> {
      clock.advance(Duration.ofMillis(10));
      if (tries.incrementAndGet() < 3) {
        throw new IOException("down");
      }
      return "ok";
    });

    long attempts = metric("backoff.attempts").getLongSumData().getPoints().stream()
        .mapToLong(LongPointData::getValue).sum();
    assertThat(attempts).isEqualTo(3);
    assertThat(metric("backoff.attempts").getLongSumData().getPoints())
        .anySatisfy(p -> {
          assertThat(p.getAttributes().get(RetryTelemetry.ERROR_TYPE)).isEqualTo("java.io.IOException");
          assertThat(p.getValue()).isEqualTo(2);
        });
    HistogramPointData duration = metric("backoff.call.duration").getHistogramData().getPoints().iterator().next();
    assertThat(duration.getCount()).isEqualTo(1);
    assertThat(duration.getSum()).isEqualTo(530_000_000 / 1e9); // three 10 ms attempts, two 250 ms waits
    assertThat(duration.getAttributes().get(RetryTelemetry.OUTCOME)).isEqualTo("success");
    assertThat(metric("backoff.call.duration").getUnit()).isEqualTo("s");
    HistogramPointData delays = metric("backoff.retry.delay").getHistogramData().getPoints().iterator().next();
    assertThat(delays.getCount()).isEqualTo(2);
    assertThat(delays.getSum()).isEqualTo(0.5);
    assertThat(delays.getAttributes().get(RetryTelemetry.FAILURE_CLASS)).isEqualTo("transient");
  }

  @SuppressWarnings("try") // the scope is entered for its effect: the span made inside it
  @Test
  void anAsyncCallsAttemptsOnOtherThreadsStillNestUnderItsSpan() {
    FakeScheduler scheduler = new FakeScheduler(clock);
    AtomicInteger tries = new AtomicInteger();
    Span outer = otel.getTracer("test").spanBuilder("request").startSpan();
    CompletableFuture<String> result;
    try (Scope ignored = outer.makeCurrent()) {
      result = AsyncRetryExecutor.of(policy().build(), scheduler).call(() -> tries.incrementAndGet() < 2
          ? CompletableFuture.failedFuture(new IOException("down")) : CompletableFuture.completedFuture("ok"));
    } finally {
      outer.end();
    }
    scheduler.advance(Duration.ofSeconds(1)); // the retry runs outside the caller's context

    assertThat(result).isCompletedWithValue("ok");
    SpanData call = callSpan();
    assertThat(call.getParentSpanId()).isEqualTo(outer.getSpanContext().getSpanId());
    assertThat(attempts()).hasSize(2).allSatisfy(a -> assertThat(a.getParentSpanId()).isEqualTo(call.getSpanId()));
  }

  @Test
  void concurrentCallsKeepTheirAttemptsApart() throws Exception {
    RetryExecutor<String> retry = RetryExecutor.of(policy().build());
    AtomicInteger a = new AtomicInteger();
    AtomicInteger b = new AtomicInteger();
    // Call B runs entirely inside call A's first attempt, on the same thread.
    retry.call(() -> {
      if (a.incrementAndGet() == 1) {
        retry.call(() -> {
          if (b.incrementAndGet() == 1) {
            throw new IOException("b down");
          }
          return "b";
        });
        throw new IOException("a down");
      }
      return "a";
    });

    List<SpanData> calls = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("retry orders"))
        .collect(Collectors.toList());
    assertThat(calls).hasSize(2);
    for (SpanData call : calls) {
      assertThat(attempts().stream().filter(s -> s.getParentSpanId().equals(call.getSpanId()))).hasSize(2);
    }
  }

  @Test
  void theHttpListenerMarksResendsAndStatusesOnARealLoopbackServer() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger requests = new AtomicInteger();
    server.createContext("/", exchange -> {
      int status = requests.incrementAndGet() < 3 ? 503 : 200;
      byte[] body = ("status " + status).getBytes();
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      RetryingHttpClient http = RetryingHttpClient.builder(HttpClient.newHttpClient())
          .policy(RetryPolicy.<HttpResponse<?>>builder().name("api").maxAttempts(3).backoff(Backoff.none())
              .listener(telemetry.httpListener()).build())
          .build();
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/items");
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      List<SpanData> attempts = attempts();
      assertThat(attempts).hasSize(3);
      // The semantic conventions' names, spelled out here rather than taken from the code under test.
      AttributeKey<Long> resendCount = AttributeKey.longKey("http.request.resend_count");
      assertThat(attempts.get(0).getAttributes().get(resendCount)).isNull();
      assertThat(attempts.get(1).getAttributes().get(resendCount)).isEqualTo(1L);
      assertThat(attempts.get(2).getAttributes().get(resendCount)).isEqualTo(2L);
      assertThat(attempts).extracting(s -> s.getAttributes().get(AttributeKey.longKey("http.response.status_code")))
          .containsExactly(503L, 503L, 200L);
      assertThat(attempts.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(attempts.get(0).getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo("503");
      assertThat(attempts.get(2).getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
      assertThat(attempts.get(2).getAttributes().get(AttributeKey.stringKey("http.request.method"))).isEqualTo("GET");
      assertThat(attempts.get(2).getAttributes().get(AttributeKey.stringKey("url.full"))).isEqualTo(uri.toString());
      assertThat(spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("retry api"))).hasSize(1);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void nullOpenTelemetryIsRefusedByName() {
    assertThatThrownBy(() -> RetryTelemetry.create(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("openTelemetry");
  }
}
