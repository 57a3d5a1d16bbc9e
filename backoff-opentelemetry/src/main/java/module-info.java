/** OpenTelemetry tracing and metrics for Backoff's retries. */
// Its API takes OpenTelemetry's types, so readers of this module must read the API (an automatic module).
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.backoff.opentelemetry {
  exports dev.backoff.opentelemetry;

  requires transitive dev.backoff.core;
  // The jars' Automatic-Module-Names (OpenTelemetry ships no descriptors).
  requires transitive io.opentelemetry.api;
  requires io.opentelemetry.context;
  // To read java.net.http responses; the other clients' responses are read by reflection (HttpAttributes).
  requires java.net.http;
}
