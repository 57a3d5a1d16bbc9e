package dev.backoff.conformance;

import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.grpc.GrpcRetryInterceptor;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import io.grpc.CallOptions;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC interceptor ({@link GrpcRetryInterceptor}) on an in-process channel to an in-process server whose
 * one unary, idempotent method answers each attempt from the trial's script, as gRPC statuses: a result is a
 * response message, a retryable failure {@code UNAVAILABLE} (with a {@code grpc-retry-pushback-ms} trailer for
 * a pushback), an abort {@code INVALID_ARGUMENT} (not retryable), an attempt that never completes a call the
 * server never answers (it records the client's cancellation). Everything runs on the calling thread (direct
 * executors), every timer (the interceptor's, and the channel's and the server's for an attempt's deadline) on a
 * fake scheduler and an attempt's deadline read on the fake clock, so the waits are exact and an attempt's
 * deadline passes in the trial's time, never while the in-process server answers (in real time, an attempt
 * started at the policy's deadline, whose own deadline is a token millisecond, failed when the machine took
 * longer than that to answer it). The caller cancels the
 * stub's future; the failure it gets is the last attempt's status, whose description is the script's message.
 */
final class GrpcRunner implements DriverRunner {
  private static final MethodDescriptor<String, String> ATTEMPT = MethodDescriptor.newBuilder(Utf8.TEXT, Utf8.TEXT)
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("conformance.Script/Attempt")
      .setIdempotent(true).build();
  private static final Metadata.Key<String> PUSHBACK =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  @Override
  public String name() {
    return "grpc";
  }

  @Override
  public Map<Mechanism, String> notOffered() {
    return Map.of(Mechanism.RECOVERY, "no recovery parameter: a caller recovers from the stub's failure itself");
  }

  @Override
  public StopReason abortStop() {
    return StopReason.NOT_RETRYABLE;
  }

  /** The status's description; a status without one (a call refused before its first attempt) carries its cause. */
  @Override
  public String failureMessage(Throwable failure) {
    Status status = Status.fromThrowable(failure);
    return status.getDescription() != null || status.getCause() == null ? status.getDescription()
        : status.getCause().getMessage();
  }

  @Override
  public RetryHistory history(Throwable failure) {
    return GrpcRetryInterceptor.historyOf(failure);
  }

  @Override
  public Throwable[] earlierFailures(Throwable failure) {
    // The stub's exception carries the status; its cause is the last attempt's exception, with the earlier ones.
    return failure.getCause() == null ? new Throwable[0] : failure.getCause().getSuppressed();
  }

  @Override
  public Outcome run(Trial trial) throws Exception {
    FakeClock clock = new FakeClock();
    FakeScheduler scheduler = new FakeScheduler(clock);
    @SuppressWarnings("unchecked") // every message of this method is a String, which the row's rules read
    RetryPolicy<Object> policy = (RetryPolicy<Object>) (RetryPolicy<?>) trial.policy(clock);
    GrpcRetryInterceptor.Builder interceptor = GrpcRetryInterceptor.builder().policy(policy).scheduler(scheduler)
        .deadlineTicker(new Deadline.Ticker() {
          @Override
          public long nanoTime() {
            return clock.nanoTime();
          }
        });
    String name = InProcessServerBuilder.generateName();
    ServerServiceDefinition service = ServerServiceDefinition.builder("conformance.Script")
        .addMethod(ATTEMPT, ServerCalls.asyncUnaryCall((request, responses) -> answer(trial, responses)))
        .build();
    Server server = InProcessServerBuilder.forName(name).directExecutor().scheduledExecutorService(scheduler)
        .addService(service).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().disableRetry()
        .scheduledExecutorService(scheduler).intercept(interceptor.build()).build();
    try {
      Future<String> call = ClientCalls.futureUnaryCall(channel.newCall(ATTEMPT, CallOptions.DEFAULT), "call");
      AsyncRunner.runToEnd(trial, scheduler, call);
      if (call.isCancelled()) {
        return new Outcome(null, null);
      }
      try {
        return Outcome.of(call.get());
      } catch (ExecutionException e) {
        return Outcome.failed(e.getCause());
      }
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** Messages as UTF-8 text: the script's results, as they are. */
  private enum Utf8 implements MethodDescriptor.Marshaller<String> {
    TEXT;

    @Override
    public InputStream stream(String text) {
      return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream bytes) {
      try (bytes) {
        return new String(bytes.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException unreadable) {
        throw new UncheckedIOException("an unreadable message", unreadable);
      }
    }
  }

  /** Answers one attempt from the script, as a status or a message. */
  private static void answer(Trial trial, StreamObserver<String> responses) {
    String message;
    try {
      message = trial.attempt();
    } catch (Trial.Hang hang) {
      ((ServerCallStreamObserver<String>) responses).setOnCancelHandler(trial::attemptCancelled);
      return;
    } catch (ConformanceTable.RetryAfterException pushback) {
      Metadata trailers = new Metadata();
      trailers.put(PUSHBACK, Long.toString(pushback.after.toMillis()));
      responses.onError(Status.UNAVAILABLE.withDescription(pushback.getMessage()).asRuntimeException(trailers));
      return;
    } catch (IllegalArgumentException abort) {
      responses.onError(Status.INVALID_ARGUMENT.withDescription(abort.getMessage()).asRuntimeException());
      return;
    } catch (Exception failure) {
      responses.onError(Status.UNAVAILABLE.withDescription(failure.getMessage()).asRuntimeException());
      return;
    }
    responses.onNext(message);
    responses.onCompleted();
  }
}
