package dev.backoff.spring.web;

import dev.backoff.RetryPolicy;
import dev.backoff.http.rules.HttpResponseView;
import java.io.IOException;
import java.io.UncheckedIOException;
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
    return HttpResponseView.of(status, response.getHeaders()::get);
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
