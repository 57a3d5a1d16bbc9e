package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
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
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().maxAttempts(5)
        .backoff(Backoff.fixed(Duration.ofMillis(1))).sleeper(new RecordingSleeper(new FakeClock()))
        .budget(budget).build());
    Throwable thrown = catchThrowable(() -> executor.call(() -> {
      attempts.incrementAndGet();
      throw new IOException("down");
    }));
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
    assertThat(attempts).hasValue(2);
    assertThat(budget.calls()).isEqualTo(1);
    assertThat(budget.failures()).isEqualTo(2);
    assertThat(budget.acquires()).isEqualTo(2);
    assertThat(budget.successes()).isZero();
    assertThat(budget.releases()).isZero();
  }

  @Test
  void anEmptyScriptIsRefused() {
    assertThatThrownBy(ScriptedBudget::answering).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("answers must not be empty");
  }
}
