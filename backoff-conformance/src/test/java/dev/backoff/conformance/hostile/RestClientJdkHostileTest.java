package dev.backoff.conformance.hostile;

import java.net.http.HttpClient;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;

/**
 * The hostile servers against {@code BackoffRestInterceptor} on Spring's {@code RestClient} over the JDK's
 * {@code java.net.http} client ({@link JdkClientHttpRequestFactory}), the factory's timeouts at their
 * defaults. A blocking interceptor cannot hedge, so the hedging cases are skipped.
 */
class RestClientJdkHostileTest extends RestClientHostileSuite {
  @Override
  protected String adapter() {
    return "RestClient on JdkClientHttpRequestFactory";
  }

  @Override
  ClientHttpRequestFactory requestFactory() {
    return new JdkClientHttpRequestFactory(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
  }
}
