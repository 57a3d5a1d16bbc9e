package dev.backoff.okhttp;

import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpResponseView;
import java.util.List;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/** OkHttp's requests and responses as the HTTP rules see them. Stateless. */
final class OkHttpViews {
  private OkHttpViews() {}

  /**
   * The request's view. Its body is repeatable unless OkHttp says it can be written only once (one-shot)
   * or it is duplex (written while the response is read): OkHttp writes a request body afresh on each
   * attempt.
   */
  static HttpRequestView request(Request request) {
    RequestBody body = request.body();
    return new HttpRequestView() {
      @Override
      public String method() {
        return request.method();
      }

      @Override
      public String header(String name) {
        return request.header(name);
      }

      @Override
      public boolean bodyRepeatable() {
        return OkHttpViews.bodyRepeatable(body);
      }
    };
  }

  /** No body, or one OkHttp can write again: not one-shot, not duplex. */
  static boolean bodyRepeatable(RequestBody body) {
    return body == null || !(body.isOneShot() || body.isDuplex());
  }

  /** The response's status and headers. */
  static HttpResponseView response(Response response) {
    return new HttpResponseView() {
      @Override
      public int status() {
        return response.code();
      }

      @Override
      public List<String> headers(String name) {
        return response.headers(name);
      }
    };
  }
}
