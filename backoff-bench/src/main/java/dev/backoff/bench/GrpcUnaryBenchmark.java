package dev.backoff.bench;

import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import dev.backoff.grpc.GrpcRetryInterceptor;
import dev.backoff.grpc.GrpcServiceConfig;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A successful unary gRPC call on an in-process channel (direct executors, so the call runs on the
 * benchmark thread): the bare channel, the channel with Backoff's retrying interceptor, and the channel with
 * gRPC's own retry under the same policy exported by {@link GrpcServiceConfig}; and the same two under a
 * hedging policy (3 attempts, a hedge after 1 s, which a call answered at once never sends: the cost of
 * being ready to hedge). With {@code deadline} the call carries a 10 s deadline, for which the interceptor
 * shortens the policy's deadline per call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class GrpcUnaryBenchmark {
  private static final MethodDescriptor.Marshaller<String> STRINGS = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };
  private static final MethodDescriptor<String, String> ECHO = MethodDescriptor.newBuilder(STRINGS, STRINGS)
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("bench.Echo/Echo")
      .setIdempotent(true) // the interceptor hedges only methods declared idempotent (or safe)
      .build();

  @Param({"bare", "backoff", "grpc-retry", "backoff-hedging", "grpc-hedging"})
  public String channel;

  private static final RetryPolicy<Object> HEDGING = RetryPolicy.<Object>builder().maxAttempts(3)
      .hedging(Hedging.after(Duration.ofSeconds(1))).build();

  @Param({"false", "true"})
  public boolean deadline;

  public String request = "ping";

  private Server server;
  private ManagedChannel managedChannel;

  @Setup
  public void setUp() throws IOException {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(ServerServiceDefinition.builder("bench.Echo")
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((String message, io.grpc.stub.StreamObserver<String> out) -> {
              out.onNext(message);
              out.onCompleted();
            }))
            .build())
        .build().start();
    RetryPolicy<Object> policy = RetryPolicy.defaults();
    InProcessChannelBuilder builder = InProcessChannelBuilder.forName(name).directExecutor();
    switch (channel) {
      case "bare" -> builder.disableRetry();
      case "backoff" -> builder.disableRetry().intercept(GrpcRetryInterceptor.of(policy));
      case "grpc-retry" -> builder.enableRetry().defaultServiceConfig(GrpcServiceConfig.retryPolicy(policy).asMap());
      case "backoff-hedging" -> builder.disableRetry().intercept(GrpcRetryInterceptor.of(HEDGING));
      case "grpc-hedging" -> builder.enableRetry()
          .defaultServiceConfig(GrpcServiceConfig.hedgingPolicy(HEDGING).asMap());
      default -> throw new IllegalArgumentException("unknown channel: " + channel);
    }
    managedChannel = builder.build();
  }

  @TearDown
  public void tearDown() {
    managedChannel.shutdownNow();
    server.shutdownNow();
  }

  @Benchmark
  public String call() {
    CallOptions options = deadline ? CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS) : CallOptions.DEFAULT;
    return ClientCalls.blockingUnaryCall(managedChannel, ECHO, options, request);
  }
}
