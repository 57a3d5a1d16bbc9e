package dev.backoff.grpc;

import static dev.backoff.grpc.ScriptedServer.SAY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import dev.backoff.grpc.ScriptedServer.Answer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The interceptor on real threads: the shared default scheduler, a blocking stub (whose listener callbacks
 * must reach the thread it blocks), gRPC's own deadline timers, and a hedge started on the scheduler's
 * thread. Outcomes only, no timing assertions.
 */
class GrpcRetryInterceptorRealTimeTest {
  private static final RetryPolicy<Object> QUICK = RetryPolicy.<Object>builder().maxAttempts(4)
      .backoff(Backoff.fixed(Duration.ofMillis(1))).build();

  @Test
  void aBlockingStubGetsTheRetriedResult() throws Exception {
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.fail(Status.Code.RESOURCE_EXHAUSTED), Answer.ok("yes"));
      ManagedChannel channel = server.channel(b -> b.disableRetry().intercept(GrpcRetryInterceptor.of(QUICK)));
      try {
        assertThat(ClientCalls.blockingUnaryCall(channel, SAY, CallOptions.DEFAULT, "hello")).isEqualTo("yes");
        assertThat(server.attempts()).isEqualTo(3);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void onRealThreadsAHedgeWinsOverAHangingAttemptWhichIsCancelled() throws Exception {
    RetryPolicy<Object> hedged = RetryPolicy.<Object>builder().maxAttempts(2)
        .hedging(Hedging.after(Duration.ofMillis(5))).build();
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(Answer.hanging(), Answer.ok("from the hedge"));
      ManagedChannel channel = server.channel(b -> b.disableRetry().intercept(GrpcRetryInterceptor.of(hedged)));
      try {
        // The hedge starts on the shared scheduler's thread; the blocking stub's thread must still wake.
        // The deadline only keeps a broken build from hanging; two attempts can only end this way.
        String answer = ClientCalls.blockingUnaryCall(channel, SAY,
            CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), "hello");
        assertThat(answer).isEqualTo("from the hedge");
        assertThat(server.attempts()).isEqualTo(2);
        for (int i = 0; i < 1000 && server.cancelledAttempts() < 1; i++) {
          Thread.sleep(10); // the loser's cancellation may reach the server after the caller woke
        }
        assertThat(server.cancelledAttempts()).isEqualTo(1);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void anAttemptCutByTheAttemptTimeoutIsRetriedWhenDeadlineExceededIsRetryable() throws Exception {
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(Answer.hanging(), Answer.ok("second time lucky"));
      GrpcRetryInterceptor interceptor = GrpcRetryInterceptor.builder().policy(QUICK)
          .attemptTimeout(Duration.ofMillis(200)).retryOn(Status.Code.DEADLINE_EXCEEDED).build();
      ManagedChannel channel = server.channel(b -> b.disableRetry().intercept(interceptor));
      try {
        String answer = ClientCalls.futureUnaryCall(channel.newCall(SAY, CallOptions.DEFAULT), "hello")
            .get(30, TimeUnit.SECONDS);
        assertThat(answer).isEqualTo("second time lucky");
        // Normally two attempts; on a starved machine an answering attempt may also miss its 200 ms, and is
        // then retried too. Either way every attempt but the last was cut at its deadline, and the server
        // hears of each cut on the deadline timer's thread, possibly after the call ended: wait (bounded).
        int attempts = server.attempts();
        assertThat(attempts).isBetween(2, 4);
        for (int i = 0; i < 1000 && server.cancelledAttempts() < attempts - 1; i++) {
          Thread.sleep(10);
        }
        assertThat(server.cancelledAttempts()).isEqualTo(attempts - 1);
      } finally {
        channel.shutdownNow();
      }
    }
  }
}
