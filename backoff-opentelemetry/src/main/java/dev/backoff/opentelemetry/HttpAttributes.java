package dev.backoff.opentelemetry;

/**
 * Reads the HTTP attributes of an attempt's result (its status, and the method and URL of the request it
 * answers) for {@link RetryTelemetry#httpListener(HttpAttributes)}: the seam through which every HTTP client's
 * response type reaches the same span attributes, without the telemetry module depending on the clients.
 *
 * <p>{@link #detect()} reads the responses of the clients Backoff drives, recognised by their class names
 * (none of these clients is a dependency of this module):
 * <table>
 *   <caption>What is read from each client's response</caption>
 *   <tr><th>Result type</th><th>Status</th><th>Method and URL</th></tr>
 *   <tr><td>{@code java.net.http.HttpResponse} (backoff-http)</td><td>yes</td><td>yes</td></tr>
 *   <tr><td>{@code okhttp3.Response} (backoff-okhttp)</td><td>yes</td><td>yes</td></tr>
 *   <tr><td>{@code org.springframework.web.reactive.function.client.ClientResponse} (WebClient filter)</td>
 *       <td>yes</td><td>yes</td></tr>
 *   <tr><td>{@code org.springframework.http.client.ClientHttpResponse} (RestClient, RestTemplate)</td>
 *       <td>yes</td><td>no: the response does not carry its request</td></tr>
 *   <tr><td>{@code org.apache.hc.core5.http.HttpResponse} (HttpClient 5, classic and async)</td>
 *       <td>yes</td><td>no: the response does not carry its request</td></tr>
 * </table>
 * Where the response does not carry its request, supply your own reader (a lambda) if you know the method
 * and URL some other way.
 *
 * <p>Implementations are called on the thread that completes each attempt and must be thread-safe; one that
 * throws loses the attempt's HTTP attributes, never the call (the listener catches it).
 *
 * @param <R> the policy's result type
 */
@FunctionalInterface
public interface HttpAttributes<R> {
  /**
   * The HTTP attributes of one attempt's result.
   *
   * @param result the attempt's result (never null: failed attempts are not read)
   * @return its attributes, or null if it is not an HTTP response this reader knows
   */
  Exchange read(R result);

  /**
   * The reader of the known clients' responses (see the table above). Stateless apart from a per-class cache
   * of the methods it calls; thread-safe.
   */
  static HttpAttributes<Object> detect() {
    return KnownClients.INSTANCE;
  }

  /**
   * One response's attributes.
   *
   * @param status the status code, 100 to 999
   * @param method the request method as sent ({@code "GET"}), or null if unknown
   * @param url the full URL requested, or null if unknown
   */
  record Exchange(int status, String method, String url) {
    /**
     * Checks the status.
     *
     * @throws IllegalArgumentException if {@code status} is not between 100 and 999
     */
    public Exchange {
      if (status < 100 || status > 999) {
        throw new IllegalArgumentException("status must be between 100 and 999, was " + status);
      }
    }
  }
}
