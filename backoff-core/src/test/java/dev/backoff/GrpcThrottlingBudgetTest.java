package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class GrpcThrottlingBudgetTest {

  @Test
  void retriesOnlyWhileTokensAreAboveHalfTheMaximum() {
    GrpcThrottlingBudget budget = (GrpcThrottlingBudget) RetryBudgets.grpcThrottling();
    assertThat(budget.level()).isEqualTo(10.0);
    for (int i = 0; i < 4; i++) {
      budget.onFailure(FailureClass.TRANSIENT);
      assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    }
    budget.onFailure(FailureClass.TRANSIENT); // 5 tokens: not above 10 / 2
    assertThat(budget.milliTokens()).isEqualTo(5000);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    budget.onSuccess(0, null); // 5.1
    assertThat(budget.milliTokens()).isEqualTo(5100);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue(); // asking does not cost; failing does
  }

  @Test
  void tokensStayWithinZeroAndTheMaximum() {
    GrpcThrottlingBudget budget = (GrpcThrottlingBudget) RetryBudgets.grpcThrottling(4, 1.6);
    for (int i = 0; i < 10; i++) {
      budget.onFailure(FailureClass.TIMEOUT);
    }
    assertThat(budget.milliTokens()).isZero();
    budget.onSuccess(0, null);
    budget.onSuccess(0, null);
    assertThat(budget.milliTokens()).isEqualTo(3200);
    budget.onSuccess(0, null);
    assertThat(budget.milliTokens()).isEqualTo(4000);
    assertThat(budget.level()).isEqualTo(4.0);
  }

  @Test
  void badParametersAreRejectedWithTheirNameAndValue() {
    assertThatThrownBy(() -> RetryBudgets.grpcThrottling(0, 0.1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxTokens must be in [1, 1000], was 0");
    assertThatThrownBy(() -> RetryBudgets.grpcThrottling(1001, 0.1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxTokens must be in [1, 1000], was 1001");
    assertThatThrownBy(() -> RetryBudgets.grpcThrottling(10, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tokenRatio must be positive, was 0.0");
    assertThatThrownBy(() -> RetryBudgets.grpcThrottling(10, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tokenRatio must be a finite number, was NaN");
    assertThatThrownBy(() -> RetryBudgets.grpcThrottling(10, 0.0005))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tokenRatio must have at most three decimal places, was 5.0E-4");
  }

  /** Failures and successes from many threads: with no capacity clamp reached, the count is exact. */
  @Test
  void concurrentUpdatesAreNeitherLostNorOutOfBounds() throws Exception {
    GrpcThrottlingBudget budget = (GrpcThrottlingBudget) RetryBudgets.grpcThrottling(1000, 1);
    int threads = 4;
    int iterations = 50_000;
    AtomicBoolean invariantBroken = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        // Failure then success: the count dips by one and comes back, so it never leaves [996, 1000].
        for (int i = 0; i < iterations; i++) {
          budget.onFailure(FailureClass.TRANSIENT);
          long level = budget.milliTokens();
          if (level < 0 || level > 1_000_000) {
            invariantBroken.set(true);
          }
          budget.onSuccess(0, null);
        }
      });
      workers.add(worker);
      worker.start();
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(invariantBroken).isFalse();
    assertThat(budget.milliTokens()).isEqualTo(1_000_000);

    // Only failures now: 4 threads x 200 from 1000 tokens leave exactly 200 if none is lost.
    List<Thread> failing = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        for (int i = 0; i < 200; i++) {
          budget.onFailure(FailureClass.TRANSIENT);
        }
      });
      failing.add(worker);
      worker.start();
    }
    for (Thread worker : failing) {
      worker.join();
    }
    assertThat(budget.milliTokens()).isEqualTo(200_000);
  }
}
