package dev.backoff.conformance.hostile;

import dev.backoff.http.RetryingHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.ExecutionException;

/**
 * The hostile servers against {@link RetryingHttpClient} on the JDK's {@code java.net.http} client:
 * {@code send} for the plain cases, {@code sendAsync} for the hedged ones. The JDK's HTTP/1.1 client has no
 * per-route connection limit (it opens a connection per request in flight), so the pool-pressure case
 * checks only that every hedged call ends.
 */
class JdkHttpClientHostileTest extends HostileServerSuite {
  @Override
  protected String adapter() {
    return "java.net.http";
  }

  @Override
  protected Exchange open(Shape shape) {
    return new JdkExchange(shape, false);
  }

  @Override
  protected Exchange openHedging(Shape shape, int connectionsPerRoute) {
    return new JdkExchange(shape, true);
  }

  @Override
  protected boolean isClientError(Throwable failure) {
    return failure instanceof IOException || failure.getClass().getPackageName().equals("dev.backoff");
  }

  private static final class JdkExchange implements Exchange {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final RetryingHttpClient retrying;
    private final boolean async;

    JdkExchange(Shape shape, boolean async) {
      this.retrying = RetryingHttpClient.builder(client).policy(shape.policy()).rules(shape.rules()).build();
      this.async = async;
    }

    @Override
    public int send(String method, URI uri, String body) throws Exception {
      HttpRequest request = HttpRequest.newBuilder(uri)
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
          .build();
      if (!async) {
        return retrying.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
      }
      try {
        return retrying.sendAsync(request, HttpResponse.BodyHandlers.ofString()).get().statusCode();
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
    }

    @Override
    public void close() {
      // HttpClient is AutoCloseable only from JDK 21; its idle connections close with the JVM.
    }
  }
}
