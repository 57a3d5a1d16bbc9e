package dev.backoff.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.RecordingListener;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The interceptor against grpc-java's own interop test server ({@code TestServiceImpl}, from
 * {@code io.grpc:grpc-interop-testing} at the gRPC version this module builds with), in-process, counting
 * the server's executions. Its {@code UnaryCall} is generated from a {@code .proto} without an
 * {@code idempotency_level}, as most are: a hedging policy must not run it more than once.
 */
class GrpcInteropServerTest {
  private final ScheduledExecutorService serverExecutor = Executors.newSingleThreadScheduledExecutor();
  private final AtomicInteger executions = new AtomicInteger();
  private final RecordingListener<Object> listener = new RecordingListener<>();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    ServerInterceptor counting = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        executions.incrementAndGet();
        return next.startCall(call, headers);
      }
    };
    server = InProcessServerBuilder.forName(name)
        .addService(ServerInterceptors.intercept(new TestServiceImpl(serverExecutor), counting)).build().start();
    channel = InProcessChannelBuilder.forName(name).disableRetry()
        .intercept(GrpcRetryInterceptor.of(RetryPolicy.<Object>builder().maxAttempts(4)
            .backoff(Backoff.fixed(Duration.ofMillis(10))).hedging(Hedging.after(Duration.ofMillis(20))).listener(listener)
            .build()))
        .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    serverExecutor.shutdownNow();
    assertThat(serverExecutor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void theInteropServersUnaryCallIsNotDeclaredIdempotentAndRunsOnceUnderAHedgingPolicy() throws Exception {
    assertThat(TestServiceGrpc.getUnaryCallMethod().isIdempotent()).isFalse();
    SimpleRequest unavailable = SimpleRequest.newBuilder()
        .setResponseStatus(EchoStatus.newBuilder().setCode(Status.Code.UNAVAILABLE.value()).setMessage("busy"))
        .build();

    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, TestServiceGrpc.getUnaryCallMethod(),
        CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), unavailable))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    Thread.sleep(200); // a late hedge or retry would show up here
    // Retried one attempt at a time (UNAVAILABLE is retryable), never hedged: 4 attempts, one after another.
    assertThat(executions).hasValue(4);
    assertThat(listener.summary()).as("what the policy's listener heard").isNotEmpty()
        .noneMatch(event -> event.startsWith("hedge"));
  }
}
