/**
 * Backoff's retries inside Apache HttpClient 5: an exec-chain handler for the classic client and one for
 * the async client, on the core's retry loops and the shared HTTP rules. HttpClient itself is the user's
 * (a {@code static} requirement: this module brings none along).
 */
module dev.backoff.httpclient5 {
  exports dev.backoff.httpclient5;

  requires transitive dev.backoff.core;
  requires transitive dev.backoff.http.rules;
  requires static transitive org.apache.httpcomponents.client5.httpclient5;
  requires static transitive org.apache.httpcomponents.core5.httpcore5;
}
