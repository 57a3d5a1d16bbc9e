package dev.backoff.conformance.hostile;

import dev.backoff.httpclient5.HttpClient5Retry;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.io.CloseMode;

/**
 * The hostile servers against {@link HttpClient5Retry} installed in Apache HttpClient 5's async client: its
 * pool at the client's defaults for the plain cases, limited to the given connections per route for the
 * hedged ones. Bodies are read whole ({@code SimpleHttpResponse}), as a caller of {@code execute} would.
 */
class HttpClient5AsyncHostileTest extends HostileServerSuite {
  @Override
  protected String adapter() {
    return "HttpClient 5 async";
  }

  @Override
  protected Exchange open(Shape shape) {
    return exchange(shape, 0);
  }

  @Override
  protected Exchange openHedging(Shape shape, int connectionsPerRoute) {
    return exchange(shape, connectionsPerRoute);
  }

  @Override
  protected boolean isClientError(Throwable failure) {
    return failure instanceof IOException || failure instanceof HttpException
        || failure.getClass().getPackageName().equals("dev.backoff");
  }

  /** A started client; {@code connectionsPerRoute} 0: the pool's defaults. */
  private static Exchange exchange(Shape shape, int connectionsPerRoute) {
    HttpClient5Retry retry = HttpClient5Retry.builder().policy(shape.<HttpResponse>policy()).rules(shape.rules()).build();
    PoolingAsyncClientConnectionManagerBuilder pool = PoolingAsyncClientConnectionManagerBuilder.create();
    if (connectionsPerRoute > 0) {
      pool.setMaxConnPerRoute(connectionsPerRoute).setMaxConnTotal(connectionsPerRoute);
    }
    CloseableHttpAsyncClient client = retry.asyncClientBuilder().setConnectionManager(pool.build()).build();
    client.start();
    return new Exchange() {
      @Override
      public int send(String method, URI uri, String body) throws Exception {
        SimpleRequestBuilder request = SimpleRequestBuilder.create(method).setUri(uri);
        if (body != null) {
          request.setBody(body, ContentType.TEXT_PLAIN);
        }
        try {
          SimpleHttpResponse response = client.execute(request.build(), null).get();
          return response.getCode();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof Exception cause ? cause : e;
        }
      }

      @Override
      public void close() {
        client.close(CloseMode.IMMEDIATE);
      }
    };
  }
}
