package dev.backoff.spring.web;

import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpResponseView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.client.ClientHttpResponse;

/** Spring's types as the HTTP rules see them. */
final class SpringViews {
  private SpringViews() {}

  /** The response's status and headers; the status is read once, now. */
  static HttpResponseView response(ClientHttpResponse response) {
    int status;
    try {
      status = response.getStatusCode().value();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    HttpHeaders headers = response.getHeaders();
    return HttpResponseView.of(status, name -> values(headers, name));
  }

  /**
   * Every value of the header {@code name} (case-insensitive), or an empty list. Looked up through
   * {@code headerSet()}, which Spring Framework 6.2 and 7 both have: {@code HttpHeaders.get} takes an
   * {@code Object} in 6 and a {@code String} in 7, so a call compiled against one fails to link on the
   * other ({@link NoSuchMethodError}). Called only for a response whose status may be retried.
   */
  static List<String> values(HttpHeaders headers, String name) {
    for (Map.Entry<String, List<String>> header : headers.headerSet()) {
      if (header.getKey().equalsIgnoreCase(name)) {
        return header.getValue();
      }
    }
    return List.of();
  }

  /**
   * A policy for a supertype of {@code R} as a policy for {@code R}: a policy only consumes results (its
   * predicates, classifiers, pushback extractor and listeners take them), so this is safe.
   */
  @SuppressWarnings("unchecked")
  static <R> RetryPolicy<R> narrow(RetryPolicy<? super R> policy) {
    return (RetryPolicy<R>) policy;
  }
}
