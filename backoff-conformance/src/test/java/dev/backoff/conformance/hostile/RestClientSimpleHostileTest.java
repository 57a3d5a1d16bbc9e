package dev.backoff.conformance.hostile;

import java.time.Duration;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.SimpleClientHttpRequestFactory;

/**
 * The hostile servers against {@code BackoffRestInterceptor} on Spring's {@code RestClient} over
 * {@code HttpURLConnection} ({@link SimpleClientHttpRequestFactory}) with a read timeout, as docs/spring-web.md
 * requires for this factory: {@code HttpURLConnection} lets no other thread end a read blocked on a silent
 * connection (closing its stream, or disconnecting, blocks behind the read), so the call's deadline can end
 * such a read only through the socket's own timeout. A trickling body needs no timeout: the deadline ends it
 * at the first read after it. A blocking interceptor cannot hedge, so the hedging cases are skipped.
 */
class RestClientSimpleHostileTest extends RestClientHostileSuite {
  /** Below the stalled cases' deadline, so that a silent connection ends within it. */
  static final Duration READ_TIMEOUT = Duration.ofMillis(400);

  @Override
  protected String adapter() {
    return "RestClient on SimpleClientHttpRequestFactory";
  }

  @Override
  ClientHttpRequestFactory requestFactory() {
    SimpleClientHttpRequestFactory factory = new SimpleClientHttpRequestFactory();
    factory.setReadTimeout(READ_TIMEOUT);
    return factory;
  }
}
