package dev.backoff.conformance.hostile;

import dev.backoff.okhttp.BackoffOkHttp;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Response;

/**
 * The hostile servers against {@link BackoffOkHttp#enqueue}, on a plain client (no interceptor). OkHttp limits
 * connections to one server through its dispatcher ({@code maxRequestsPerHost}, calls beyond it wait in the
 * dispatcher's queue) and keeps at most that many idle in its pool: the pool-pressure case sets both to the
 * case's connections per route.
 */
class OkHttpEnqueueHostileTest extends HostileServerSuite {
  @Override
  protected String adapter() {
    return "OkHttp enqueue";
  }

  @Override
  protected Exchange openHedging(Shape shape, int connectionsPerRoute) {
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequestsPerHost(connectionsPerRoute);
    OkHttpClient client = new OkHttpClient.Builder()
        .dispatcher(dispatcher)
        .connectionPool(new ConnectionPool(connectionsPerRoute, 1, TimeUnit.MINUTES))
        .build();
    return exchange(shape, client);
  }

  @Override
  protected boolean isClientError(Throwable failure) {
    return OkHttpInterceptorHostileTest.isOkHttpClientError(failure);
  }

  @Override
  protected Exchange open(Shape shape) {
    return exchange(shape, new OkHttpClient());
  }

  private static Exchange exchange(Shape shape, OkHttpClient client) {
    BackoffOkHttp backoff = BackoffOkHttp.builder().policy(shape.policy()).rules(shape.rules()).build();
    return new Exchange() {
      @Override
      public int send(String method, URI uri, String body) throws Exception {
        try (Response response = backoff.enqueue(client, OkHttpInterceptorHostileTest.request(method, uri, body)).get()) {
          response.body().bytes();
          return response.code();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof Exception cause ? cause : e;
        }
      }

      @Override
      public void close() {
        OkHttpInterceptorHostileTest.shutDown(client);
      }
    };
  }
}
