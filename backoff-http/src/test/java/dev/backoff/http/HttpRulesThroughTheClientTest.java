package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.ProtocolException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.security.cert.CertificateExpiredException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The HTTP rules ({@code HttpRules}) as the java.net.http client applies them, end to end. */
class HttpRulesThroughTheClientTest {
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
}
