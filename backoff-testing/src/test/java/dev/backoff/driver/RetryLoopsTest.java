package dev.backoff.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.Pushback;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The core's two loops through the driver SPI, with fake time: the rules every driver inherits. */
class RetryLoopsTest {
  private static final long SECOND = 1_000_000_000L;
  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 5 * SECOND); // wraps during the tests
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RecordingListener<String> listener = new RecordingListener<>();
  private final ScriptedBudget budget = ScriptedBudget.granting();

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder()
        .name("loops")
        .maxAttempts(4)
        .backoff(Backoff.fixed(Duration.ofSeconds(1)))
        .clock(clock)
        .sleeper(sleeper)
        .budget(budget)
        .listener(listener);
  }

  /** Attempts that return (or throw) the scripted outcomes in order; the last one repeats. */
  private static class Script implements SyncAttempt<String>, AsyncAttempt<String> {
    final Object[] outcomes;
    final List<Integer> numbers = Collections.synchronizedList(new ArrayList<>());
    final List<Long> nanosLeft = Collections.synchronizedList(new ArrayList<>());
    final List<String> discarded = Collections.synchronizedList(new ArrayList<>());
    final FakeClock clock;
    final long attemptNanos;

    Script(FakeClock clock, long attemptNanos, Object... outcomes) {
      this.clock = clock;
      this.attemptNanos = attemptNanos;
      this.outcomes = outcomes;
    }

    private Object next(AttemptContext context) {
      numbers.add(context.attempt());
      nanosLeft.add(context.nanosLeft());
      clock.advanceNanos(attemptNanos);
      return outcomes[Math.min(numbers.size(), outcomes.length) - 1];
    }

    @Override
    public String run(AttemptContext context) throws Exception {
      Object outcome = next(context);
      if (outcome instanceof Exception failure) {
        throw failure;
      }
      return (String) outcome;
    }

    @Override
    public CompletionStage<String> start(AttemptContext context) {
      Object outcome = next(context);
      return outcome instanceof Throwable failure ? CompletableFuture.failedFuture(failure)
          : CompletableFuture.completedFuture((String) outcome);
    }

    @Override
    public void discard(String lateResult) {
      discarded.add(lateResult);
    }
  }

  @Test
  void aFirstTrySuccessIsRecordedOnceInBothLoops() throws Exception {
    RetryPolicy<String> policy = policy().build();
    Script sync = new Script(clock, 0, "ok");

    assertThat(RetryLoops.sync(RetryExecutor.of(policy), sync, OutcomeJudge.policyRules())).isEqualTo("ok");
    CompletableFuture<String> async = RetryLoops.async(AsyncRetryExecutor.of(policy, scheduler),
        new Script(clock, 0, "ok"), OutcomeJudge.policyRules());

    assertThat(async).isCompletedWithValue("ok");
    assertThat(listener.summary()).containsExactly("success 1 ok", "success 1 ok");
    assertThat(budget.log()).containsExactly("call", "success 0 null", "call", "success 0 null");
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void theResultPredicateRunsExactlyOncePerAttempt() throws Exception {
    AtomicInteger tests = new AtomicInteger();
    Predicate<String> retryBusy = result -> {
      tests.incrementAndGet();
      return result.equals("busy");
    };
    RetryPolicy<String> policy = policy().retryOnResult(retryBusy).build();

    // The executors (the policy's own rules) and a driver's hooks, in both loops: three attempts each.
    assertThat(RetryExecutor.of(policy).call(new AtomicScript("busy", "busy", "ok")::next)).isEqualTo("ok");
    assertThat(tests.getAndSet(0)).isEqualTo(3);
    assertThat(RetryLoops.sync(RetryExecutor.of(policy), new Script(clock, 0, "busy", "busy", "ok"),
        OutcomeJudge.policyRules())).isEqualTo("ok");
    assertThat(tests.getAndSet(0)).isEqualTo(3);
    AtomicScript supplier = new AtomicScript("busy", "busy", "ok");
    CompletableFuture<String> viaExecutor = AsyncRetryExecutor.of(policy, scheduler)
        .call(() -> CompletableFuture.completedFuture(supplier.next()));
    scheduler.advance(Duration.ofSeconds(5));
    assertThat(viaExecutor).isCompletedWithValue("ok");
    assertThat(tests.getAndSet(0)).isEqualTo(3);
    CompletableFuture<String> viaHooks = RetryLoops.async(AsyncRetryExecutor.of(policy, scheduler),
        new Script(clock, 0, "busy", "busy", "ok"), OutcomeJudge.policyRules());
    scheduler.advance(Duration.ofSeconds(5));
    assertThat(viaHooks).isCompletedWithValue("ok");
    assertThat(tests.get()).isEqualTo(3);
  }

  /** A thread-safe script of results for the executors' own callables and suppliers. */
  private static final class AtomicScript {
    final String[] results;
    final AtomicInteger calls = new AtomicInteger();

    AtomicScript(String... results) {
      this.results = results;
    }

    String next() {
      return results[Math.min(calls.incrementAndGet(), results.length) - 1];
    }
  }

  @Test
  void aJudgeCanStopOnAResultForItsOwnReasonAndTheResultIsReturned() throws Exception {
    // Like HTTP's rule for a request that must not be repeated: a 503 ends the call at once.
    OutcomeJudge<String> judge = (policy, result, failure) ->
        failure == null && result.equals("503") ? Verdict.stop(StopReason.NOT_RETRYABLE) : Verdict.RETRYABLE;
    Script script = new Script(clock, 0, new IOException("reset"), "503", "ok");

    String result = RetryLoops.sync(RetryExecutor.of(policy().build()), script, judge);

    assertThat(result).isEqualTo("503");
    assertThat(script.numbers).containsExactly(1, 2);
    assertThat(listener.summary()).containsExactly("retry 1 in PT1S", "aborted NOT_RETRYABLE");
    assertThat(budget.log()).containsExactly("call", "failure transient", "acquire transient");
  }

  @Test
  void aJudgesPushbackHintIsTheLongerWaitAndAStopHintEndsTheCall() throws Exception {
    // Like Retry-After: the policy accepts every result, the judge retries "429" with the server's hint.
    OutcomeJudge<String> judge = (policy, result, failure) -> {
      if (failure != null) {
        return Verdict.RETRYABLE;
      }
      return switch (result) {
        case "429 wait 3s" -> Verdict.retryable(Pushback.after(Duration.ofSeconds(3)));
        case "429 no hint" -> Verdict.retryable(Pushback.NONE);
        case "429 never" -> Verdict.retryable(Pushback.STOP);
        default -> Verdict.ACCEPT;
      };
    };
    Script script = new Script(clock, 0, "429 wait 3s", "429 no hint", "429 never", "ok");

    String result = RetryLoops.sync(RetryExecutor.of(policy().build()), script, judge);

    assertThat(result).isEqualTo("429 never");
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(1));
    assertThat(listener.summary()).containsExactly("retry 1 in PT3S", "retry 2 in PT1S", "aborted PUSHBACK");
  }

  @Test
  void theAsyncLoopFollowsTheJudgeToo() {
    OutcomeJudge<String> judge = (policy, result, failure) -> failure != null ? Verdict.RETRYABLE
        : result.startsWith("429") ? Verdict.retryable(Pushback.after(Duration.ofSeconds(2))) : Verdict.ACCEPT;
    Script script = new Script(clock, 0, "429", new IOException("reset"), "ok");

    CompletableFuture<String> call = RetryLoops.async(AsyncRetryExecutor.of(policy().build(), scheduler), script,
        judge);
    scheduler.advance(Duration.ofSeconds(10));

    assertThat(call).isCompletedWithValue("ok");
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(1));
    assertThat(script.numbers).containsExactly(1, 2, 3);
    assertThat(listener.summary()).containsExactly("retry 1 in PT2S", "retry 2 in PT1S", "success 3 ok");
  }

  @Test
  void theAttemptContextSaysTheTimeLeftBeforeTheDeadline() throws Exception {
    RetryPolicy<String> policy = policy().maxElapsed(Duration.ofSeconds(10)).build();
    IOException reset = new IOException("reset");
    Script sync = new Script(clock, 2 * SECOND, reset, reset, "ok"); // each attempt takes 2 s, each wait 1 s

    assertThat(RetryLoops.sync(RetryExecutor.of(policy), sync, OutcomeJudge.policyRules())).isEqualTo("ok");
    Script async = new Script(clock, 2 * SECOND, reset, reset, "ok");
    CompletableFuture<String> call = RetryLoops.async(AsyncRetryExecutor.of(policy, scheduler), async,
        OutcomeJudge.policyRules());
    scheduler.advance(Duration.ofSeconds(10));

    assertThat(call).isCompletedWithValue("ok");
    assertThat(sync.numbers).containsExactly(1, 2, 3);
    assertThat(sync.nanosLeft).containsExactly(10 * SECOND, 7 * SECOND, 4 * SECOND);
    assertThat(async.numbers).containsExactly(1, 2, 3);
    assertThat(async.nanosLeft).containsExactly(10 * SECOND, 7 * SECOND, 4 * SECOND);
    Script noDeadline = new Script(clock, 0, "ok");
    RetryLoops.sync(RetryExecutor.of(policy().build()), noDeadline, OutcomeJudge.policyRules());
    assertThat(noDeadline.nanosLeft).containsExactly(AttemptContext.NO_DEADLINE);
  }

  @Test
  void cancellingTheAsyncLoopStartsNoFurtherAttemptAndDiscardsALateResult() {
    Script script = new Script(clock, 0, new IOException("reset"), "ok");
    CompletableFuture<String> call = RetryLoops.async(AsyncRetryExecutor.of(policy().build(), scheduler), script,
        OutcomeJudge.policyRules());
    assertThat(scheduler.pending()).isEqualTo(1);

    assertThat(call.cancel(true)).isTrue();
    scheduler.advance(Duration.ofMinutes(1));

    assertThat(scheduler.pending()).isZero();
    assertThat(script.numbers).containsExactly(1);
    assertThat(listener.summary()).containsExactly("retry 1 in PT1S", "aborted CANCELLED");

    // An attempt in flight when the caller gives up: its result arrives later and is handed back to discard.
    CompletableFuture<String> inFlight = new CompletableFuture<>();
    List<String> discarded = new ArrayList<>();
    CompletableFuture<String> second = RetryLoops.async(AsyncRetryExecutor.of(policy().build(), scheduler),
        new AsyncAttempt<String>() {
          @Override
          public CompletionStage<String> start(AttemptContext context) {
            return inFlight.minimalCompletionStage(); // a stage that cannot be cancelled through it
          }

          @Override
          public void discard(String lateResult) {
            discarded.add(lateResult);
          }
        }, OutcomeJudge.policyRules());
    second.cancel(true);
    inFlight.complete("late body");
    assertThat(second).isCancelled();
    assertThat(discarded).containsExactly("late body");
  }

  @Test
  void resultsRetriedAfterGoBackToTheHookAndTheReturnedOneDoesNot() throws Exception {
    RetryPolicy<String> policy = policy().maxAttempts(3).retryOnResult(result -> result.startsWith("busy")).build();
    Script sync = new Script(clock, 0, "busy 1", "busy 2", "busy 3");
    Script async = new Script(clock, 0, "busy 1", "busy 2", "busy 3");

    assertThat(RetryLoops.sync(RetryExecutor.of(policy), sync, OutcomeJudge.policyRules())).isEqualTo("busy 3");
    CompletableFuture<String> call = RetryLoops.async(AsyncRetryExecutor.of(policy, scheduler), async,
        OutcomeJudge.policyRules());
    scheduler.advance(Duration.ofSeconds(5));

    assertThat(call).isCompletedWithValue("busy 3");
    assertThat(sync.discarded).containsExactly("busy 1", "busy 2");
    assertThat(async.discarded).containsExactly("busy 1", "busy 2");
    OutcomeJudge<String> throwing = (p, result, failure) -> {
      throw new IllegalStateException("judge broke");
    };
    Script judgedBadly = new Script(clock, 0, "body");
    assertThatThrownBy(() -> RetryLoops.sync(RetryExecutor.of(policy), judgedBadly, throwing))
        .hasMessage("judge broke");
    assertThat(judgedBadly.discarded).containsExactly("body");
  }

  @Test
  void anInterruptedSleepStopsTheSyncLoopAndKeepsTheFlag() {
    Script script = new Script(clock, 0, new IOException("reset"), "ok");
    RetryPolicy<String> policy = policy().sleeper(new RecordingSleeper(clock).interruptAfter(0)).build();

    Throwable thrown = catchThrowable(() -> RetryLoops.sync(RetryExecutor.of(policy), script,
        OutcomeJudge.policyRules()));

    assertThat(Thread.interrupted()).isTrue(); // and cleared for the next test
    assertThat(thrown).isInstanceOf(InterruptedException.class);
    assertThat(thrown.getSuppressed()).hasSize(1);
    assertThat(RetryHistory.of(thrown.getSuppressed()[0]).stopReason()).isEqualTo(StopReason.INTERRUPTED);
    assertThat(script.numbers).containsExactly(1);
    assertThat(listener.summary()).containsExactly("retry 1 in PT1S", "aborted INTERRUPTED");
  }

  @Test
  void aDriversWaitGoesThroughThePolicysSleeperByDefault() throws Exception {
    Script script = new Script(clock, 0, new IOException("reset"), "ok");

    assertThat(RetryLoops.sync(RetryExecutor.of(policy().build()), script, OutcomeJudge.policyRules()))
        .isEqualTo("ok");
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1));
  }

  @Test
  void aDriversWaitThatSaysCancelledStopsTheSyncLoopWithNoFurtherAttempt() {
    IOException second = new IOException("reset again");
    List<Long> waits = new ArrayList<>();
    Script script = new Script(clock, 0, new IOException("reset"), second, "ok") {
      @Override
      public boolean waitToRetry(long nanos, dev.backoff.Sleeper policySleeper) throws InterruptedException {
        waits.add(nanos);
        policySleeper.sleep(nanos);
        return waits.size() < 2; // cancelled during the second wait
      }
    };

    Throwable thrown = catchThrowable(() -> RetryLoops.sync(RetryExecutor.of(policy().build()), script,
        OutcomeJudge.policyRules()));

    assertThat(thrown).isInstanceOf(CancellationException.class)
        .hasMessage("the call was cancelled while waiting to retry (after 2 attempts)")
        .hasCause(second);
    assertThat(RetryHistory.of(second).stopReason()).isEqualTo(StopReason.CANCELLED);
    assertThat(script.numbers).containsExactly(1, 2);
    assertThat(waits).containsExactly(SECOND, SECOND);
    assertThat(sleeper.sleeps()).hasSize(2);
    assertThat(listener.summary()).containsExactly("retry 1 in PT1S", "retry 2 in PT1S", "aborted CANCELLED");
    // The permission for the retry that never started goes back to the budget.
    assertThat(budget.releases()).isEqualTo(1);
    assertThat(budget.log()).endsWith("release transient");
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aJudgeThatStopsAsInterruptedSetsTheFlagAgain() {
    // HTTP's rule: a send interrupted on the caller's thread throws InterruptedException, clearing the flag.
    InterruptedException interrupted = new InterruptedException("send interrupted");
    OutcomeJudge<String> judge = (policy, result, failure) -> failure instanceof InterruptedException
        ? Verdict.stop(StopReason.INTERRUPTED) : Verdict.RETRYABLE;

    Throwable thrown = catchThrowable(() -> RetryLoops.sync(RetryExecutor.of(policy().build()),
        new Script(clock, 0, interrupted), judge));

    assertThat(Thread.interrupted()).isTrue();
    assertThat(thrown).isSameAs(interrupted);
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.INTERRUPTED);
    assertThat(budget.log()).containsExactly("call"); // a stop for the driver's reason charges nothing
  }

  @Test
  void aBrokenJudgeIsAnErrorNamingIt() {
    OutcomeJudge<String> acceptsFailures = (policy, result, failure) -> Verdict.ACCEPT;
    OutcomeJudge<String> saysNothing = (policy, result, failure) -> null;
    RetryExecutor<String> executor = RetryExecutor.of(policy().build());

    assertThatThrownBy(() -> RetryLoops.sync(executor, new Script(clock, 0, new IOException("x")), acceptsFailures))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("accepted a failure");
    assertThatThrownBy(() -> RetryLoops.sync(executor, new Script(clock, 0, "ok"), saysNothing))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("returned null");
    CompletableFuture<String> async = RetryLoops.async(AsyncRetryExecutor.of(policy().build(), scheduler),
        new Script(clock, 0, "ok"), saysNothing);
    assertThat(async).isCompletedExceptionally();
    assertThatThrownBy(() -> RetryLoops.sync(null, new Script(clock, 0, "ok"), saysNothing))
        .isInstanceOf(NullPointerException.class).hasMessage("executor must not be null");
    assertThatThrownBy(() -> RetryLoops.sync(executor, null, saysNothing))
        .isInstanceOf(NullPointerException.class).hasMessage("attempt must not be null");
    assertThatThrownBy(() -> RetryLoops.async(AsyncRetryExecutor.of(policy().build(), scheduler),
        new Script(clock, 0, "ok"), null))
        .isInstanceOf(NullPointerException.class).hasMessage("judge must not be null");
    assertThatThrownBy(() -> Verdict.retryable(-2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-2");
  }

  @Test
  void theEngineEntryPointsApplyTheFirstAttemptRuleForHandDrivenDrivers() {
    RetryPolicy<String> policy = policy().build();

    Engine.succeeded(policy, null, "first", clock.nanoTime(), clock.nanoTime() + 7);
    CallState<String> execution = Engine.newExecution(policy, 0, new java.util.Random(1));
    assertThat(Engine.record(execution, null, new IOException("x"), Verdict.RETRYABLE, SECOND).isRetry()).isTrue();
    Engine.succeeded(policy, execution, "second", 0, 2 * SECOND);

    assertThat(listener.summary()).containsExactly("success 1 first", "retry 1 in PT1S", "success 2 second");
    assertThat(budget.log()).containsExactly("call", "success 0 null", "call", "failure transient",
        "acquire transient", "success 1 transient");
    assertThat(Engine.needsStartTime(policy)).isTrue(); // listeners need it
    assertThat(Engine.needsStartTime(RetryPolicy.defaults())).isFalse();
  }

  @Test
  void cancellationMidCallIsAnAbortForTheListenersInTheAsyncLoop() {
    CompletableFuture<String> never = new CompletableFuture<>();
    CompletableFuture<String> call = RetryLoops.async(AsyncRetryExecutor.of(policy().build(), scheduler),
        context -> never, OutcomeJudge.policyRules());
    call.cancel(true);
    assertThat(never).isCancelled(); // the attempt in flight was cancelled through its stage
    assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
    assertThat(listener.summary()).containsExactly("aborted CANCELLED");
  }
}
