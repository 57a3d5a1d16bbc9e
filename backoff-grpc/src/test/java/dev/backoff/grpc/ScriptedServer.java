package dev.backoff.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * An in-process gRPC server for tests, with a hand-made service (no protobuf): {@code test.Echo/Say} (unary)
 * answers each attempt from a script, {@code test.Echo/Stream} (server streaming) likewise. It records the
 * headers of every attempt and counts cancelled ones, and tags each answer's headers and trailers with the
 * attempt's number ({@link #ATTEMPT}: 1 for the first call the server saw). Everything runs on the calling threads (direct
 * executors), so a test with a fake scheduler is single-threaded.
 */
final class ScriptedServer implements AutoCloseable {
  static final MethodDescriptor.Marshaller<String> STRINGS = new MethodDescriptor.Marshaller<>() {
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

  /** An idempotent unary method: one that may be hedged. */
  static final MethodDescriptor<String, String> SAY = MethodDescriptor.newBuilder(STRINGS, STRINGS)
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Echo/Say").setIdempotent(true).build();
  /** A unary method whose descriptor does not say it is idempotent: never hedged by default. */
  static final MethodDescriptor<String, String> ORDER = MethodDescriptor.newBuilder(STRINGS, STRINGS)
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Echo/Order").build();
  static final MethodDescriptor<String, String> STREAM = MethodDescriptor.newBuilder(STRINGS, STRINGS)
      .setType(MethodDescriptor.MethodType.SERVER_STREAMING).setFullMethodName("test.Echo/Stream").build();

  static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);
  /** The number of the attempt an answer's headers and trailers belong to. */
  static final Metadata.Key<String> ATTEMPT = Metadata.Key.of("x-attempt", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> PUSHBACK = Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  /** One scripted answer. */
  record Answer(String message, Status status, Metadata trailers, boolean hangs) {
    static Answer ok(String message) {
      return new Answer(message, Status.OK, new Metadata(), false);
    }

    static Answer fail(Status.Code code) {
      return new Answer(null, code.toStatus(), new Metadata(), false);
    }

    static Answer fail(Status.Code code, String pushbackMillis) {
      Metadata trailers = new Metadata();
      trailers.put(PUSHBACK, pushbackMillis);
      return new Answer(null, code.toStatus(), trailers, false);
    }

    /** Never answers: the attempt stays in flight until cancelled. */
    static Answer hanging() {
      return new Answer(null, Status.OK, new Metadata(), true);
    }

    /** Answers {@code message} only when the test calls {@link ScriptedServer#release()}. */
    static Answer held(String message) {
      return new Answer(message, Status.OK, new Metadata(), true);
    }
  }

  private final String name = InProcessServerBuilder.generateName();
  private final Deque<Answer> script = new ArrayDeque<>();
  private final List<Metadata> attemptHeaders = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> arrivals = Collections.synchronizedList(new ArrayList<>()); // System.nanoTime()
  private final AtomicInteger cancelled = new AtomicInteger();
  private final Deque<Runnable> held = new ArrayDeque<>(); // guarded by this
  private final Server server;
  private Answer last = Answer.ok("ok");

  ScriptedServer() throws IOException {
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Echo")
        .addMethod(SAY, ServerCalls.asyncUnaryCall(this::say))
        .addMethod(ORDER, ServerCalls.asyncUnaryCall(this::say))
        .addMethod(STREAM, ServerCalls.asyncServerStreamingCall(this::stream))
        .build();
    ServerInterceptor recordHeaders = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        String number;
        synchronized (attemptHeaders) {
          arrivals.add(System.nanoTime());
          attemptHeaders.add(headers);
          number = Integer.toString(attemptHeaders.size());
        }
        ServerCall<Q, A> tagged = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void sendHeaders(Metadata responseHeaders) {
            responseHeaders.put(ATTEMPT, number);
            super.sendHeaders(responseHeaders);
          }

          @Override
          public void close(Status status, Metadata trailers) {
            Metadata tagged = new Metadata(); // a copy: a scripted answer's trailers may be sent again
            tagged.merge(trailers);
            tagged.put(ATTEMPT, number);
            super.close(status, tagged);
          }
        };
        return next.startCall(tagged, headers);
      }
    };
    server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(ServerInterceptors.intercept(service, recordHeaders)).build().start();
  }

  /** Answers the next attempts in this order; the last answer repeats once the script is used up. */
  synchronized ScriptedServer answer(Answer... answers) {
    for (Answer answer : answers) {
      script.addLast(answer);
      last = answer;
    }
    return this;
  }

  private synchronized Answer next() {
    Answer answer = script.pollFirst();
    return answer == null ? last : answer;
  }

  private void say(String request, StreamObserver<String> observer) {
    respond(next(), observer, 1);
  }

  private void stream(String request, StreamObserver<String> observer) {
    respond(next(), observer, 3);
  }

  private void respond(Answer answer, StreamObserver<String> observer, int messages) {
    ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) observer;
    call.setOnCancelHandler(cancelled::incrementAndGet);
    if (answer.hangs()) {
      if (answer.message() != null) {
        synchronized (this) {
          held.addLast(() -> {
            observer.onNext(answer.message());
            observer.onCompleted();
          });
        }
      }
      return;
    }
    if (!answer.status().isOk()) {
      observer.onError(answer.status().asRuntimeException(answer.trailers()));
      return;
    }
    for (int i = 0; i < messages; i++) {
      observer.onNext(answer.message());
    }
    observer.onCompleted();
  }

  /** A channel to this server with {@code configure} applied (interceptors, retry settings). */
  ManagedChannel channel(UnaryOperator<InProcessChannelBuilder> configure) {
    return configure.apply(InProcessChannelBuilder.forName(name).directExecutor()).build();
  }

  /** The in-process server's name, for channels built by hand. */
  String name() {
    return name;
  }

  /**
   * Sends the answer of the earliest attempt still held (see {@link Answer#held}), on this thread.
   *
   * @throws IllegalStateException if no attempt is held
   */
  void release() {
    Runnable answer;
    synchronized (this) {
      answer = held.pollFirst();
    }
    if (answer == null) {
      throw new IllegalStateException("no attempt is held");
    }
    answer.run();
  }

  /** How many attempts reached the server. */
  int attempts() {
    return attemptHeaders.size();
  }

  /** When each attempt reached the server, in {@link System#nanoTime()}. */
  List<Long> arrivals() {
    synchronized (arrivals) {
      return List.copyOf(arrivals);
    }
  }

  /** The {@code grpc-previous-rpc-attempts} header of each attempt (null where absent). */
  List<String> previousAttemptHeaders() {
    synchronized (attemptHeaders) {
      List<String> values = new ArrayList<>();
      for (Metadata headers : attemptHeaders) {
        values.add(headers.get(PREVIOUS_ATTEMPTS));
      }
      return values;
    }
  }

  /** How many attempts the client cancelled while the server was working on them. */
  int cancelledAttempts() {
    return cancelled.get();
  }

  @Override
  public void close() {
    server.shutdownNow();
  }
}
