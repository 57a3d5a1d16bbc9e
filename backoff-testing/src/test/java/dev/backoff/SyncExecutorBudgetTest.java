package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Budgets end to end through the synchronous executor, and the executor on virtual threads. */
class SyncExecutorBudgetTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);

  private static Callable<String> failing(AtomicInteger attempts) {
    return () -> {
      throw new IOException("attempt " + attempts.incrementAndGet());
    };
  }

  @Test
  void aRefusedRetryStopsTheCallAtOnceWithoutSleeping() {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(12).build();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(10).backoff(Backoff.fixed(Duration.ofSeconds(1))).budget(budget)
        .clock(clock).sleeper(sleeper).build());
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> executor.call(failing(attempts)))
        .isInstanceOf(IOException.class).hasMessage("attempt 3")
        .satisfies(failure -> assertThat(RetryHistory.of(failure).stopReason())
            .isEqualTo(StopReason.BUDGET_EXHAUSTED));
    assertThat(sleeper.sleeps()).hasSize(2); // 12 tokens pay for two retries of 5
    assertThat(budget.level()).isEqualTo(2.0);
  }

  @Test
  void aSharedBudgetCapsRetriesAcrossCalls() throws Exception {
    RetryBudget budget = RetryBudgets.grpcThrottling(10, 1);
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(3).backoff(Backoff.none()).budget(budget).clock(clock).sleeper(sleeper).build());
    AtomicInteger attempts = new AtomicInteger();
    // Each failed attempt costs a token; retries stop once 5 or fewer are left.
    for (int call = 0; call < 3; call++) {
      assertThatThrownBy(() -> executor.call(failing(attempts))).isInstanceOf(IOException.class);
    }
    // Call 1: 3 attempts (tokens 9, 8, 7). Call 2: 2 attempts (6, then 5: not above half, refused).
    // Call 3: 1 attempt (4), refused.
    assertThat(attempts).hasValue(6);
    assertThat(budget.level()).isEqualTo(4.0);
    assertThat(executor.call(() -> "fine")).isEqualTo("fine");
    assertThat(budget.level()).isEqualTo(5.0);
  }

  @Test
  void theRatioBudgetThroughTheExecutor() {
    RetryBudget budget = RetryBudgets.ratio(0.5, 0, Duration.ofSeconds(10), clock);
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(5).backoff(Backoff.none()).budget(budget).clock(clock).sleeper(sleeper).build());
    AtomicInteger attempts = new AtomicInteger();
    // No floor: the first call's deposit is half a retry, not enough for one.
    assertThatThrownBy(() -> executor.call(failing(attempts))).isInstanceOf(IOException.class);
    assertThat(attempts).hasValue(1);
    // The second call deposits the other half: one retry is allowed, then the budget is empty.
    assertThatThrownBy(() -> executor.call(failing(attempts))).isInstanceOf(IOException.class);
    assertThat(attempts).hasValue(3);
  }

  @Test
  void theSyncExecutorRunsOnVirtualThreads() throws Exception {
    assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
    // Compiled for Java 17: reach the JDK 21 factory reflectively.
    ExecutorService virtualThreads = (ExecutorService) java.util.concurrent.Executors.class
        .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    // Enough tokens for every call to be sleeping before its retry at the same moment.
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(5000).build();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(1))).budget(budget).build());
    int calls = 1000;
    List<Future<String>> results = new ArrayList<>();
    try {
      for (int i = 0; i < calls; i++) {
        AtomicInteger attempts = new AtomicInteger();
        results.add(virtualThreads.submit(() -> executor.call(() -> {
          if (attempts.incrementAndGet() < 2) {
            throw new IOException("once");
          }
          boolean virtual = (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
          return virtual ? "virtual" : "platform";
        })));
      }
      for (Future<String> result : results) {
        assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo("virtual");
      }
    } finally {
      virtualThreads.shutdown();
    }
    // Every call retried once and succeeded: each retry's 5 tokens were refunded.
    assertThat(budget.level()).isEqualTo(5000.0);
  }
}
