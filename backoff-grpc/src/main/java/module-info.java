/**
 * Backoff for gRPC: a client interceptor that retries unary calls under a Backoff policy on the core's
 * asynchronous loop, and an exporter of policies to gRPC's own service-config retry policy.
 */
// "module": gRPC's jars are automatic modules (io.grpc), which javac warns about when required transitively.
@SuppressWarnings("module")
module dev.backoff.grpc {
  exports dev.backoff.grpc;

  requires transitive dev.backoff.core;
  requires transitive io.grpc;
}
