package dev.backoff.conformance.hostile;

import dev.backoff.okhttp.BackoffOkHttp;
import java.io.IOException;
import java.net.URI;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The hostile servers against {@link BackoffOkHttp#interceptor()}: a client built with
 * {@link BackoffOkHttp#install}, each call run with {@code execute()}. The interceptor retries on the
 * caller's thread and cannot hedge, so the hedging cases are skipped.
 */
class OkHttpInterceptorHostileTest extends HostileServerSuite {
  @Override
  protected boolean isClientError(Throwable failure) {
    return isOkHttpClientError(failure);
  }

  @Override
  protected String adapter() {
    return "OkHttp interceptor";
  }

  @Override
  protected Exchange open(Shape shape) {
    BackoffOkHttp backoff = BackoffOkHttp.builder().policy(shape.policy()).rules(shape.rules()).build();
    OkHttpClient client = backoff.install(new OkHttpClient.Builder()).build();
    return new Exchange() {
      @Override
      public int send(String method, URI uri, String body) throws IOException {
        try (Response response = client.newCall(request(method, uri, body)).execute()) {
          response.body().bytes();
          return response.code();
        }
      }

      @Override
      public void close() {
        shutDown(client);
      }
    };
  }


  /** OkHttp's callers handle an {@code IOException}; Backoff's own exceptions are documented. */
  static boolean isOkHttpClientError(Throwable failure) {
    return failure instanceof IOException || failure.getClass().getPackageName().equals("dev.backoff");
  }

  static Request request(String method, URI uri, String body) {
    return new Request.Builder().url(uri.toString())
        .method(method, body == null ? null : RequestBody.create(body, MediaType.get("text/plain")))
        .build();
  }

  /** Ends the client's dispatcher threads and closes its idle connections. */
  static void shutDown(OkHttpClient client) {
    client.dispatcher().cancelAll();
    client.dispatcher().executorService().shutdown();
    client.connectionPool().evictAll();
  }
}
