package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.Decision;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.CallState;
import dev.backoff.driver.Engine;
import dev.backoff.testing.FakeClock;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What the client does with a Retry-After, end to end through its decision: a larger well-formed value
 * never gives a sooner retry (a stop counts as never).
 */
class RetryAfterDecisionProperties {
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final HttpRequest GET = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).build();

  @Provide
  Arbitrary<BigInteger> seconds() {
    return Arbitraries.oneOf(
        Arbitraries.bigIntegers().between(BigInteger.ZERO, BigInteger.valueOf(120)),
        Arbitraries.bigIntegers().between(BigInteger.ZERO, BigInteger.TEN.pow(25)),
        Arbitraries.of(9_223_372_036L, 9_223_372_037L, Long.MAX_VALUE).map(BigInteger::valueOf));
  }

  @Provide
  Arbitrary<Duration> maxPushback() {
    return Arbitraries.of(Duration.ZERO, Duration.ofSeconds(60), Duration.ofDays(365 * 300L),
        Duration.ofNanos(Long.MAX_VALUE));
  }

  @Property
  void aLargerRetryAfterNeverGivesASoonerRetry(@ForAll("seconds") BigInteger a, @ForAll("seconds") BigInteger b,
      @ForAll("maxPushback") Duration maxPushback) {
    RetryingHttpClient client = RetryingHttpClient.builder(HTTP)
        .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(100)))
            .maxPushback(maxPushback).clock(new FakeClock()).build())
        .wallClock(java.time.Clock.fixed(Instant.EPOCH, ZoneOffset.UTC))
        .build();
    BigInteger smaller = a.min(b);
    BigInteger larger = a.max(b);

    assertThat(wait(client, larger.toString())).isGreaterThanOrEqualTo(wait(client, smaller.toString()));
  }

  /** The wait before the retry in nanoseconds; a stop on the pushback is "never" (Long.MAX_VALUE). */
  static long wait(RetryingHttpClient client, String retryAfter) {
    // The client's judge, then the engine: what the loops do with an attempt's outcome.
    Exchange<Object> exchange = new Exchange<>(client, client.policy(), GET, true,
        HttpResponse.BodyHandlers.replacing(null), false);
    Response response = new Response(retryAfter);
    CallState<HttpResponse<?>> execution = Engine.newExecution(client.policy(), 0, client.policy().random());
    Decision decision = Engine.record(execution, response, null, exchange.judge(client.policy(), response, null), 0);
    if (decision.isRetry()) {
      return decision.delayNanos();
    }
    assertThat(decision.stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    return Long.MAX_VALUE;
  }

  /** A 503 with one Retry-After header, nothing else. */
  record Response(String retryAfter) implements HttpResponse<Object> {
    @Override
    public int statusCode() {
      return 503;
    }

    @Override
    public HttpRequest request() {
      return GET;
    }

    @Override
    public Optional<HttpResponse<Object>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return HttpHeaders.of(Map.of("Retry-After", List.of(retryAfter)), (name, value) -> true);
    }

    @Override
    public Object body() {
      return null;
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return GET.uri();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }
}
