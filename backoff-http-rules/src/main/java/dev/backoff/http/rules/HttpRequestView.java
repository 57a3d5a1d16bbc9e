package dev.backoff.http.rules;

import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What the HTTP rules need to know about a request, filled in by an adapter from its client's request
 * type: the method, a header lookup and whether the body can be sent again.
 *
 * <p>Implementations are the adapters' (often a lambda-backed {@link #of}); they need not be thread-safe if
 * used by one call only.
 */
public interface HttpRequestView {
  /** The request method as sent, such as {@code "GET"}; never null. Compared case-insensitively. */
  String method();

  /**
   * The first value of the header {@code name} (case-insensitive, as HTTP header names are), or null if the
   * request has no such header.
   */
  String header(String name);

  /**
   * Whether the request's body can be sent again: true when there is no body or the client can replay it
   * (a byte array, a file, a body the client re-reads); false for a body that can be written only once (a
   * stream already consumed). A request whose body cannot be replayed is never repeated once sent.
   */
  boolean bodyRepeatable();

  /**
   * A view from its parts.
   *
   * @param method the request method
   * @param headers the header lookup: a name to its first value, or to null when absent
   * @param bodyRepeatable whether the body can be sent again (true when there is none)
   * @throws NullPointerException if {@code method} or {@code headers} is null
   */
  static HttpRequestView of(String method, UnaryOperator<String> headers, boolean bodyRepeatable) {
    Objects.requireNonNull(method, "method must not be null");
    Objects.requireNonNull(headers, "headers must not be null");
    return new HttpRequestView() {
      @Override
      public String method() {
        return method;
      }

      @Override
      public String header(String name) {
        return headers.apply(name);
      }

      @Override
      public boolean bodyRepeatable() {
        return bodyRepeatable;
      }

      @Override
      public String toString() {
        return method + (bodyRepeatable ? "" : " (body not repeatable)");
      }
    };
  }
}
