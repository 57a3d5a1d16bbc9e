package dev.backoff.httpclient5;

import dev.backoff.http.rules.HttpResponseView;
import java.util.ArrayList;
import java.util.List;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;

/** Translations of HttpClient's messages into the HTTP rules' views. Stateless. */
final class Views {
  private Views() {}

  /** The request's first value of a header, or null. */
  static String firstHeader(HttpRequest request, String name) {
    Header header = request.getFirstHeader(name);
    return header == null ? null : header.getValue();
  }

  /** A response's status and headers as the rules see them; made only for a status the rules retry. */
  static HttpResponseView response(HttpResponse response) {
    return new ResponseView(response);
  }

  private static final class ResponseView implements HttpResponseView {
    private final HttpResponse response;

    ResponseView(HttpResponse response) {
      this.response = response;
    }

    @Override
    public int status() {
      return response.getCode();
    }

    @Override
    public List<String> headers(String name) {
      Header[] headers = response.getHeaders(name);
      if (headers.length == 0) {
        return List.of();
      }
      List<String> values = new ArrayList<>(headers.length);
      for (Header header : headers) {
        values.add(header.getValue());
      }
      return values;
    }

    @Override
    public String toString() {
      return "status " + response.getCode();
    }
  }
}
