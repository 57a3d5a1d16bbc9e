package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.driver.CallState;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hedging inputs of the engine's SPI, as a driver that owns time (the simulator) feeds them. */
class EngineHedgingTest {
  private static final long MS = 1_000_000L;
  private final List<String> heard = new ArrayList<>();

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder()
        .maxAttempts(3)
        .hedging(Hedging.after(Duration.ofMillis(100)))
        .listener(new RetryListener<>() {
          @Override
          public void onHedgeSent(RetryEvent<String> event) {
            heard.add("hedge " + event.attempts() + " at " + event.elapsedNanos() / MS
                + (event.failure() == null ? "" : " after " + event.failure().getMessage()));
          }

          @Override
          public void onHedgeWon(RetryEvent<String> event) {
            heard.add("won " + event.attempts() + " " + event.result());
          }

          @Override
          public void onSuccess(RetryEvent<String> event) {
            heard.add("success " + event.attempts());
          }

          @Override
          public void onExhausted(RetryEvent<String> event) {
            heard.add("exhausted " + event.stopReason() + " " + event.attempts());
          }

          @Override
          public void onAborted(RetryEvent<String> event) {
            heard.add("aborted " + event.stopReason() + " " + event.attempts());
          }
        });
  }

  @Test
  void aHedgeThenAFailureThenTheHedgeWins() {
    // gRPC's throttling: 10 tokens, a failure costs 1, a hedge is refused at or below half.
    RetryBudget budget = RetryBudgets.grpcThrottling(10, 0.1);
    RetryPolicy<String> policy = policy().budget(budget).build();
    CallState<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThat(Engine.hedgeDue(execution, null, 100 * MS)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("reset"), Verdict.RETRYABLE, null, 130 * MS))
        .as("the next hedge at once").isZero();
    assertThat(budget.level()).isEqualTo(9.0);
    assertThat(execution.isDone()).isFalse();
    assertThat(Engine.hedgeWon(policy, execution, "b", 2, null, 0, 180 * MS)).isNull();

    assertThat(execution.isDone()).isTrue();
    assertThat(execution.attempts()).isEqualTo(2);
    assertThat(execution.retries()).isEqualTo(1);
    assertThat(heard).containsExactly("hedge 2 at 100", "won 2 b", "success 2");
  }

  @Test
  void theAttemptBoundTheDeadlineAndTheBudgetRefuseAHedgeWithTheirReasons() {
    RetryPolicy<String> three = policy().build();
    CallState<String> bounded = Engine.newExecution(three, 0, new SplittableRandom(1));
    assertThat(Engine.hedgeDue(bounded, null, 0)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.nextHedge(three, bounded, 0)).isEqualTo(100 * MS);
    assertThat(Engine.hedgeDue(bounded, null, 100 * MS)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.nextHedge(three, bounded, 100 * MS)).as("3 started").isEqualTo(Engine.NO_MORE_HEDGES);
    assertThat(bounded.isDone()).isFalse();
    assertThat(endWhenAllAnswered(bounded, 3)).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);

    RetryPolicy<String> deadline = policy().maxElapsed(Duration.ofMillis(250)).build();
    CallState<String> atDeadline = Engine.newExecution(deadline, 0, new SplittableRandom(1));
    assertThat(Engine.hedgeDue(atDeadline, null, 250 * MS)).as("at the deadline: still allowed")
        .isEqualTo(Engine.HEDGE_START);
    CallState<String> late = Engine.newExecution(deadline, 0, new SplittableRandom(1));
    assertThat(Engine.hedgeDue(late, null, 250 * MS + 1)).isEqualTo(Engine.NO_MORE_HEDGES);
    assertThat(endWhenAllAnswered(late, 1)).isEqualTo(StopReason.DEADLINE_EXCEEDED);

    CallState<String> broke = Engine.newExecution(policy().budget(RetryBudgets.grpcThrottling(2, 0.1)).build(), 0,
        new SplittableRandom(1));
    // 2 tokens: one retryable failure leaves 1, at the threshold (half), so the hedge it brings forward is refused.
    assertThat(Engine.hedgedOutcome(broke, null, new IOException("1"), Verdict.RETRYABLE, null, 0)).isZero();
    assertThat(Engine.hedgeDue(broke, null, 0)).as("nothing in flight").isEqualTo(Engine.CALL_ENDED);
    assertThat(broke.stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
    assertThat(broke.retries()).isZero();
  }

  /** Answers each of the {@code inFlight} attempts with a failure; the reason the call ended with the last. */
  private static StopReason endWhenAllAnswered(CallState<String> execution, int inFlight) {
    for (int i = 1; i < inFlight; i++) {
      assertThat(Engine.hedgedOutcome(execution, null, new IOException("x"), Verdict.RETRYABLE, null, 0))
          .isEqualTo(Engine.NO_MORE_HEDGES);
    }
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("x"), Verdict.RETRYABLE, null, 0))
        .isEqualTo(Engine.CALL_ENDED);
    return execution.stopReason();
  }

  @Test
  void pushbackIsADelayAStopOrTooLongAndAFatalFailureEndsTheCall() {
    RetryPolicy<String> policy = policy().maxAttempts(5).maxPushback(Duration.ofSeconds(1))
        .abortOn(IllegalStateException.class).build();
    CallState<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThat(Engine.hedgeDue(execution, null, 0)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("slow down"),
        Verdict.retryable(Pushback.after(Duration.ofMillis(300))), null, 10 * MS)).isEqualTo(300 * MS);
    assertThat(Engine.hedgeDue(execution, null, 310 * MS)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.nextHedge(policy, execution, 310 * MS)).isEqualTo(100 * MS);
    assertThat(Engine.hedgeDue(execution, null, 410 * MS)).isEqualTo(Engine.HEDGE_START); // 3 in flight
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("stop"), Verdict.retryable(Pushback.STOP),
        null, 420 * MS)).isEqualTo(Engine.NO_MORE_HEDGES);
    assertThat(execution.isDone()).isFalse(); // hedging stops; the attempts in flight go on
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("later"),
        Verdict.retryable(Pushback.after(Duration.ofSeconds(2))), null, 430 * MS)).isEqualTo(Engine.NO_MORE_HEDGES);
    assertThat(execution.isDone()).isFalse();

    IllegalStateException fatal = new IllegalStateException("bad request");
    assertThat(Engine.hedgedOutcome(execution, null, fatal, Verdict.RETRYABLE, null, 440 * MS))
        .isEqualTo(Engine.CALL_ENDED);
    assertThat(execution.stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(execution.finalFailure()).isSameAs(fatal);
    assertThat(fatal.getSuppressed()).hasSize(4); // three earlier failures and the history

    CallState<String> stopped = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThat(Engine.hedgedOutcome(stopped, null, new IOException("stop"), Verdict.retryable(Pushback.STOP), null,
        10 * MS)).isEqualTo(Engine.CALL_ENDED);
    assertThat(stopped.stopReason()).isEqualTo(StopReason.PUSHBACK);
    CallState<String> tooLong = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThat(Engine.hedgedOutcome(tooLong, null, new IOException("later"),
        Verdict.retryable(Pushback.after(Duration.ofSeconds(2))), null, 10 * MS)).isEqualTo(Engine.CALL_ENDED);
    assertThat(tooLong.stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
  }

  @Test
  void aStopCountsTheAttemptsInFlight() {
    RetryPolicy<String> policy = policy().build();
    NanoClock clock = () -> 160 * MS;
    CallState<String> two = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThat(Engine.hedgeDue(two, null, 100 * MS)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.hedgedOutcome(two, null, new IOException("1"), Verdict.RETRYABLE, null, 150 * MS)).isZero();
    assertThat(Engine.stop(two, StopReason.CANCELLED, clock)).isNull();
    // Only the first attempt in flight, its hedge not started (refused, or not yet due): it counts.
    CallState<String> one = Engine.newExecution(policy, 0, new SplittableRandom(1));
    Engine.stop(one, StopReason.CANCELLED, clock);

    assertThat(heard).containsExactly("hedge 2 at 100", "aborted CANCELLED 2", "aborted CANCELLED 1");
  }

  @Test
  void theHedgingStepsNeedAHedgingPolicyAndAFailedOutcome() {
    CallState<String> plain = Engine.newExecution(RetryPolicy.<String>defaults(), 0, new SplittableRandom(1));
    assertThatThrownBy(() -> Engine.hedgeDue(plain, null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("policy 'default' does not hedge");
    RetryPolicy<String> policy = policy().build();
    CallState<String> hedged = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThatThrownBy(() -> Engine.hedgedOutcome(hedged, "ok", null, Verdict.ACCEPT, null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("accepted");
    assertThatThrownBy(() -> Engine.hedgeWon(policy, hedged, "ok", 0, null, 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("attempt must be at least 1, was 0");
    Engine.hedgeWon(policy, hedged, "ok", 1, null, 0, 0);
    assertThatThrownBy(() -> Engine.hedgeDue(hedged, null, 0)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theMachinesHedgeInputsThroughTheSpiRunACallToItsWinner() {
    RetryPolicy<String> policy = policy().build();
    assertThat(Engine.nextHedge(policy, null, 0)).as("the first hedge, after the hedging delay").isEqualTo(100 * MS);
    CallState<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1)); // the first hedge is due
    CircuitBreaker.Permit permit = Engine.admit(policy);
    assertThat(permit).as("no breaker").isNull();
    assertThat(Engine.hedgeDue(execution, permit, 100 * MS)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.hedgesStarted(execution)).isEqualTo(2);
    assertThat(Engine.nextHedge(policy, execution, 100 * MS)).isEqualTo(100 * MS);
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("reset"), Verdict.RETRYABLE, null, 130 * MS))
        .as("a failure brings the next hedge forward").isZero();
    assertThat(Engine.hedgeDue(execution, null, 130 * MS)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.nextHedge(policy, execution, 130 * MS)).as("all three started")
        .isEqualTo(Engine.NO_MORE_HEDGES);
    assertThat(Engine.hedgeWon(policy, execution, "ok", 3, null, 0, 150 * MS)).as("no held result").isNull();

    assertThat(heard).containsExactly("hedge 2 at 100", "hedge 3 at 130 after reset", "won 3 ok", "success 3");
    assertThat(execution.isDone()).isTrue();
    assertThatThrownBy(() -> Engine.hedgeDue(Engine.newExecution(policy().hedging(null).build(), 0,
        new SplittableRandom(1)), null, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not hedge");
  }

  @Test
  void theLastAttemptInFlightEndsACallThatMayHedgeNoMore() {
    RetryPolicy<String> policy = policy().maxAttempts(2).build();
    CallState<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThat(Engine.hedgeDue(execution, null, 100 * MS)).isEqualTo(Engine.HEDGE_START);
    assertThat(Engine.nextHedge(policy, execution, 100 * MS)).isEqualTo(Engine.NO_MORE_HEDGES);
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("one"), Verdict.RETRYABLE, null, 120 * MS))
        .as("the other is still in flight").isEqualTo(Engine.NO_MORE_HEDGES);
    assertThat(Engine.hedgedOutcome(execution, null, new IOException("two"), Verdict.RETRYABLE, null, 140 * MS))
        .isEqualTo(Engine.CALL_ENDED);
    assertThat(execution.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(heard).containsExactly("hedge 2 at 100", "exhausted ATTEMPTS_EXHAUSTED 2");
  }
}
