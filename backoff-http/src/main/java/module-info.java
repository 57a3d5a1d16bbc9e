/** A retrying {@code java.net.http} client that honours {@code Retry-After}, on the core's loops. */
module dev.backoff.http {
  exports dev.backoff.http;

  requires transitive dev.backoff.core;
  requires transitive dev.backoff.http.rules;
  requires transitive java.net.http;
}
