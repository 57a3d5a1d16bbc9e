package dev.backoff.grpc;

import static dev.backoff.grpc.ScriptedServer.SAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.ListenableFuture;
import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryEvent;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.grpc.ScriptedServer.Answer;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.ScriptedBudget;
import io.grpc.CallOptions;
import io.grpc.Context;
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
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The interceptor against an in-process server, in fake time: retries run when the test moves the clock. */
class GrpcRetryInterceptorTest {
  private static final Duration BACKOFF = Duration.ofMillis(100);

  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final List<String> events = new ArrayList<>();
  private final RetryListener<Object> recorder = new RetryListener<>() {
    @Override
    public void onRetryScheduled(RetryEvent<Object> event) {
      events.add("retry after attempt " + event.attempts() + " (" + event.failureClass() + ") in "
          + Duration.ofNanos(event.delayNanos()));
    }

    @Override
    public void onSuccess(RetryEvent<Object> event) {
      events.add("success after " + event.attempts() + " attempts");
    }

    @Override
    public void onExhausted(RetryEvent<Object> event) {
      events.add("exhausted after " + event.attempts() + " attempts: " + event.stopReason());
    }

    @Override
    public void onAborted(RetryEvent<Object> event) {
      events.add("aborted after " + event.attempts() + " attempts: " + event.stopReason());
    }
  };
  private ScriptedServer server;
  private ManagedChannel channel;

  private RetryPolicy.Builder<Object> policy() {
    return RetryPolicy.<Object>builder().maxAttempts(4).backoff(Backoff.fixed(BACKOFF)).clock(clock).listener(recorder);
  }

  private void connect(RetryPolicy.Builder<Object> policy, UnaryOperator<GrpcRetryInterceptor.Builder> configure)
      throws Exception {
    connect(policy, configure, new io.grpc.ClientInterceptor[0]);
  }

  /** As above, each attempt then passing {@code underneath} (the first nearest the interceptor). */
  private void connect(RetryPolicy.Builder<Object> policy, UnaryOperator<GrpcRetryInterceptor.Builder> configure,
      io.grpc.ClientInterceptor... underneath) throws Exception {
    server = new ScriptedServer();
    GrpcRetryInterceptor interceptor = configure.apply(GrpcRetryInterceptor.builder().policy(policy.build())
        .scheduler(scheduler)).build();
    List<io.grpc.ClientInterceptor> chain = new ArrayList<>(List.of(underneath));
    java.util.Collections.reverse(chain); // the channel calls the last one it is given first
    chain.add(interceptor);
    channel = server.channel(b -> b.disableRetry().intercept(chain));
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

  @Test
  void failsTwiceThenSucceeds() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("hi there"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(call).isNotDone();
    scheduler.advance(BACKOFF);
    assertThat(server.attempts()).isEqualTo(2);
    scheduler.advance(BACKOFF);

    assertThat(call.get()).isEqualTo("hi there");
    assertThat(server.attempts()).isEqualTo(3);
    assertThat(server.previousAttemptHeaders()).containsExactly(null, "1", "2");
    assertThat(scheduler.delays()).containsExactly(BACKOFF, BACKOFF);
    assertThat(events).containsExactly(
        "retry after attempt 1 (transient) in PT0.1S",
        "retry after attempt 2 (transient) in PT0.1S",
        "success after 3 attempts");
  }

  @Test
  void aFirstTrySuccessSchedulesNothing() throws Exception {
    connect(policy(), b -> b);
    assertThat(say(CallOptions.DEFAULT).get()).isEqualTo("ok");
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();
    assertThat(events).containsExactly("success after 1 attempts");
  }

  @Test
  void resourceExhaustedIsThrottledAndItsPushbackLengthensTheWait() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.RESOURCE_EXHAUSTED, "1500"), Answer.ok("done"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(1500)); // max(pushback, backoff)
    scheduler.advance(Duration.ofMillis(1499));
    assertThat(server.attempts()).isEqualTo(1);
    scheduler.advance(Duration.ofMillis(1));

    assertThat(call.get()).isEqualTo("done");
    assertThat(events).first().isEqualTo("retry after attempt 1 (throttled) in PT1.5S");
  }

  @Test
  void aPushbackShorterThanTheBackoffWaitsTheBackoff() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE, "20"), Answer.ok("done"));
    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    assertThat(scheduler.delays()).containsExactly(BACKOFF);
    scheduler.advance(BACKOFF);
    assertThat(call.get()).isEqualTo("done");
  }

  @Test
  void aPushbackLongerThanTheMaximumEndsTheCallAtOnce() throws Exception {
    connect(policy().maxPushback(Duration.ofSeconds(1)), b -> b);
    server.answer(Answer.fail(Status.Code.RESOURCE_EXHAUSTED, "5000"));

    StatusRuntimeException failure = failureOf(say(CallOptions.DEFAULT));

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(failure.getTrailers().get(ScriptedServer.PUSHBACK)).isEqualTo("5000");
    RetryHistory history = GrpcRetryInterceptor.historyOf(failure);
    assertThat(history.attempts()).isEqualTo(1);
    assertThat(history.stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    assertThat(scheduler.pending()).isZero();
    assertThat(server.attempts()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "-0", "soon", "1.5", "", " 100"})
  void aNegativeOrMalformedPushbackMeansDoNotRetry(String pushback) throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE, pushback));

    StatusRuntimeException failure = failureOf(say(CallOptions.DEFAULT));

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(GrpcRetryInterceptor.historyOf(failure).stopReason()).isEqualTo(StopReason.PUSHBACK);
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void aNonRetryableStatusReachesTheCallerWithItsTrailersAfterOneAttempt() throws Exception {
    connect(policy(), b -> b);
    Metadata trailers = new Metadata();
    Metadata.Key<String> detail = Metadata.Key.of("detail", Metadata.ASCII_STRING_MARSHALLER);
    trailers.put(detail, "bad name");
    server.answer(new Answer(null, Status.INVALID_ARGUMENT.withDescription("no such name"), trailers, false));

    StatusRuntimeException failure = failureOf(say(CallOptions.DEFAULT));

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(failure.getStatus().getDescription()).isEqualTo("no such name");
    assertThat(failure.getTrailers().get(detail)).isEqualTo("bad name");
    assertThat(GrpcRetryInterceptor.historyOf(failure).stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(events).containsExactly("aborted after 1 attempts: NOT_RETRYABLE");
  }

  @Test
  void whenAttemptsRunOutTheLastStatusCarriesTheHistoryAndEarlierFailures() throws Exception {
    connect(policy().maxAttempts(3), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(Duration.ofSeconds(1));
    StatusRuntimeException failure = failureOf(call);

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    RetryHistory history = GrpcRetryInterceptor.historyOf(failure);
    assertThat(history.attempts()).isEqualTo(3);
    assertThat(history.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(failure.getCause().getSuppressed()).hasSize(3); // two earlier attempts and the history
    assertThat(server.attempts()).isEqualTo(3);
  }

  @Test
  void deadlineExceededIsRetriedOnlyWhenConfigured() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.DEADLINE_EXCEEDED), Answer.ok("late"));
    assertThat(failureOf(say(CallOptions.DEFAULT)).getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    close();
    events.clear();

    connect(policy(), b -> b.retryOn(Status.Code.DEADLINE_EXCEEDED));
    server.answer(Answer.fail(Status.Code.DEADLINE_EXCEEDED), Answer.ok("late"));
    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(BACKOFF);
    assertThat(call.get()).isEqualTo("late");
    assertThat(events).first().isEqualTo("retry after attempt 1 (timeout) in PT0.1S");
  }

  @Test
  void retryOnlyOnReplacesTheRetryableCodes() throws Exception {
    connect(policy(), b -> b.retryOnlyOn(Status.Code.ABORTED));
    server.answer(Answer.fail(Status.Code.ABORTED), Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("x"));
    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(BACKOFF);
    assertThat(failureOf(call).getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.attempts()).isEqualTo(2);
  }

  @Test
  void noWaitEndsPastTheCallsDeadline() throws Exception {
    connect(policy().maxAttempts(10).backoff(Backoff.fixed(Duration.ofMillis(400))), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE));
    Deadline deadline = Deadline.after(1, TimeUnit.SECONDS, new FakeTicker(clock));

    ListenableFuture<String> call = say(CallOptions.DEFAULT.withDeadline(deadline));
    scheduler.advance(Duration.ofSeconds(5));

    // Attempts at 0, 0.4 s and 0.8 s; a wait to 1.2 s would end past the deadline, so none is started.
    StatusRuntimeException failure = failureOf(call);
    assertThat(server.attempts()).isEqualTo(3);
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(GrpcRetryInterceptor.historyOf(failure).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    assertThat(scheduler.delays()).hasSize(2);
  }

  @Test
  void aCallWhoseDeadlineHasPassedMakesNoAttempt() throws Exception {
    connect(policy(), b -> b);
    Deadline deadline = Deadline.after(-1, TimeUnit.SECONDS, new FakeTicker(clock));

    StatusRuntimeException failure = failureOf(say(CallOptions.DEFAULT.withDeadline(deadline)));

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(server.attempts()).isZero();
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void cancellingDuringTheBackoffMakesNoFurtherAttempt() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("too late"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    assertThat(scheduler.pending()).isEqualTo(1);
    assertThat(call.cancel(true)).isTrue();

    assertThat(scheduler.pending()).isZero(); // the pending retry left the queue
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(scheduler.ran()).isZero();
    assertThatThrownBy(call::get).isInstanceOf(CancellationException.class);
    assertThat(events).containsExactly("retry after attempt 1 (transient) in PT0.1S",
        "aborted after 1 attempts: CANCELLED");
  }

  @Test
  void cancellingDuringAnAttemptCancelsItAndMakesNoFurtherAttempt() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.hanging(), Answer.ok("too late"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(BACKOFF);
    assertThat(server.attempts()).isEqualTo(2);
    call.cancel(true);

    assertThat(server.cancelledAttempts()).isEqualTo(1);
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(2);
    // The cancelled attempt was made: it counts, though its outcome never came.
    assertThat(events).last().isEqualTo("aborted after 2 attempts: CANCELLED");
  }

  @Test
  void anAttemptStartedAtThePolicysDeadlineGetsAMillisecondAsUnderEveryDriver() throws Exception {
    // Retries wait 100 ms each: attempt 3 starts at 200 ms, exactly at the deadline, which the engine allows.
    // The millisecond it gets is real time (a gRPC deadline on the system ticker, which the interceptor cannot
    // be handed), so whether an answer would come within it depends on the machine: attempt 3 never answers,
    // and its deadline is read where the interceptor hands the attempt to the channel, between two readings
    // of the same clock: it ends exactly 1 ms after the interceptor made it (with 1 ns the attempt failed
    // before leaving), and the call ends exactly as that deadline cuts it.
    List<long[]> attemptDeadlines = new ArrayList<>(); // {earliest, latest} System.nanoTime() of each deadline
    io.grpc.ClientInterceptor readDeadlines = new io.grpc.ClientInterceptor() {
      @Override
      public <Q, A> io.grpc.ClientCall<Q, A> interceptCall(io.grpc.MethodDescriptor<Q, A> method,
          CallOptions options, io.grpc.Channel next) {
        long before = System.nanoTime();
        long left = options.getDeadline().timeRemaining(TimeUnit.NANOSECONDS);
        long after = System.nanoTime();
        attemptDeadlines.add(new long[] {before + left, after + left});
        return next.newCall(method, options);
      }
    };
    connect(policy().maxElapsed(Duration.ofMillis(200)), b -> b, readDeadlines);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.fail(Status.Code.UNAVAILABLE), Answer.hanging());

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    long advancing = System.nanoTime();
    scheduler.advance(BACKOFF.multipliedBy(2)); // attempt 3 starts on this thread, within this call
    long advanced = System.nanoTime();

    assertThat(attemptDeadlines).hasSize(3);
    long[] third = attemptDeadlines.get(2);
    long millisecond = TimeUnit.MILLISECONDS.toNanos(1);
    assertThat(third[1]).as("attempt 3's deadline, at least 1 ms after the advance began")
        .isGreaterThanOrEqualTo(advancing + millisecond);
    assertThat(third[0]).as("attempt 3's deadline, at most 1 ms after the advance ended")
        .isLessThanOrEqualTo(advanced + millisecond);
    ExecutionException ended = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> call.get(10, TimeUnit.SECONDS));
    assertThat(Status.fromThrowable(ended.getCause()).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    // DEADLINE_EXCEEDED is not retried by default (and the policy's deadline has come in any case).
    assertThat(events).last().isEqualTo("aborted after 3 attempts: NOT_RETRYABLE");
  }

  @Test
  void anAttemptCutByThePolicysAttemptTimeoutIsChargedAsATimeout() throws Exception {
    ScriptedBudget budget = ScriptedBudget.granting();
    connect(policy().attemptTimeout(Duration.ofMillis(200)).retryOn(TimeoutException.class).budget(budget), b -> b);
    server.answer(Answer.hanging(), Answer.ok("in time"));

    ListenableFuture<String> call = say(CallOptions.DEFAULT);
    scheduler.advance(Duration.ofMillis(200));
    assertThat(server.cancelledAttempts()).as("the attempt the timeout cut").isEqualTo(1);
    scheduler.advance(BACKOFF);

    assertThat(call.get()).isEqualTo("in time");
    assertThat(budget.log()).containsExactly("call", "failure timeout", "acquire timeout", "success 1 timeout");
    assertThat(events).first().isEqualTo("retry after attempt 1 (timeout) in PT0.1S");
  }

  @Test
  void cancellingTheCallersContextStopsTheRetries() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("too late"));
    Context.CancellableContext context = Context.current().withCancellation();

    ListenableFuture<String> call = context.call(() -> say(CallOptions.DEFAULT));
    assertThat(scheduler.pending()).isEqualTo(1);
    context.cancel(null);

    assertThat(scheduler.pending()).isZero();
    assertThat(failureOf(call).getStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(server.attempts()).isEqualTo(1);
  }

  @Test
  void aCallCancelledBeforeItsRequestWasSentMakesNoAttempt() throws Exception {
    connect(policy(), b -> b);
    io.grpc.ClientCall<String, String> call = channel.newCall(SAY, CallOptions.DEFAULT);
    List<Status> closed = new ArrayList<>();
    call.start(new io.grpc.ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.add(status);
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage("hello");
    call.cancel("changed my mind", null);
    call.halfClose();

    assertThat(closed).singleElement().satisfies(status -> {
      assertThat(status.getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(status.getDescription()).isEqualTo("changed my mind");
    });
    assertThat(server.attempts()).isZero();
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void theListenerGetsTheMessageOnlyOnceItAskedForOne() throws Exception {
    connect(policy(), b -> b);
    io.grpc.ClientCall<String, String> call = channel.newCall(SAY, CallOptions.DEFAULT);
    List<String> heard = new ArrayList<>();
    call.start(new io.grpc.ClientCall.Listener<>() {
      @Override
      public void onMessage(String message) {
        heard.add("message " + message);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        heard.add("close " + status.getCode());
      }
    }, new Metadata());
    call.sendMessage("hello");
    call.halfClose();
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(heard).isEmpty(); // no request(n) yet: the reply waits

    call.request(1);
    assertThat(heard).containsExactly("message ok", "close OK");
  }

  @Test
  void streamingCallsPassThroughUntouched() throws Exception {
    connect(policy(), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("part"));

    Iterator<String> failing = ClientCalls.blockingServerStreamingCall(channel, ScriptedServer.STREAM,
        CallOptions.DEFAULT, "x");
    assertThatThrownBy(failing::hasNext).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(server.attempts()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();

    Iterator<String> parts = ClientCalls.blockingServerStreamingCall(channel, ScriptedServer.STREAM,
        CallOptions.DEFAULT, "x");
    List<String> received = new ArrayList<>();
    parts.forEachRemaining(received::add);
    assertThat(received).containsExactly("part", "part", "part");
    assertThat(events).isEmpty();
  }

  @Test
  void aRefusingBudgetStopsTheRetries() throws Exception {
    // gRPC throttling with two tokens: the first failure leaves one, not above half the maximum.
    connect(policy().budget(dev.backoff.RetryBudgets.grpcThrottling(2, 0.5)), b -> b);
    server.answer(Answer.fail(Status.Code.UNAVAILABLE));
    StatusRuntimeException failure = failureOf(say(CallOptions.DEFAULT));
    assertThat(GrpcRetryInterceptor.historyOf(failure).stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
    assertThat(server.attempts()).isEqualTo(1);
  }

  @Test
  void thePolicysAbortRulesWinOverTheStatusCodes() throws Exception {
    connect(policy().abortIf(failure -> failure instanceof StatusRuntimeException e
        && "do not retry me".equals(e.getStatus().getDescription())), b -> b);
    server.answer(new Answer(null, Status.UNAVAILABLE.withDescription("do not retry me"), new Metadata(), false));
    StatusRuntimeException failure = failureOf(say(CallOptions.DEFAULT));
    assertThat(GrpcRetryInterceptor.historyOf(failure).stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(server.attempts()).isEqualTo(1);
  }

  @Test
  void theBuilderRefusesBadArgumentsByName() {
    GrpcRetryInterceptor.Builder builder = GrpcRetryInterceptor.builder();
    assertThatThrownBy(() -> builder.retryOn(Status.Code.OK))
        .hasMessage("status code OK is a success and cannot be retried");
    assertThatThrownBy(() -> builder.retryOnlyOn(Status.Code.UNAVAILABLE, null))
        .hasMessage("status code must not be null");
    assertThatThrownBy(() -> builder.attemptTimeout(Duration.ZERO)).hasMessage("attemptTimeout must be positive, was PT0S");
    assertThatThrownBy(() -> builder.attemptTimeout(Duration.ofMillis(-5)))
        .hasMessage("attemptTimeout must be positive, was PT-0.005S");
    assertThatThrownBy(() -> builder.policy(null)).hasMessage("policy must not be null");
    assertThatThrownBy(() -> builder.scheduler(null)).hasMessage("scheduler must not be null");
    assertThatThrownBy(() -> builder.deadlineTicker(null)).hasMessage("ticker must not be null");
    assertThatThrownBy(() -> builder.hedgeIf(null)).hasMessage("hedgeable must not be null");
    assertThat(builder.retryOnlyOn().build().retryableStatusCodes()).isEmpty();
    assertThat(GrpcRetryInterceptor.builder().build().retryableStatusCodes())
        .containsExactlyInAnyOrder(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void hedgeIfWithAPolicyThatDoesNotHedgeFailsAtBuildNamingBoth() {
    GrpcRetryInterceptor.Builder builder = GrpcRetryInterceptor.builder()
        .policy(RetryPolicy.builder().name("orders").build()).hedgeIf(method -> true);
    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hedgeIf has no effect: policy 'orders' does not hedge; give the policy hedging"
            + " (RetryPolicy.Builder.hedging) or leave hedgeIf out");
  }

  @Test
  void historyOfFindsNothingOnAFailureThatWasNotRetried() {
    assertThat(GrpcRetryInterceptor.historyOf(new RuntimeException(new IllegalStateException()))).isNull();
    assertThat(GrpcRetryInterceptor.historyOf(null)).isNull();
  }

  /** A gRPC deadline ticker that reads the fake clock. */
  static final class FakeTicker extends Deadline.Ticker {
    private final FakeClock clock;

    FakeTicker(FakeClock clock) {
      this.clock = clock;
    }

    @Override
    public long nanoTime() {
      return clock.nanoTime();
    }
  }
}
