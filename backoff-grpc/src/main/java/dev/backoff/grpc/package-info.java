/**
 * Backoff for gRPC clients. {@link dev.backoff.grpc.GrpcRetryInterceptor} retries unary calls under a
 * {@link dev.backoff.RetryPolicy}, and hedges them under a policy with {@link dev.backoff.Hedging}, with
 * status codes as failure classes, the server's {@code grpc-retry-pushback-ms} as pushback, the call's
 * deadline and cancellation honoured. {@link dev.backoff.grpc.GrpcServiceConfig} exports a policy to gRPC's
 * native service-config retry or hedging policy and lists what gRPC cannot express. Thread-safety is stated
 * on each type.
 */
package dev.backoff.grpc;
