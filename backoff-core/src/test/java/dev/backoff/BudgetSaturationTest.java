package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** Budgets stay within [0, capacity] even when refunds are as large as the parameters allow. */
class BudgetSaturationTest {

  @Example
  void aRefundAsLargeAsAHugeCapacityFillsTheBucketWithoutWrappingNegative() {
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.tokenBucket().capacity(Long.MAX_VALUE)
        .retryCost(Long.MAX_VALUE).firstTrySuccessRefund(Long.MAX_VALUE).build();
    budget.onSuccess(0, null); // full bucket, refund of Long.MAX_VALUE: stays full
    assertThat(budget.tokens()).isEqualTo(Long.MAX_VALUE);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    assertThat(budget.tokens()).isZero();
    budget.onSuccess(1, FailureClass.TRANSIENT);
    assertThat(budget.tokens()).isEqualTo(Long.MAX_VALUE);
  }

  @Property(tries = 200)
  void tokenBucketLevelStaysWithinZeroAndCapacity(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long capacity,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long refund,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long cost) {
    long boundedRefund = Math.min(refund, capacity);
    long boundedCost = Math.min(cost, capacity);
    TokenBucketBudget budget = (TokenBucketBudget) RetryBudgets.tokenBucket().capacity(capacity)
        .retryCost(boundedCost).retryCost(FailureClass.TIMEOUT, boundedCost).firstTrySuccessRefund(boundedRefund)
        .build();
    for (int i = 0; i < 4; i++) {
      budget.tryAcquire(FailureClass.TRANSIENT);
      budget.onSuccess(i % 2, FailureClass.TRANSIENT);
      budget.onSuccess(0, null);
      assertThat(budget.tokens()).isBetween(0L, capacity);
    }
  }

  @Example
  void aHugeGrpcTokenRatioFillsToTheMaximumWithoutWrappingNegative() {
    GrpcThrottlingBudget budget = (GrpcThrottlingBudget) RetryBudgets.grpcThrottling(1000, 9223372036854770.0);
    budget.onSuccess(0, null);
    assertThat(budget.milliTokens()).isEqualTo(1000 * GrpcThrottlingBudget.MILLI);
    budget.onFailure(FailureClass.TRANSIENT);
    budget.onSuccess(1, FailureClass.TRANSIENT);
    assertThat(budget.milliTokens()).isEqualTo(1000 * GrpcThrottlingBudget.MILLI);
  }
}
