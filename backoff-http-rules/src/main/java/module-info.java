/**
 * The client-neutral HTTP retry rules: which statuses, methods and failures are retried, how
 * {@code Retry-After} is read and clamped, how much of a body may be buffered for a decision. Every HTTP
 * adapter (the {@code java.net.http} client, OkHttp, Apache HttpClient 5, ...) judges through these rules;
 * an adapter translates its client's types into the small views here and decides nothing itself.
 *
 * <p>{@code dev.backoff.http.rules.driver}, the rules as verdicts of the core's driver SPI, is exported only
 * to the adapter modules; it is not public API.
 */
// "module": the export's target modules are built after this one, so javac cannot see them here.
@SuppressWarnings("module")
module dev.backoff.http.rules {
  exports dev.backoff.http.rules;
  // The rules as the core's driver SPI speaks them (verdicts), for the adapters alone; one target a line.
  exports dev.backoff.http.rules.driver to
      dev.backoff.http,
      dev.backoff.okhttp,
      dev.backoff.httpclient5,
      dev.backoff.spring.web;

  requires transitive dev.backoff.core;
}
