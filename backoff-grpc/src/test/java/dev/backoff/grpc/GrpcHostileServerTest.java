package dev.backoff.grpc;

import static dev.backoff.grpc.ScriptedServer.ORDER;
import static dev.backoff.grpc.ScriptedServer.SAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.backoff.Backoff;
import dev.backoff.Hedging;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.grpc.ScriptedServer.Answer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gRPC sibling of the HTTP adapters' hostile-server suite, on real threads against an in-process server:
 * absurd and garbage {@code grpc-retry-pushback-ms} trailers, a server that always refuses or never answers
 * past the call's deadline, and hedging of a method that may not run twice. Each case is bounded in time and
 * asserts how many times the server executed the method, and when.
 */
class GrpcHostileServerTest {
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static final Duration DEADLINE = Duration.ofSeconds(1);
  /** How late after its deadline a call may end: scheduling on a loaded machine. */
  private static final Duration MARGIN = Duration.ofMillis(1500);

  private static RetryPolicy.Builder<Object> policy() {
    return RetryPolicy.<Object>builder().maxAttempts(4).backoff(Backoff.fixed(Duration.ofMillis(10)));
  }

  /** What a blocking call ended with, why retries stopped (null if they did not), and how long it took. */
  private record Ending(String message, Status status, StopReason stopped, long startNanos, long endNanos) {
    Duration took() {
      return Duration.ofNanos(endNanos - startNanos);
    }
  }

  private static Ending call(ManagedChannel channel, MethodDescriptor<String, String> method, CallOptions options) {
    long start = System.nanoTime();
    try {
      String message = ClientCalls.blockingUnaryCall(channel, method, options, "hello");
      return new Ending(message, Status.OK, null, start, System.nanoTime());
    } catch (StatusRuntimeException e) {
      RetryHistory history = GrpcRetryInterceptor.historyOf(e);
      return new Ending(null, e.getStatus(), history == null ? null : history.stopReason(), start,
          System.nanoTime());
    }
  }

  private static void assertWithinDeadline(Ending ending, List<Long> arrivals) {
    assertThat(ending.took()).as("the call ended within its deadline of %s plus %s", DEADLINE, MARGIN)
        .isLessThanOrEqualTo(DEADLINE.plus(MARGIN));
    long deadline = ending.startNanos() + DEADLINE.toNanos();
    assertThat(arrivals).as("no attempt reached the server after the deadline")
        .allSatisfy(arrival -> assertThat(arrival).isLessThanOrEqualTo(deadline));
  }

  /** The server's executions, after a pause long enough for a late retry to show up. */
  private static List<Long> settledArrivals(ScriptedServer server) throws InterruptedException {
    Thread.sleep(300);
    return server.arrivals();
  }

  @ParameterizedTest
  @ValueSource(strings = {"2147483648000", "9223372036854775807", "99999999999999999999999"})
  void aPushbackBeyondTheMaximumEndsTheCallAfterOneExecution(String pushback) {
    assertEndsAfterOneExecution(pushback, StopReason.PUSHBACK_TOO_LONG);
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "-9223372036854775808", "soon", "1.5", "0x10", ""})
  void aNegativeOrGarbagePushbackEndsTheCallAfterOneExecution(String pushback) {
    assertEndsAfterOneExecution(pushback, StopReason.PUSHBACK); // "do not retry", as gRPC specifies
  }

  private static void assertEndsAfterOneExecution(String pushback, StopReason reason) {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedServer server = new ScriptedServer()) {
        server.answer(Answer.fail(Status.Code.UNAVAILABLE, pushback), Answer.ok("never asked"));
        ManagedChannel channel = server.channel(b -> b.disableRetry()
            .intercept(GrpcRetryInterceptor.of(policy().maxElapsed(Duration.ofSeconds(5)).build())));
        try {
          Ending ending = call(channel, SAY, CallOptions.DEFAULT);
          assertThat(ending.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(ending.stopped()).isEqualTo(reason);
          assertThat(ending.took()).isLessThan(Duration.ofSeconds(5)); // no wait for the pushback was started
          assertThat(settledArrivals(server)).as("executions").hasSize(1);
        } finally {
          channel.shutdownNow();
        }
      }
    });
  }

  @Test
  void theCallsDeadlineBoundsEveryAttemptAndWait() {
    // UNAVAILABLE with a 300 ms pushback, forever: attempts at about 0, 0.3, 0.6 and 0.9 s, then no wait that
    // would end past the 1 s deadline is started.
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedServer server = new ScriptedServer()) {
        server.answer(Answer.fail(Status.Code.UNAVAILABLE, "300"));
        ManagedChannel channel = server.channel(b -> b.disableRetry()
            .intercept(GrpcRetryInterceptor.of(policy().maxAttempts(100).build())));
        try {
          Ending ending = call(channel, SAY, CallOptions.DEFAULT.withDeadlineAfter(DEADLINE.toMillis(),
              TimeUnit.MILLISECONDS));
          assertThat(ending.status().getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);
          List<Long> arrivals = settledArrivals(server);
          assertWithinDeadline(ending, arrivals);
          assertThat(arrivals).as("executions, 300 ms apart within 1 s").hasSizeBetween(2, 4);
        } finally {
          channel.shutdownNow();
        }
      }
    });
  }

  @Test
  void thePolicysDeadlineCutsAnAttemptThatNeverAnswers() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedServer server = new ScriptedServer()) {
        server.answer(Answer.hanging());
        ManagedChannel channel = server.channel(b -> b.disableRetry()
            .intercept(GrpcRetryInterceptor.of(policy().maxElapsed(DEADLINE).build())));
        try {
          Ending ending = call(channel, SAY, CallOptions.DEFAULT);
          assertThat(ending.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
          List<Long> arrivals = settledArrivals(server);
          assertWithinDeadline(ending, arrivals);
          assertThat(arrivals).as("executions").hasSize(1);
        } finally {
          channel.shutdownNow();
        }
      }
    });
  }

  @Test
  void hedgesOfAnIdempotentMethodThatNeverAnswersEndAtTheDeadline() {
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedServer server = new ScriptedServer()) {
        server.answer(Answer.hanging());
        ManagedChannel channel = server.channel(b -> b.disableRetry().intercept(GrpcRetryInterceptor.of(
            policy().hedging(Hedging.after(Duration.ofMillis(100))).build())));
        try {
          Ending ending = call(channel, SAY, CallOptions.DEFAULT.withDeadlineAfter(DEADLINE.toMillis(),
              TimeUnit.MILLISECONDS));
          assertThat(ending.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
          List<Long> arrivals = settledArrivals(server);
          assertWithinDeadline(ending, arrivals);
          assertThat(arrivals).as("the attempt and its three hedges").hasSize(4);
        } finally {
          channel.shutdownNow();
        }
      }
    });
  }

  @Test
  void aMethodNotDeclaredIdempotentRunsOnceUnderAHedgingPolicy() {
    // The case: four executions of a non-idempotent method under hedging. Now one, unhedged.
    assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedServer server = new ScriptedServer()) {
        server.answer(Answer.hanging());
        ManagedChannel channel = server.channel(b -> b.disableRetry().intercept(GrpcRetryInterceptor.of(
            policy().hedging(Hedging.after(Duration.ofMillis(100))).build())));
        try {
          Ending ending = call(channel, ORDER, CallOptions.DEFAULT.withDeadlineAfter(DEADLINE.toMillis(),
              TimeUnit.MILLISECONDS));
          assertThat(ending.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
          List<Long> arrivals = settledArrivals(server);
          assertWithinDeadline(ending, arrivals);
          assertThat(arrivals).as("executions of the non-idempotent method").hasSize(1);
        } finally {
          channel.shutdownNow();
        }
      }
    });
  }
}
