package dev.backoff.http;

import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpResponseView;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.util.List;

/** java.net.http's requests and responses as the HTTP rules see them. Stateless. */
final class JdkViews {
  private JdkViews() {}

  /**
   * The request's view. Its body publisher is subscribed afresh by each send, so the body counts as
   * repeatable.
   */
  static HttpRequestView request(HttpRequest request) {
    return HttpRequestView.of(request.method(), name -> request.headers().firstValue(name).orElse(null), true);
  }

  /** A response's status and headers (from a {@code ResponseInfo} or an {@code HttpResponse}). */
  static HttpResponseView response(int status, HttpHeaders headers) {
    return new HttpResponseView() {
      @Override
      public int status() {
        return status;
      }

      @Override
      public List<String> headers(String name) {
        return headers.allValues(name);
      }
    };
  }
}
