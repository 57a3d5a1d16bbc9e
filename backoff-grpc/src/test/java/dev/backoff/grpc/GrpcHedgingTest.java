package dev.backoff.grpc;

import static dev.backoff.grpc.ScriptedServer.ATTEMPT;
import static dev.backoff.grpc.ScriptedServer.SAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.ListenableFuture;
import dev.backoff.Hedging;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.grpc.ScriptedServer.Answer;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.ScriptedBudget;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged unary calls through the interceptor, against an in-process server, in fake time: a hedge starts
 * when the test moves the clock past the hedging delay (or at once, after a non-fatal status, when the test
 * runs the tasks due now). The server runs on the calling thread, so each test is single-threaded.
 */
class GrpcHedgingTest {
  private static final Duration DELAY = Duration.ofMillis(100);

  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RecordingListener<Object> listener = new RecordingListener<>();
  private ScriptedServer server;
  private ManagedChannel channel;

  private RetryPolicy.Builder<Object> policy() {
    return RetryPolicy.<Object>builder().maxAttempts(3).hedging(Hedging.after(DELAY)).clock(clock).listener(listener);
  }

  private void connect(RetryPolicy.Builder<Object> policy) throws Exception {
    connect(GrpcRetryInterceptor.builder().policy(policy.build()));
  }

  private void connect(GrpcRetryInterceptor.Builder builder) throws Exception {
    server = new ScriptedServer();
    GrpcRetryInterceptor interceptor = builder.scheduler(scheduler).build();
    channel = server.channel(b -> b.disableRetry().intercept(interceptor));
  }

  private ListenableFuture<String> say(CallOptions options) {
    return ClientCalls.futureUnaryCall(channel.newCall(SAY, options), "hello");
  }

  private static StatusRuntimeException failureOf(ListenableFuture<String> call) {
    assertThat(call).isDone();
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, call::get);
    assertThat(e.getCause()).isInstanceOf(StatusRuntimeException.class);
    return (StatusRuntimeException) e.getCause();
  }

  @AfterEach
  void close() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  /** What a caller's listener heard, in order. */
  private static final class Heard extends ClientCall.Listener<String> {
    final List<String> events = new ArrayList<>();

    @Override
    public void onHeaders(Metadata headers) {
      events.add("headers of attempt " + headers.get(ATTEMPT));
    }

    @Override
    public void onMessage(String message) {
      events.add("message " + message);
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      events.add("close " + status.getCode() + ", trailers of attempt " + trailers.get(ATTEMPT));
    }
  }

  private Heard start() {
    ClientCall<String, String> call = channel.newCall(SAY, CallOptions.DEFAULT);
    Heard heard = new Heard();
    call.start(heard, new Metadata());
    call.request(1);
    call.sendMessage("hello");
    call.halfClose();
    return heard;
  }

  @Test
  void aSlowFirstAttemptLosesToTheHedgeAndIsCancelled() throws Exception {
    connect(policy());
    server.answer(Answer.hanging(), Answer.ok("from the hedge"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(call).isNotDone();
    assertThat(scheduler.delays()).containsExactly(DELAY);
    scheduler.advance(DELAY.minusNanos(1));
    assertThat(server.attempts()).isEqualTo(1); // no hedge before the delay
    scheduler.advance(Duration.ofNanos(1));

    assertThat(call.get()).isEqualTo("from the hedge");
    assertThat(server.attempts()).isEqualTo(2);
    assertThat(server.cancelledAttempts()).isEqualTo(1); // the server saw the loser cancelled
    assertThat(server.previousAttemptHeaders()).containsExactly(null, "1");
    assertThat(listener.summary()).containsExactly("hedge 2", "hedge won 2", "success 2 from the hedge");
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(2); // the call is over: no further hedge
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void aMethodNotDeclaredIdempotentIsNeverHedged() throws Exception {
    connect(policy().backoff(dev.backoff.Backoff.fixed(Duration.ofSeconds(1))));
    server.answer(Answer.hanging(), Answer.ok("never asked"));

    ListenableFuture<String> call = ClientCalls.futureUnaryCall(channel.newCall(ScriptedServer.ORDER,
        CallOptions.DEFAULT), "one order");
    assertThat(scheduler.delays()).isEmpty(); // no hedge waits behind the attempt
    scheduler.advance(Duration.ofMinutes(1));

    assertThat(server.attempts()).as("executions of the non-idempotent method").isEqualTo(1);
    assertThat(call).isNotDone();
    call.cancel(true);
    assertThat(server.cancelledAttempts()).isEqualTo(1);
    assertThat(listener.summary()).doesNotContain("hedge 2");
  }

  @Test
  void aMethodNotDeclaredIdempotentIsStillRetriedOneAttemptAtATime() throws Exception {
    connect(policy().backoff(dev.backoff.Backoff.fixed(Duration.ofSeconds(1))));
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("retried"));

    ListenableFuture<String> call = ClientCalls.futureUnaryCall(channel.newCall(ScriptedServer.ORDER,
        CallOptions.DEFAULT), "one order");
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(1)); // the backoff, not a hedge at once
    scheduler.advance(Duration.ofSeconds(1));

    assertThat(call.get()).isEqualTo("retried");
    assertThat(server.attempts()).isEqualTo(2);
  }

  @Test
  void hedgeIfWidensHedgingToAMethodTheCallerVouchesFor() throws Exception {
    connect(GrpcRetryInterceptor.builder().policy(policy().build())
        .hedgeIf(method -> method.getFullMethodName().equals("test.Echo/Order")));
    server.answer(Answer.hanging(), Answer.ok("from the hedge"));

    ListenableFuture<String> order = ClientCalls.futureUnaryCall(channel.newCall(ScriptedServer.ORDER,
        CallOptions.DEFAULT), "one order");
    scheduler.advance(DELAY);
    assertThat(order.get()).isEqualTo("from the hedge");
    assertThat(server.attempts()).isEqualTo(2);

    server.answer(Answer.hanging());
    ListenableFuture<String> say = say(CallOptions.DEFAULT); // idempotent, but outside the caller's predicate
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(3);
    say.cancel(true);
  }

  @Test
  void onlyTheWinnersHeadersMessageAndTrailersReachTheCaller() throws Exception {
    connect(policy());
    server.answer(Answer.hanging(), Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("third"));

    Heard heard = start();
    scheduler.advance(DELAY); // hedge 2 fails at once, hedge 3 follows at once
    scheduler.runDue();

    assertThat(server.attempts()).isEqualTo(3);
    assertThat(heard.events).containsExactly("headers of attempt 3", "message third",
        "close OK, trailers of attempt 3");
    assertThat(server.cancelledAttempts()).isEqualTo(1); // the first, still in flight
  }

  @Test
  void anEarlierAttemptThatAnswersFirstWinsOverTheHedgeInFlight() throws Exception {
    connect(policy());
    server.answer(Answer.held("late but first"), Answer.hanging());

    Heard heard = start();
    scheduler.advance(DELAY);
    assertThat(server.attempts()).isEqualTo(2);
    assertThat(heard.events).isEmpty();
    server.release(); // the original attempt answers while the hedge is in flight

    assertThat(heard.events).containsExactly("headers of attempt 1", "message late but first",
        "close OK, trailers of attempt 1");
    assertThat(server.cancelledAttempts()).isEqualTo(1); // the hedge
    assertThat(listener.summary()).containsExactly("hedge 2", "success 2 late but first"); // no hedge won
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(2);
  }

  @Test
  void aNonFatalStatusStartsTheNextHedgeAtOnce() throws Exception {
    connect(policy().hedging(Hedging.after(Duration.ofHours(1))));
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.fail(Status.Code.RESOURCE_EXHAUSTED),
        Answer.ok("third time"));
    long start = clock.nanoTime();

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    assertThat(server.attempts()).isEqualTo(1);
    scheduler.runDue(); // the tasks due now: no time passes
    assertThat(clock.nanoTime()).isEqualTo(start);

    assertThat(call.get()).isEqualTo("third time");
    assertThat(server.attempts()).isEqualTo(3);
    assertThat(server.previousAttemptHeaders()).containsExactly(null, "1", "2");
    assertThat(listener.summary()).containsExactly("hedge 2 after UNAVAILABLE", "hedge 3 after RESOURCE_EXHAUSTED",
        "hedge won 3", "success 3 third time");
  }

  @Test
  void aFatalStatusEndsTheCallAndCancelsTheAttemptsInFlight() throws Exception {
    connect(policy().maxAttempts(4));
    Metadata trailers = new Metadata();
    Metadata.Key<String> detail = Metadata.Key.of("detail", Metadata.ASCII_STRING_MARSHALLER);
    trailers.put(detail, "bad name");
    server.answer(Answer.hanging(), new Answer(null, Status.INVALID_ARGUMENT.withDescription("no such name"),
        trailers, false), Answer.ok("never asked"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(DELAY);

    StatusRuntimeException failure = failureOf(call);
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(failure.getStatus().getDescription()).isEqualTo("no such name");
    assertThat(failure.getTrailers().get(detail)).isEqualTo("bad name");
    assertThat(failure.getTrailers().get(ATTEMPT)).isEqualTo("2");
    assertThat(GrpcRetryInterceptor.historyOf(failure).stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(server.cancelledAttempts()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(2);
  }

  @Test
  void maxHedgesBoundsTheAttemptsStarted() throws Exception {
    connect(policy().maxAttempts(5).hedging(Hedging.after(DELAY).maxHedges(2)));
    server.answer(Answer.hanging());

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(Duration.ofSeconds(10));

    assertThat(server.attempts()).isEqualTo(3); // the original and two hedges
    assertThat(listener.summary()).containsExactly("hedge 2", "hedge 3");
    assertThat(scheduler.pending()).isZero();
    assertThat(call).isNotDone(); // three attempts in flight
    call.cancel(true);
    assertThat(server.cancelledAttempts()).isEqualTo(3);
  }

  @Test
  void whenEveryAttemptFailsTheLastStatusCarriesTheHistory() throws Exception {
    connect(policy());
    server.answer(Answer.fail(Status.Code.UNAVAILABLE));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.runDue();

    StatusRuntimeException failure = failureOf(call);
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failure.getTrailers().get(ATTEMPT)).isEqualTo("3");
    RetryHistory history = GrpcRetryInterceptor.historyOf(failure);
    assertThat(history.attempts()).isEqualTo(3);
    assertThat(history.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(server.attempts()).isEqualTo(3);
    assertThat(listener.summary()).containsExactly("hedge 2 after UNAVAILABLE", "hedge 3 after UNAVAILABLE",
        "exhausted ATTEMPTS_EXHAUSTED");
  }

  @Test
  void everyHedgeIsChargedToTheBudgetAndARefusedOneIsNotSent() throws Exception {
    ScriptedBudget budget = ScriptedBudget.answering(true, false);
    connect(policy().maxAttempts(5).budget(budget));
    server.answer(Answer.hanging());

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(DELAY);
    assertThat(server.attempts()).isEqualTo(2);
    scheduler.advance(Duration.ofSeconds(10));

    assertThat(budget.acquires()).isEqualTo(2); // hedge 2 granted, hedge 3 refused
    assertThat(budget.granted()).isEqualTo(1);
    assertThat(server.attempts()).isEqualTo(2); // no hedge after the refusal
    assertThat(scheduler.pending()).isZero();
    assertThat(call).isNotDone(); // the attempts in flight go on
    call.cancel(true);
    assertThat(server.cancelledAttempts()).isEqualTo(2);
  }

  @Test
  void aPushbackDelaysTheNextHedge() throws Exception {
    connect(policy());
    server.answer(Answer.fail(Status.Code.UNAVAILABLE, "500"), Answer.ok("after the pushback"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(Duration.ofMillis(499));
    assertThat(server.attempts()).isEqualTo(1); // not at the hedging delay, nor at once
    scheduler.advance(Duration.ofMillis(1));

    assertThat(call.get()).isEqualTo("after the pushback");
    assertThat(server.attempts()).isEqualTo(2);
  }

  @Test
  void aDoNotRetryPushbackStopsTheHedges() throws Exception {
    connect(policy());
    server.answer(Answer.fail(Status.Code.UNAVAILABLE, "-1"), Answer.ok("never asked"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(Duration.ofMinutes(1));

    StatusRuntimeException failure = failureOf(call);
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(GrpcRetryInterceptor.historyOf(failure).stopReason()).isEqualTo(StopReason.PUSHBACK);
    assertThat(server.attempts()).isEqualTo(1);
  }

  @Test
  void aPushbackLongerThanTheMaximumStopsTheHedgesButNotTheAttemptsInFlight() throws Exception {
    connect(policy().maxAttempts(4).maxPushback(Duration.ofSeconds(1)));
    server.answer(Answer.hanging(), Answer.fail(Status.Code.RESOURCE_EXHAUSTED, "5000"), Answer.ok("never asked"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(Duration.ofMinutes(1));

    assertThat(server.attempts()).isEqualTo(2);
    assertThat(call).isNotDone(); // the first attempt is still in flight
    call.cancel(true);
    assertThat(server.cancelledAttempts()).isEqualTo(1);
    assertThat(listener.stopReasons()).containsExactly(StopReason.CANCELLED);
  }

  @Test
  void cancellingTheCallCancelsEveryAttemptAndStartsNoOther() throws Exception {
    connect(policy().maxAttempts(4));
    server.answer(Answer.hanging());

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(DELAY);
    assertThat(server.attempts()).isEqualTo(2);
    assertThat(call.cancel(true)).isTrue();

    assertThat(server.cancelledAttempts()).isEqualTo(2);
    assertThat(scheduler.pending()).isZero(); // the pending hedge left the queue
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(2);
    assertThatThrownBy(call::get).isInstanceOf(CancellationException.class);
    assertThat(listener.summary()).containsExactly("hedge 2", "aborted CANCELLED");
  }

  @Test
  void cancellingThroughTheClientCallClosesTheListenerWithCancelled() throws Exception {
    connect(policy());
    server.answer(Answer.hanging());
    ClientCall<String, String> call = channel.newCall(SAY, CallOptions.DEFAULT);
    Heard heard = new Heard();
    call.start(heard, new Metadata());
    call.request(1);
    call.sendMessage("hello");
    call.halfClose();

    call.cancel("changed my mind", null);

    assertThat(heard.events).containsExactly("close CANCELLED, trailers of attempt null");
    assertThat(server.cancelledAttempts()).isEqualTo(1);
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(1);
  }

  @Test
  void noHedgeStartsAfterTheCallsDeadline() throws Exception {
    // Hours of fake time, so that gRPC's own deadline timers (real time) never fire during the test.
    connect(policy().maxAttempts(10).hedging(Hedging.after(Duration.ofMinutes(30))));
    server.answer(Answer.hanging());
    Deadline deadline = Deadline.after(50, TimeUnit.MINUTES, new GrpcRetryInterceptorTest.FakeTicker(clock));

    ListenableFuture<String> call = say(CallOptions.DEFAULT.withDeadline(deadline));
    scheduler.advance(Duration.ofHours(2));

    assertThat(server.attempts()).isEqualTo(2); // at 0 and 30 min; at 60 min the deadline had passed
    assertThat(listener.summary()).containsExactly("hedge 2");
    call.cancel(true);
  }

  @Test
  void streamingCallsAreNeitherHedgedNorRetried() throws Exception {
    connect(policy().hedging(Hedging.after(Duration.ZERO)));
    server.answer(Answer.ok("part"));

    Iterator<String> parts = ClientCalls.blockingServerStreamingCall(channel, ScriptedServer.STREAM,
        CallOptions.DEFAULT, "x");
    List<String> received = new ArrayList<>();
    parts.forEachRemaining(received::add);

    assertThat(received).containsExactly("part", "part", "part");
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();
    assertThat(listener.heard()).isEmpty();
  }

  @Test
  void aZeroDelayStartsEveryAllowedAttemptAtOnceAndTheFirstAnswerWins() throws Exception {
    connect(policy().hedging(Hedging.after(Duration.ZERO)));
    server.answer(Answer.hanging(), Answer.hanging(), Answer.ok("third"));
    long start = clock.nanoTime();

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.runDue();

    assertThat(call.get()).isEqualTo("third");
    assertThat(server.attempts()).isEqualTo(3);
    assertThat(server.cancelledAttempts()).isEqualTo(2);
    assertThat(clock.nanoTime()).isEqualTo(start);
  }
}
