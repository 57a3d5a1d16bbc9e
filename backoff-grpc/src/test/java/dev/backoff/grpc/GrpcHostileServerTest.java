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

  /** What a call ended with, and when the server executed the method. */
  private record Outcome(Ending ending, List<Long> arrivals) {}

  /**
   * One call of {@code method} through an interceptor of {@code policy} to a server giving {@code answers}
   * (the last repeats), bounded in time; the server's executions are read after a pause long enough for a
   * late retry to show up.
   */
  private static Outcome run(RetryPolicy<Object> policy, MethodDescriptor<String, String> method,
      CallOptions options, Answer... answers) {
    return assertTimeoutPreemptively(BOUND, () -> {
      try (ScriptedServer server = new ScriptedServer()) {
        server.answer(answers);
        ManagedChannel channel = server.channel(b -> b.disableRetry().intercept(GrpcRetryInterceptor.of(policy)));
        try {
          Ending ending = call(channel, method, options);
          Thread.sleep(300);
          return new Outcome(ending, server.arrivals());
        } finally {
          channel.shutdownNow();
        }
      }
    });
  }

  private static CallOptions withDeadline() {
    return CallOptions.DEFAULT.withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
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
    Outcome outcome = run(policy().maxElapsed(Duration.ofSeconds(5)).build(), SAY, CallOptions.DEFAULT,
        Answer.fail(Status.Code.UNAVAILABLE, pushback), Answer.ok("never asked"));
    assertThat(outcome.ending().status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(outcome.ending().stopped()).isEqualTo(reason);
    assertThat(outcome.ending().took()).isLessThan(Duration.ofSeconds(5)); // no wait for the pushback was started
    assertThat(outcome.arrivals()).as("executions").hasSize(1);
  }

  @Test
  void theCallsDeadlineBoundsEveryAttemptAndWait() {
    // UNAVAILABLE with a 300 ms pushback, forever: attempts at about 0, 0.3, 0.6 and 0.9 s, then no wait that
    // would end past the 1 s deadline is started.
    Outcome outcome = run(policy().maxAttempts(100).build(), SAY, withDeadline(),
        Answer.fail(Status.Code.UNAVAILABLE, "300"));
    assertThat(outcome.ending().status().getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);
    assertWithinDeadline(outcome.ending(), outcome.arrivals());
    assertThat(outcome.arrivals()).as("executions, 300 ms apart within 1 s").hasSizeBetween(2, 4);
  }

  @Test
  void thePolicysDeadlineCutsAnAttemptThatNeverAnswers() {
    assertEndsAtTheDeadline(policy().maxElapsed(DEADLINE).build(), SAY, CallOptions.DEFAULT, 1);
  }

  @Test
  void hedgesOfAnIdempotentMethodThatNeverAnswersEndAtTheDeadline() {
    // The attempt and its three hedges.
    assertEndsAtTheDeadline(policy().hedging(Hedging.after(Duration.ofMillis(100))).build(), SAY, withDeadline(), 4);
  }

  @Test
  void aMethodNotDeclaredIdempotentRunsOnceUnderAHedgingPolicy() {
    // The case: four executions of a non-idempotent method under hedging. Now one, unhedged.
    assertEndsAtTheDeadline(policy().hedging(Hedging.after(Duration.ofMillis(100))).build(), ORDER, withDeadline(),
        1);
  }

  /** A server that never answers: the call ends at the deadline after {@code executions} executions. */
  private static void assertEndsAtTheDeadline(RetryPolicy<Object> policy, MethodDescriptor<String, String> method,
      CallOptions options, int executions) {
    Outcome outcome = run(policy, method, options, Answer.hanging());
    assertThat(outcome.ending().status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertWithinDeadline(outcome.ending(), outcome.arrivals());
    assertThat(outcome.arrivals()).as("executions of %s", method.getFullMethodName()).hasSize(executions);
  }
}
