package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryBudgets;
import dev.backoff.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ScriptedBudgetTest {
  @Test
  void answersInTurnAndTheLastAnswerRepeats() {
    ScriptedBudget budget = ScriptedBudget.answering(true, false, true);
    assertThat(budget.tryAcquire(null)).isTrue();
    assertThat(budget.tryAcquire(null)).isFalse();
    assertThat(budget.tryAcquire(null)).isTrue();
    assertThat(budget.tryAcquire(null)).isTrue();
    assertThat(budget.acquires()).isEqualTo(4);
  }

  @Test
  void countsWhatTheEngineTellsIt() {
    ScriptedBudget budget = ScriptedBudget.answering(true, false);
    assertThat(attemptsUntilTheBudgetStopsTheCall(budget)).isEqualTo(2);
    assertThat(budget.calls()).isEqualTo(1);
    assertThat(budget.failures()).isEqualTo(2);
    assertThat(budget.acquires()).isEqualTo(2);
    assertThat(budget.successes()).isZero();
    assertThat(budget.releases()).isZero();
    assertThat(budget.granted()).isEqualTo(1);
    assertThat(budget.log()).containsExactly("call", "failure transient", "acquire transient", "failure transient",
        "acquire transient refused");
  }

  @Test
  void aCountingBudgetLetsItsDelegateAnswerAndCountsOnTheWay() {
    // 12 tokens, retries cost 5: two retries go ahead, the third is refused by the real bucket.
    ScriptedBudget budget = ScriptedBudget.counting(RetryBudgets.tokenBucket().capacity(12).build());
    assertThat(attemptsUntilTheBudgetStopsTheCall(budget)).isEqualTo(3);
    assertThat(budget.acquires()).isEqualTo(3);
    assertThat(budget.granted()).isEqualTo(2);
    assertThat(budget.level()).isEqualTo(2.0);

    assertThat(attemptsUntilTheBudgetStopsTheCall(budget)).isEqualTo(1);
    assertThat(budget.acquires()).isEqualTo(4);
    assertThat(budget.granted()).as("the bucket had 2 tokens left: refused").isEqualTo(2);
    assertThat(budget.level()).isEqualTo(2.0);
    assertThat(budget.successes()).isZero();
    budget.release(FailureClass.TRANSIENT);
    budget.onSuccess(1, FailureClass.TRANSIENT);
    assertThat(budget.level()).as("a release and a refund of 5 each, capped at 12").isEqualTo(12.0);
    assertThat(budget.releases()).isEqualTo(1);
    assertThat(budget.retriedSuccesses()).isEqualTo(1);
    assertThat(budget).hasToString("ScriptedBudget counting token bucket 12/12, retry costs 5, timeout 10");
  }

  @Test
  void aCountingBudgetNeedsADelegate() {
    assertThatThrownBy(() -> ScriptedBudget.counting(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("delegate must not be null");
  }

  /** Runs one call that always fails under this budget (up to 10 attempts) and returns its attempts. */
  private static int attemptsUntilTheBudgetStopsTheCall(ScriptedBudget budget) {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().maxAttempts(10)
        .backoff(Backoff.fixed(Duration.ofMillis(1))).sleeper(new RecordingSleeper(new FakeClock()))
        .budget(budget).build());
    Throwable thrown = catchThrowable(() -> executor.call(() -> {
      attempts.incrementAndGet();
      throw new IOException("down");
    }));
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
    return attempts.get();
  }

  @Test
  void anEmptyScriptIsRefused() {
    assertThatThrownBy(ScriptedBudget::answering).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("answers must not be empty");
  }
}
