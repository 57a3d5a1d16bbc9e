/**
 * The client-neutral HTTP retry rules: which statuses, methods and failures are retried, how
 * {@code Retry-After} is read and clamped, how much of a body may be buffered for a decision. Every HTTP
 * adapter (the {@code java.net.http} client, OkHttp, Apache HttpClient 5, ...) judges through these rules;
 * an adapter translates its client's types into the small views here and decides nothing itself.
 */
module dev.backoff.http.rules {
  exports dev.backoff.http.rules;

  requires transitive dev.backoff.core;
}
