package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.RecordingSleeper;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.MalformedURLException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.security.cert.CertificateExpiredException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class HttpRetryRulesTest {
  static final URI SOMEWHERE = URI.create("http://api.invalid/v1");

  static Stream<Exception> permanentFailures() {
    SSLHandshakeException handshake = new SSLHandshakeException("PKIX path building failed");
    handshake.initCause(new CertificateExpiredException("NotAfter: 2020"));
    return Stream.of(new UnknownHostException("api.invalid"), handshake,
        new IOException("wrapped", new SSLHandshakeException("bad certificate")),
        new MalformedURLException("no protocol"), new IllegalArgumentException("unsupported URI scheme"),
        new ProtocolException("Invalid status line"));
  }

  @ParameterizedTest
  @MethodSource("permanentFailures")
  void permanentFailuresAreNotRetriedThroughTheClient(Exception failure) throws Exception {
    RecordingSleeper sleeper = new RecordingSleeper();
    CountingHttpClient failing = new CountingHttpClient(HttpClient.newHttpClient(), failure);
    RetryingHttpClient http = RetryingHttpClient.builder(failing)
        .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(5).sleeper(sleeper).build()).build();

    Throwable thrown = catchThrowable(() -> http.send(HttpRequest.newBuilder(SOMEWHERE).build(),
        BodyHandlers.ofString()));

    assertThat(thrown).isSameAs(failure);
    assertThat(failing.sends).hasValue(1);
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void permanentFailuresAreNotRetriedAsynchronouslyEither() throws Exception {
    CountingHttpClient failing = new CountingHttpClient(HttpClient.newHttpClient(), new UnknownHostException("x"));
    RetryingHttpClient http = RetryingHttpClient.builder(failing)
        .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(5).backoff(Backoff.none()).build()).build();

    Throwable thrown = catchThrowable(() -> http.sendAsync(HttpRequest.newBuilder(SOMEWHERE).build(),
        BodyHandlers.ofString()).get(10, TimeUnit.SECONDS));

    assertThat(thrown).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(UnknownHostException.class);
    assertThat(failing.sends).hasValue(1);
  }

  @Test
  void retryableFailuresAreRetriedUntilAttemptsRunOut() throws Exception {
    RecordingSleeper sleeper = new RecordingSleeper();
    CountingHttpClient failing = new CountingHttpClient(HttpClient.newHttpClient(),
        new HttpConnectTimeoutException("HTTP connect timed out"));
    RetryingHttpClient http = RetryingHttpClient.builder(failing)
        .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(4).backoff(Backoff.fixed(Duration.ofSeconds(1)))
            .sleeper(sleeper).build()).build();

    Throwable thrown = catchThrowable(() -> http.send(HttpRequest.newBuilder(SOMEWHERE).build(),
        BodyHandlers.ofString()));

    assertThat(thrown).isInstanceOf(HttpConnectTimeoutException.class);
    assertThat(failing.sends).hasValue(4);
    assertThat(sleeper.sleeps()).hasSize(3);
  }

  @Test
  void classifiesWhatIsWorthRetrying() {
    assertThat(HttpRetryRules.isRetryable(new HttpTimeoutException("request timed out"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new HttpConnectTimeoutException("connect timed out"))).isTrue();
    // The loop's own attempt timeout (the policy's), which times asynchronous exchanges too.
    assertThat(HttpRetryRules.isRetryable(new java.util.concurrent.TimeoutException("attempt 1 timed out"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new ConnectException("Connection refused"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new SocketException("Connection reset"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new IOException("Connection reset by peer"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new IOException("HTTP/1.1 header parser received no bytes"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new IOException("connection closed locally"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new EOFException("EOF reached while reading"))).isTrue();
    assertThat(HttpRetryRules.isRetryable(new IOException("disk full"))).isFalse();
    assertThat(HttpRetryRules.isRetryable(new IOException((String) null))).isFalse();
    assertThat(HttpRetryRules.isRetryable(new RuntimeException("bug"))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE", "get", "Put"})
  void idempotentMethodsAreRepeatable(String method) {
    HttpRequest request = HttpRequest.newBuilder(SOMEWHERE).method(method, HttpRequest.BodyPublishers.noBody())
        .build();
    assertThat(HttpRetryRules.isRepeatable(request, false)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"POST", "PATCH", "PROPFIND", "LOCK"})
  void otherMethodsNeedAKeyOrTheOptIn(String method) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(SOMEWHERE).method(method, HttpRequest.BodyPublishers.noBody());
    assertThat(HttpRetryRules.isRepeatable(builder.build(), false)).isFalse();
    assertThat(HttpRetryRules.isRepeatable(builder.build(), true)).isTrue();
    assertThat(HttpRetryRules.isRepeatable(builder.copy().header("Idempotency-Key", " ").build(), false)).isFalse();
    assertThat(HttpRetryRules.isRepeatable(builder.copy().header("idempotency-key", "k1").build(), false)).isTrue();
  }

  @Test
  void throttlingStatusesAreThrottled() {
    assertThat(HttpRetryRules.classifyStatus(429)).isEqualTo(FailureClass.THROTTLED);
    assertThat(HttpRetryRules.classifyStatus(503)).isEqualTo(FailureClass.THROTTLED);
    assertThat(HttpRetryRules.classifyStatus(500)).isEqualTo(FailureClass.TRANSIENT);
    assertThat(HttpRetryRules.classifyStatus(502)).isEqualTo(FailureClass.TRANSIENT);
    assertThat(HttpRetryRules.classifyStatus(504)).isEqualTo(FailureClass.TRANSIENT);
  }
}
