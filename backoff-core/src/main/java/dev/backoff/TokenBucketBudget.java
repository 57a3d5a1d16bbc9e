package dev.backoff;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The AWS SDK "standard mode" retry quota: a bucket of whole tokens that retries draw from and successes
 * refund. Lock-free: every change is one compare-and-set on a single {@link AtomicLong}, so the level can
 * never go below zero or above the capacity, and no concurrent refund is lost.
 */
final class TokenBucketBudget implements RetryBudget {
  private final long capacity;
  private final long defaultCost;
  private final FailureClass[] classesWithCost;
  private final long[] costByClass;
  private final long firstTrySuccessRefund;
  private final AtomicLong tokens;

  TokenBucketBudget(long capacity, long defaultCost, FailureClass[] classesWithCost, long[] costByClass,
      long firstTrySuccessRefund) {
    this.capacity = capacity;
    this.defaultCost = defaultCost;
    this.classesWithCost = classesWithCost;
    this.costByClass = costByClass;
    this.firstTrySuccessRefund = firstTrySuccessRefund;
    this.tokens = new AtomicLong(capacity);
  }

  long cost(FailureClass failureClass) {
    for (int i = 0; i < classesWithCost.length; i++) {
      if (classesWithCost[i] == failureClass) {
        return costByClass[i];
      }
    }
    return defaultCost;
  }

  @Override
  public void onCall() {}

  @Override
  public void onFailure(FailureClass failureClass) {}

  @Override
  public boolean tryAcquire(FailureClass failureClass) {
    long cost = cost(failureClass);
    for (;;) {
      long current = tokens.get();
      if (current < cost) {
        return false;
      }
      if (tokens.compareAndSet(current, current - cost)) {
        return true;
      }
    }
  }

  @Override
  public void release(FailureClass failureClass) {
    deposit(cost(failureClass));
  }

  @Override
  public void onSuccess(int retries, FailureClass lastRetryClass) {
    // AWS refunds what the call's last retry cost; a first-try success earns a small fixed amount.
    deposit(retries > 0 ? cost(lastRetryClass) : firstTrySuccessRefund);
  }

  private void deposit(long refund) {
    if (refund == 0) {
      return;
    }
    for (;;) {
      long current = tokens.get();
      // Compared before adding: with a capacity near Long.MAX_VALUE, current + refund could wrap negative.
      long next = refund >= capacity - current ? capacity : current + refund;
      if (next == current || tokens.compareAndSet(current, next)) {
        return;
      }
    }
  }

  @Override
  public double level() {
    return tokens.get();
  }

  long tokens() {
    return tokens.get();
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("token bucket ").append(tokens.get()).append('/').append(capacity)
        .append(", retry costs ").append(defaultCost);
    for (int i = 0; i < classesWithCost.length; i++) {
      text.append(", ").append(classesWithCost[i]).append(' ').append(costByClass[i]);
    }
    return text.toString();
  }
}
