/**
 * Backoff's core: strategies, presets, policies, the decision engine, the retry executors, budgets,
 * planning math and the spec language. No runtime dependencies.
 *
 * <p>{@code dev.backoff.driver}, the SPI through which a driver plugs an attempt and an outcome judge
 * into the core's loops, is exported only to the modules that drive them; it is not public API.
 */
// "module": the export's target modules are built after this one, so javac cannot see them here.
@SuppressWarnings("module")
module dev.backoff.core {
  exports dev.backoff;
  exports dev.backoff.plan;
  exports dev.backoff.spec;
  // One target a line, so that modules added in parallel merge cleanly.
  exports dev.backoff.driver to
      dev.backoff.http,
      dev.backoff.http.rules,
      dev.backoff.grpc,
      dev.backoff.aws,
      dev.backoff.httpclient5,
      dev.backoff.spring.web,
      dev.backoff.okhttp,
      dev.backoff.reactor,
      dev.backoff.kotlin,
      dev.backoff.sim;

  // Optional: java.net.http's timeout is classified as a timeout when that module is present
  // (looked up by name, so the core never needs it).
  requires static java.net.http;
}
