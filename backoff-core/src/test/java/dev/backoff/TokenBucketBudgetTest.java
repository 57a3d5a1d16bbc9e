package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class TokenBucketBudgetTest {

  @Example
  void awsStandardModeCostsAndRefunds() {
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.awsStandard();
    assertThat(budget.tokens()).isEqualTo(500);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    assertThat(budget.tokens()).isEqualTo(495);
    assertThat(budget.tryAcquire(FailureClass.TIMEOUT)).isTrue();
    assertThat(budget.tokens()).isEqualTo(485);
    assertThat(budget.tryAcquire(FailureClass.THROTTLED)).isTrue();
    assertThat(budget.tokens()).isEqualTo(480);
    // The call whose last retry followed a timeout succeeds: that retry's 10 tokens come back.
    budget.onSuccess(2, FailureClass.TIMEOUT);
    assertThat(budget.tokens()).isEqualTo(490);
    budget.onSuccess(1, FailureClass.TRANSIENT);
    assertThat(budget.tokens()).isEqualTo(495);
    budget.onSuccess(0, null);
    assertThat(budget.tokens()).isEqualTo(496);
    assertThat(budget.level()).isEqualTo(496.0);
  }

  @Example
  void refusesWhenTheCostIsNotCoveredAndNeverGoesNegative() {
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.tokenBucket().capacity(12).build();
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue(); // 7
    assertThat(budget.tryAcquire(FailureClass.TIMEOUT)).isFalse(); // needs 10
    assertThat(budget.tokens()).isEqualTo(7);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue(); // 2
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    assertThat(budget.tokens()).isEqualTo(2);
  }

  @Example
  void refundsNeverExceedTheCapacity() {
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.awsStandard();
    budget.onSuccess(0, null);
    budget.onSuccess(3, FailureClass.TIMEOUT);
    assertThat(budget.tokens()).isEqualTo(500);
    budget.tryAcquire(FailureClass.TRANSIENT);
    budget.onSuccess(1, FailureClass.TIMEOUT); // refunds 10, of which only 5 fit
    assertThat(budget.tokens()).isEqualTo(500);
  }

  @Example
  void costsPerClassAreConfigurable() {
    FailureClass quota = FailureClass.of("quota");
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.tokenBucket()
        .capacity(100).retryCost(2).retryCost(FailureClass.THROTTLED, 20).retryCost(FailureClass.TIMEOUT, 0)
        .retryCost(quota, 7).firstTrySuccessRefund(0).build();
    assertThat(budget.cost(FailureClass.TRANSIENT)).isEqualTo(2);
    assertThat(budget.cost(FailureClass.THROTTLED)).isEqualTo(20);
    assertThat(budget.cost(FailureClass.TIMEOUT)).isZero();
    assertThat(budget.cost(quota)).isEqualTo(7);
    budget.tryAcquire(FailureClass.THROTTLED);
    budget.onSuccess(0, null);
    assertThat(budget.tokens()).isEqualTo(80);
  }

  @Example
  void badParametersAreRejectedWithTheirNameAndValue() {
    assertThatThrownBy(() -> RetryBudgets.tokenBucket().capacity(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("capacity must be at least 1, was 0");
    assertThatThrownBy(() -> RetryBudgets.tokenBucket().retryCost(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("retryCost must not be negative, was -1");
    assertThatThrownBy(() -> RetryBudgets.tokenBucket().retryCost(FailureClass.TIMEOUT, -3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryCost for timeout must not be negative, was -3");
    assertThatThrownBy(() -> RetryBudgets.tokenBucket().firstTrySuccessRefund(-2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("firstTrySuccessRefund must not be negative, was -2");
    assertThatThrownBy(() -> RetryBudgets.tokenBucket().retryCost(null, 1))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("failureClass");
    // Cross-field rule, checked in build() whatever the order of the calls.
    assertThatThrownBy(() -> RetryBudgets.tokenBucket().capacity(8).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryCost for timeout must not exceed capacity 8, was 10");
    assertThatThrownBy(() -> RetryBudgets.tokenBucket().retryCost(50).capacity(20).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("retryCost must not exceed capacity 20, was 50");
  }

  /**
   * Threads acquire and refund concurrently. Every acquisition is paired with a refund of the same amount
   * or none, so the bucket never hits its capacity (nor runs dry: at most 800 tokens are kept) and
   * conservation is exact: final = capacity - kept.
   */
  @Example
  void concurrentAcquiresAndRefundsConserveTokensExactly() throws Exception {
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.tokenBucket().capacity(1000).build();
    int threads = 4;
    int iterations = 20_000;
    AtomicLong kept = new AtomicLong();
    AtomicBoolean invariantBroken = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < iterations; i++) {
          FailureClass failureClass = random.nextBoolean() ? FailureClass.TRANSIENT : FailureClass.TIMEOUT;
          if (budget.tryAcquire(failureClass)) {
            if (i % 1000 != 0) {
              budget.onSuccess(1, failureClass);
            } else {
              kept.addAndGet(budget.cost(failureClass));
            }
          }
          long level = budget.tokens();
          if (level < 0 || level > 1000) {
            invariantBroken.set(true);
          }
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
    assertThat(kept.get()).isBetween(4L * 20 * 5, 4L * 20 * 10); // every 1000th grant is kept, 5 or 10 tokens
    assertThat(budget.tokens()).isEqualTo(1000 - kept.get());
  }

  /**
   * Any sequence of retries (by class) and successes, against a plain model: the level always matches, and
   * stays within [0, capacity]. Operation codes: 0-2 retry after transient/timeout/throttled, 3 first-try
   * success, 4-6 success whose last retry followed transient/timeout/throttled.
   */
  @Property(tries = 300)
  void agreesWithAPlainModel(@ForAll @Size(max = 300) List<@IntRange(min = 0, max = 6) Integer> operations,
      @ForAll @IntRange(min = 7, max = 60) int capacity) {
    FailureClass[] classes = {FailureClass.TRANSIENT, FailureClass.TIMEOUT, FailureClass.THROTTLED};
    long[] costs = {3, 7, 0};
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.tokenBucket().capacity(capacity).retryCost(3)
        .retryCost(FailureClass.TIMEOUT, costs[1]).retryCost(FailureClass.THROTTLED, 0).firstTrySuccessRefund(1)
        .build();
    long model = capacity;
    for (int operation : operations) {
      if (operation <= 2) {
        boolean granted = model >= costs[operation];
        assertThat(budget.tryAcquire(classes[operation])).isEqualTo(granted);
        if (granted) {
          model -= costs[operation];
        }
      } else if (operation == 3) {
        budget.onSuccess(0, null);
        model = Math.min(capacity, model + 1);
      } else {
        budget.onSuccess(2, classes[operation - 4]);
        model = Math.min(capacity, model + costs[operation - 4]);
      }
      assertThat(budget.tokens()).isEqualTo(model).isBetween(0L, (long) capacity);
    }
  }
}
