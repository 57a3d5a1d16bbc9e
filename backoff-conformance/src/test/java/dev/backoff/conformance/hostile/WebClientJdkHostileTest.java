package dev.backoff.conformance.hostile;

import dev.backoff.spring.web.BackoffExchangeFilter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientException;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * The hostile servers against {@link BackoffExchangeFilter} on Spring's {@code WebClient} over the JDK's
 * {@code java.net.http} client ({@link JdkClientHttpConnector}), blocking on each call's {@code Mono}. The
 * JDK's HTTP/1.1 client has no per-route connection limit (it opens a connection per exchange in flight), so
 * the pool-pressure case checks only that every hedged call ends.
 */
class WebClientJdkHostileTest extends ClosedConnectionSuite {
  @Override
  protected boolean isClientError(Throwable failure) {
    return failure instanceof WebClientException || failure instanceof IOException
        || failure.getClass().getPackageName().equals("dev.backoff");
  }

  @Override
  protected Exchange openHedging(Shape shape, int connectionsPerRoute) {
    return open(shape);
  }

  @Override
  protected String adapter() {
    return "WebClient on JdkClientHttpConnector";
  }

  @Override
  protected Exchange open(Shape shape) {
    WebClient client = WebClient.builder()
        .clientConnector(new JdkClientHttpConnector(
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()))
        .filter(BackoffExchangeFilter.of(shape.policy(), shape.rules()))
        .build();
    return new Exchange() {
      @Override
      public int send(String method, URI uri, String body) throws Exception {
        WebClient.RequestBodySpec request = client.method(HttpMethod.valueOf(method)).uri(uri);
        if (body != null) {
          request.bodyValue(body);
        }
        try {
          return request.retrieve()
              .onStatus(HttpStatusCode::isError, response -> Mono.empty()) // the caller reads every status
              .toEntity(String.class)
              .block()
              .getStatusCode().value();
        } catch (RuntimeException e) {
          // block() wraps a checked failure in reactor's own carrier; the caller's failure is inside.
          Throwable cause = Exceptions.unwrap(e);
          throw cause instanceof Exception exception ? exception : e;
        }
      }

      @Override
      public void close() {
        // The JDK client closes its idle connections with the JVM.
      }
    };
  }
}
