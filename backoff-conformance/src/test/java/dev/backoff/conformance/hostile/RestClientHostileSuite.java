package dev.backoff.conformance.hostile;

import dev.backoff.spring.web.BackoffRestInterceptor;
import java.io.IOException;
import java.net.URI;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

/**
 * The hostile servers against {@link BackoffRestInterceptor} on Spring's {@code RestClient}, one subclass per
 * request factory. Each call reads the body the way most callers do ({@code retrieve().toEntity(String)}),
 * with a status handler that lets error statuses through, so the caller sees the status it got.
 */
abstract class RestClientHostileSuite extends ClosedConnectionSuite {
  /** A new request factory of the kind under test, at its defaults. */
  abstract ClientHttpRequestFactory requestFactory();

  @Override
  protected Exchange open(Shape shape) {
    RestClient client = RestClient.builder()
        .requestFactory(requestFactory())
        .requestInterceptor(BackoffRestInterceptor.of(shape.policy(), shape.rules()))
        .build();
    return new Exchange() {
      @Override
      public int send(String method, URI uri, String body) {
        RestClient.RequestBodySpec request = client.method(HttpMethod.valueOf(method)).uri(uri);
        if (body != null) {
          request.body(body);
        }
        return request.retrieve()
            .onStatus(HttpStatusCode::isError, (sent, response) -> { }) // the caller reads every status
            .toEntity(String.class)
            .getStatusCode().value();
      }

      @Override
      public void close() {
        // The factories' clients close their idle connections with the JVM.
      }
    };
  }

  @Override
  protected boolean isClientError(Throwable failure) {
    return failure instanceof RestClientException || failure instanceof IOException
        || failure.getClass().getPackageName().equals("dev.backoff");
  }
}
