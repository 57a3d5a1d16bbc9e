package dev.backoff.http.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.FailureClass;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.MalformedURLException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.UnknownServiceException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.security.cert.CertificateExpiredException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpRulesTest {
  static final Instant NOW = Instant.parse("1994-11-06T08:49:30Z");
  static final HttpRules RULES = HttpRules.defaults();

  static HttpRequestView request(String method, String... headers) {
    return request(method, true, headers);
  }

  static HttpRequestView request(String method, boolean bodyRepeatable, String... headers) {
    Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < headers.length; i += 2) {
      byName.put(headers[i], headers[i + 1]);
    }
    return HttpRequestView.of(method, byName::get, bodyRepeatable);
  }

  // ------------------------------------------------------------------------------------- failures

  @Test
  void classifiesWhatIsWorthRetrying() {
    assertThat(HttpRules.isRetryableFailure(new HttpTimeoutException("request timed out"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new HttpConnectTimeoutException("connect timed out"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new SocketTimeoutException("timeout"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new TimeoutException())).isTrue();
    assertThat(HttpRules.isRetryableFailure(new ConnectException("Connection refused"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new SocketException("Connection reset"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new IOException("Connection reset by peer"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new IOException("HTTP/1.1 header parser received no bytes"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new IOException("connection closed locally"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new IOException("unexpected end of stream on http://x/..."))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new ProtocolException("unexpected end of stream"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new EOFException("EOF reached while reading"))).isTrue();
    assertThat(HttpRules.isRetryableFailure(new IOException("disk full"))).isFalse();
    assertThat(HttpRules.isRetryableFailure(new IOException((String) null))).isFalse();
    assertThat(HttpRules.isRetryableFailure(new RuntimeException("bug"))).isFalse();
    // A cancelled or call-timed-out OkHttp call is an interruption, not a timeout to retry.
    assertThat(HttpRules.isRetryableFailure(new InterruptedIOException("timeout"))).isFalse();
  }

  @Test
  void otherClientsLostConnectionsAreRecognisedByClassName() {
    // Reactor Netty (WebClient's default connector): the connection closed before the response came.
    IOException premature = new reactor.netty.http.client.PrematureCloseException(
        "Connection prematurely closed BEFORE response");
    assertThat(HttpRules.isRetryableFailure(premature)).isTrue();
    assertThat(HttpRules.isPermanentFailure(premature)).isFalse();
    assertThat(HttpRules.neverSent(premature)).isFalse(); // the server may have seen the request
    // Spring wraps it in an unchecked exception; the walk over causes finds it.
    assertThat(HttpRules.classifyFailure(new IllegalStateException("request failed", premature)))
        .hasValue(FailureClass.TRANSIENT);
    // The name decides, not the message: the same message on another IOException subclass is not known.
    assertThat(HttpRules.isRetryableFailure(new PrematureCloseException(
        "Connection prematurely closed BEFORE response"))).isFalse();
  }

  /** Same simple name as Reactor Netty's, another package: not recognised. */
  private static final class PrematureCloseException extends IOException {
    private static final long serialVersionUID = 1L;

    PrematureCloseException(String message) {
      super(message);
    }
  }

  @Test
  void permanentFailuresAreNeverRetried() {
    SSLHandshakeException handshake = new SSLHandshakeException("PKIX path building failed");
    assertThat(HttpRules.isPermanentFailure(handshake)).isTrue();
    assertThat(HttpRules.isPermanentFailure(new CertificateExpiredException("NotAfter: 2020"))).isTrue();
    assertThat(HttpRules.isPermanentFailure(new UnknownHostException("api.invalid"))).isTrue();
    assertThat(HttpRules.isPermanentFailure(new UnknownServiceException("CLEARTEXT not permitted"))).isTrue();
    assertThat(HttpRules.isPermanentFailure(new MalformedURLException("no protocol"))).isTrue();
    assertThat(HttpRules.isPermanentFailure(new IllegalArgumentException("unsupported URI scheme"))).isTrue();
    assertThat(HttpRules.isPermanentFailure(new ProtocolException("Invalid status line"))).isTrue();
    assertThat(HttpRules.isPermanentFailure(new ProtocolException("unexpected end of stream"))).isFalse();
    assertThat(HttpRules.isPermanentFailure(new SocketException("Connection reset"))).isFalse();
  }

  @Test
  void classifiesFailuresFromTheirCauses() {
    assertThat(HttpRules.classifyFailure(new IOException("wrapped", new SocketTimeoutException("read timed out"))))
        .hasValue(FailureClass.TIMEOUT);
    assertThat(HttpRules.classifyFailure(new IOException("wrapped", new SocketException("Connection reset"))))
        .hasValue(FailureClass.TRANSIENT);
    assertThat(HttpRules.classifyFailure(new IOException("wrapped", new SSLHandshakeException("bad certificate"))))
        .hasValue(HttpRules.PERMANENT);
    // Permanent wins over retryable anywhere in the chain.
    assertThat(HttpRules.classifyFailure(new SocketTimeoutException("x").initCause(new UnknownHostException("h"))))
        .hasValue(HttpRules.PERMANENT);
    assertThat(HttpRules.classifyFailure(new IOException("disk full"))).isEmpty();
    assertThat(HttpRules.PERMANENT.name()).isEqualTo("permanent");
  }

  @Test
  void causeCyclesEndTheWalks() {
    IOException a = new IOException("a");
    IOException b = new IOException("b", a);
    a.initCause(b);
    assertThat(HttpRules.neverSent(a)).isFalse();
    assertThat(HttpRules.classifyFailure(a)).isEmpty();
  }

  @Test
  void onlyFailuresBeforeTheRequestLeftAreNeverSent() {
    assertThat(HttpRules.neverSent(new ConnectException("Connection refused"))).isTrue();
    assertThat(HttpRules.neverSent(new IOException("x", new ConnectException("refused")))).isTrue();
    assertThat(HttpRules.neverSent(new HttpConnectTimeoutException("HTTP connect timed out"))).isTrue();
    assertThat(HttpRules.neverSent(new SocketTimeoutException("Connect timed out"))).isTrue();
    assertThat(HttpRules.neverSent(new SocketTimeoutException("Read timed out"))).isFalse();
    assertThat(HttpRules.neverSent(new HttpTimeoutException("request timed out"))).isFalse();
    assertThat(HttpRules.neverSent(new SocketException("Connection reset"))).isFalse();
  }

  // ------------------------------------------------------------------------------------- requests

  @ParameterizedTest
  @ValueSource(strings = {"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE", "get", "Put"})
  void idempotentMethodsAreRepeatable(String method) {
    assertThat(RULES.isRepeatable(request(method))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"POST", "PATCH", "PROPFIND", "LOCK", "CONNECT"})
  void otherMethodsNeedAKeyOrAnOptIn(String method) {
    assertThat(RULES.isRepeatable(request(method))).isFalse();
    assertThat(RULES.isRepeatable(request(method, "Idempotency-Key", " "))).isFalse();
    assertThat(RULES.isRepeatable(request(method, "idempotency-key", "k1"))).isTrue();
    assertThat(HttpRules.builder().retryNonIdempotent().build().isRepeatable(request(method))).isTrue();
    assertThat(HttpRules.builder().retryMethods(method.toLowerCase()).build().isRepeatable(request(method)))
        .isTrue();
    assertThat(HttpRules.builder().retryMethods("OTHER").build().isRepeatable(request(method))).isFalse();
  }

  @Test
  void aBodyThatCannotBeReplayedIsNeverRepeatedWhateverTheMethod() {
    HttpRules everything = HttpRules.builder().retryNonIdempotent().build();
    assertThat(everything.isRepeatable(request("PUT", false))).isFalse();
    assertThat(everything.isRepeatable(request("POST", false, "Idempotency-Key", "k1"))).isFalse();
    assertThat(everything.methodAllowsRetry(request("POST", false))).isTrue();
  }

  // ------------------------------------------------------------------------------------ responses

  @Test
  void throttlingStatusesAreThrottled() {
    assertThat(HttpRules.classifyStatus(429)).isEqualTo(FailureClass.THROTTLED);
    assertThat(HttpRules.classifyStatus(503)).isEqualTo(FailureClass.THROTTLED);
    assertThat(HttpRules.classifyStatus(500)).isEqualTo(FailureClass.TRANSIENT);
    assertThat(HttpRules.classifyStatus(502)).isEqualTo(FailureClass.TRANSIENT);
    assertThat(HttpRules.classifyStatus(504)).isEqualTo(FailureClass.TRANSIENT);
  }

  @Test
  void defaultStatusesAndChangingThem() {
    assertThat(RULES.retryStatuses()).containsExactly(429, 500, 502, 503, 504);
    assertThat(RULES.isRetryStatus(200)).isFalse();
    assertThat(RULES.isRetryStatus(-1)).isFalse();
    assertThat(RULES.isRetryStatus(1_000)).isFalse();
    HttpRules more = RULES.toBuilder().retryOnStatus(408).build();
    assertThat(more.retryStatuses()).containsExactly(408, 429, 500, 502, 503, 504);
    assertThat(RULES.retryStatuses()).as("the defaults are unchanged").doesNotContain(408);
    assertThat(HttpRules.builder().retryOnlyOnStatus(503).build().retryStatuses()).containsExactly(503);
    assertThat(HttpRules.builder().retryOnlyOnStatus().build().retryStatuses()).isEmpty();
  }

  // ------------------------------------------------------------------------------------- builder

  @Test
  void badSettingsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> HttpRules.builder().retryOnStatus(200, 600))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("status must be between 100 and 599, was 600");
    assertThatThrownBy(() -> HttpRules.builder().retryOnlyOnStatus(99))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("status must be between 100 and 599, was 99");
    assertThatThrownBy(() -> HttpRules.builder().retryMethods("PO ST"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("method must be a non-blank token, was 'PO ST'");
    assertThatThrownBy(() -> HttpRules.builder().retryMethods(""))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("method must be a non-blank token, was ''");
    assertThatThrownBy(() -> HttpRules.builder().maxRetryAfter(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxRetryAfter must not be negative, was PT-1S");
    assertThatThrownBy(() -> HttpRules.builder().readAheadLimit(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("readAheadLimit must be between 0 and 1073741824 bytes, was -1");
    assertThatThrownBy(() -> HttpRules.builder().readAheadLimit(HttpRules.MAX_READ_AHEAD_LIMIT + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("readAheadLimit must be between 0 and 1073741824 bytes, was 1073741825");
    assertThatThrownBy(() -> HttpRules.builder().wallClock(null))
        .isInstanceOf(NullPointerException.class).hasMessage("wallClock must not be null");
    // A rejected setter changes nothing.
    HttpRules.Builder builder = HttpRules.builder();
    assertThatThrownBy(() -> builder.retryOnStatus(408, 700)).isInstanceOf(IllegalArgumentException.class);
    assertThat(builder.build().retryStatuses()).doesNotContain(408);
  }

  @Test
  void readAheadDefaultsTo64KibAndIsConfigurable() {
    assertThat(HttpRules.DEFAULT_READ_AHEAD_LIMIT).isEqualTo(64 * 1024);
    assertThat(RULES.readAheadLimit()).isEqualTo(64 * 1024);
    assertThat(HttpRules.builder().readAheadLimit(0).build().readAheadLimit()).isZero();
    assertThat(HttpRules.builder().readAheadLimit(HttpRules.MAX_READ_AHEAD_LIMIT).build().readAheadLimit())
        .isEqualTo(1 << 30);
  }

  @Test
  void toBuilderKeepsEverySetting() {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    HttpRules rules = HttpRules.builder().retryOnlyOnStatus(503).retryMethods("post").retryNonIdempotent()
        .maxRetryAfter(Duration.ofSeconds(30)).readAheadLimit(10).wallClock(clock).build();
    HttpRules copy = rules.toBuilder().build();
    assertThat(copy.retryStatuses()).containsExactly(503);
    assertThat(copy.retryMethods()).containsExactly("POST");
    assertThat(copy.retriesNonIdempotent()).isTrue();
    assertThat(copy.maxRetryAfter()).hasValue(Duration.ofSeconds(30));
    assertThat(copy.readAheadLimit()).isEqualTo(10);
    assertThat(copy.wallClock()).isSameAs(clock);
    assertThat(copy.toString())
        .isEqualTo("HttpRules[statuses [503], every method, maxRetryAfter PT30S, readAhead 10 B]");
  }
}
