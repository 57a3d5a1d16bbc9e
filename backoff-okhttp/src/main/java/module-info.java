/**
 * Backoff for OkHttp: an application interceptor that retries under a {@code RetryPolicy}, and an
 * asynchronous call that holds no thread while it waits to retry, both on the core's loops and the shared
 * HTTP rules ({@code dev.backoff.http.rules}).
 */
module dev.backoff.okhttp {
  exports dev.backoff.okhttp;

  requires transitive dev.backoff.core;
  requires transitive dev.backoff.http.rules;
  requires transitive okhttp3;
}
