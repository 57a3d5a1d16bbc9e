package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hedging steps of the engine's SPI, as a driver that owns time (the simulator) uses them. */
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
        });
  }

  @Test
  void aHedgeThenAFailureThenTheHedgeWins() {
    // gRPC's throttling: 10 tokens, a failure costs 1, a hedge is refused at or below half.
    RetryBudget budget = RetryBudgets.grpcThrottling(10, 0.1);
    RetryPolicy<String> policy = policy().budget(budget).build();
    Execution<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1));
    assertThat(Engine.tryHedge(execution, 1, null, null, 100 * MS)).isNull();
    Decision afterFailure = Engine.recordHedged(execution, null, new IOException("reset"), Verdict.RETRYABLE, null,
        130 * MS);
    assertThat(afterFailure.isRetry()).isTrue();
    assertThat(afterFailure.delayNanos()).isZero();
    assertThat(budget.level()).isEqualTo(9.0);
    assertThat(execution.isDone()).isFalse();
    Engine.hedgeSucceeded(execution, "b", 2, 180 * MS);

    assertThat(execution.isDone()).isTrue();
    assertThat(execution.attempts()).isEqualTo(2);
    assertThat(execution.retries()).isEqualTo(1);
    assertThat(heard).containsExactly("hedge 2 at 100", "won 2 b", "success 2");
  }

  @Test
  void theAttemptBoundTheDeadlineAndTheBudgetRefuseAHedgeWithTheirReasons() {
    Execution<String> bounded = Engine.newExecution(policy().build(), 0, new SplittableRandom(1));
    assertThat(Engine.tryHedge(bounded, 1, null, null, 0)).isNull();
    assertThat(Engine.tryHedge(bounded, 2, null, null, 0)).isNull();
    assertThat(Engine.tryHedge(bounded, 3, null, null, 0)).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(bounded.isDone()).isFalse();

    Execution<String> late = Engine.newExecution(policy().maxElapsed(Duration.ofMillis(250)).build(), 0,
        new SplittableRandom(1));
    assertThat(Engine.tryHedge(late, 1, null, null, 250 * MS)).isNull(); // at the deadline: still allowed
    assertThat(Engine.tryHedge(late, 2, null, null, 250 * MS + 1)).isEqualTo(StopReason.DEADLINE_EXCEEDED);

    Execution<String> broke = Engine.newExecution(policy().budget(RetryBudgets.grpcThrottling(2, 0.1)).build(), 0,
        new SplittableRandom(1));
    // 2 tokens: one retryable failure leaves 1, at the threshold (half), so hedges are refused.
    Engine.recordHedged(broke, null, new IOException("1"), Verdict.RETRYABLE, null, 0);
    assertThat(Engine.tryHedge(broke, 1, FailureClass.TRANSIENT, new IOException("1"), 0))
        .isEqualTo(StopReason.BUDGET_EXHAUSTED);
    assertThat(broke.retries()).isZero();
  }

  @Test
  void pushbackIsADelayAStopOrTooLongAndAFatalFailureEndsTheCall() {
    RetryPolicy<String> policy = policy().maxPushback(Duration.ofSeconds(1)).abortOn(IllegalStateException.class)
        .build();
    Execution<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1));
    Decision wait = Engine.recordHedged(execution, null, new IOException("slow down"),
        Verdict.retryable(Pushback.after(Duration.ofMillis(300))), null, 10 * MS);
    assertThat(wait.delayNanos()).isEqualTo(300 * MS);
    Decision stop = Engine.recordHedged(execution, null, new IOException("stop"), Verdict.retryable(Pushback.STOP),
        null, 20 * MS);
    assertThat(stop.stopReason()).isEqualTo(StopReason.PUSHBACK);
    assertThat(execution.isDone()).isFalse(); // hedging stops; the attempts in flight go on
    Decision tooLong = Engine.recordHedged(execution, null, new IOException("later"),
        Verdict.retryable(Pushback.after(Duration.ofSeconds(2))), null, 30 * MS);
    assertThat(tooLong.stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    assertThat(execution.isDone()).isFalse();

    IllegalStateException fatal = new IllegalStateException("bad request");
    Decision end = Engine.recordHedged(execution, null, fatal, Verdict.RETRYABLE, null, 40 * MS);
    assertThat(end.stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(execution.isDone()).isTrue();
    assertThat(execution.finalFailure()).isSameAs(fatal);
    assertThat(fatal.getSuppressed()).hasSize(4); // three earlier failures and the history
  }

  @Test
  void theLoopEndsAFailedHedgedCallWithStop() {
    Execution<String> execution = Engine.newExecution(policy().build(), 0, new SplittableRandom(1));
    assertThat(Engine.tryHedge(execution, 1, null, null, 100 * MS)).isNull();
    Engine.recordHedged(execution, null, new IOException("1"), Verdict.RETRYABLE, null, 150 * MS);
    Engine.recordHedged(execution, null, new IOException("2"), Verdict.RETRYABLE, null, 160 * MS);
    assertThat(execution.stop(StopReason.ATTEMPTS_EXHAUSTED, 160 * MS).stopReason())
        .isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(heard).containsExactly("hedge 2 at 100", "exhausted ATTEMPTS_EXHAUSTED 2");
  }

  @Test
  void theHedgingStepsNeedAHedgingPolicyAndAFailedOutcome() {
    Execution<String> plain = Engine.newExecution(RetryPolicy.<String>defaults(), 0, new SplittableRandom(1));
    assertThatThrownBy(() -> Engine.tryHedge(plain, 1, null, null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("policy 'default' does not hedge");
    Execution<String> hedged = Engine.newExecution(policy().build(), 0, new SplittableRandom(1));
    assertThatThrownBy(() -> Engine.recordHedged(hedged, "ok", null, Verdict.ACCEPT, null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("accepted");
    assertThatThrownBy(() -> Engine.hedgeSucceeded(hedged, "ok", 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("attempt must be at least 1, was 0");
    Engine.hedgeSucceeded(hedged, "ok", 1, 0);
    assertThatThrownBy(() -> Engine.tryHedge(hedged, 1, null, null, 0)).isInstanceOf(IllegalStateException.class);
  }
  @Test
  void theMachinesHedgeInputsThroughTheSpiRunACallToItsWinner() {
    RetryPolicy<String> policy = policy().build();
    assertThat(Engine.nextHedge(policy, null, 0)).as("the first hedge, after the hedging delay").isEqualTo(100 * MS);
    Execution<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1)); // the first hedge is due
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
    Execution<String> execution = Engine.newExecution(policy, 0, new SplittableRandom(1));
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
