package dev.backoff.http.rules;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the HTTP rules need to know about a response, filled in by an adapter from its client's response
 * type: the status code and a header lookup. The body is not part of it: the rules decide on the status
 * and headers alone, before any byte of the body is read.
 *
 * <p>Implementations are the adapters' (often {@link #of}); they need not be thread-safe if used by one
 * attempt only.
 */
public interface HttpResponseView {
  /** The status code, such as 503. */
  int status();

  /**
   * Every value of the header {@code name} (case-insensitive), in the order received; an empty list if the
   * response has none. Never null.
   */
  List<String> headers(String name);

  /**
   * A view from its parts.
   *
   * @param status the status code
   * @param headers the header lookup: a name to all its values (an empty list, or null, when absent)
   * @throws NullPointerException if {@code headers} is null
   */
  static HttpResponseView of(int status, Function<String, List<String>> headers) {
    Objects.requireNonNull(headers, "headers must not be null");
    return new HttpResponseView() {
      @Override
      public int status() {
        return status;
      }

      @Override
      public List<String> headers(String name) {
        List<String> values = headers.apply(name);
        return values == null ? List.of() : values;
      }

      @Override
      public String toString() {
        return "status " + status;
      }
    };
  }
}
