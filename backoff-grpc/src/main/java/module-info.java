/**
 * Backoff for gRPC: a client interceptor that retries and hedges unary calls under a Backoff policy on the
 * core's asynchronous loop, and an exporter of policies to gRPC's own service-config retry or hedging
 * policy.
 */
// gRPC ships no descriptors: io.grpc is grpc-api's Automatic-Module-Name, required transitively because
// gRPC's types are in this module's API.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.backoff.grpc {
  exports dev.backoff.grpc;

  requires transitive dev.backoff.core;
  requires transitive io.grpc;
}
