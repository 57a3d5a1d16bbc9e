package dev.backoff;

import java.util.concurrent.atomic.AtomicLong;

/**
 * gRPC's retry throttling (gRFC A6): tokens start at the maximum, every failed attempt costs one, every
 * successful call earns {@code tokenRatio}, and retries are allowed only while the count is above half the
 * maximum. Tokens are kept in thousandths (gRPC specifies the ratio to three decimal places) in one
 * {@link AtomicLong}, so updates are lock-free and the count stays within {@code [0, maxTokens]}.
 */
final class GrpcThrottlingBudget implements RetryBudget {
  static final long MILLI = 1000;
  private final long maxMilliTokens;
  private final long milliTokenRatio;
  private final AtomicLong milliTokens;

  GrpcThrottlingBudget(long maxMilliTokens, long milliTokenRatio) {
    this.maxMilliTokens = maxMilliTokens;
    this.milliTokenRatio = milliTokenRatio;
    this.milliTokens = new AtomicLong(maxMilliTokens);
  }

  @Override
  public void onCall() {}

  @Override
  public void onFailure(FailureClass failureClass) {
    for (;;) {
      long current = milliTokens.get();
      long next = Math.max(0, current - MILLI);
      if (next == current || milliTokens.compareAndSet(current, next)) {
        return;
      }
    }
  }

  @Override
  public boolean tryAcquire(FailureClass failureClass) {
    // The failure has already been charged by onFailure; a retry needs strictly more than half the maximum.
    return milliTokens.get() * 2 > maxMilliTokens;
  }

  @Override
  public void onSuccess(int retries, FailureClass lastRetryClass) {
    for (;;) {
      long current = milliTokens.get();
      // Compared before adding: a huge token ratio (up to about 9.2e15 passes validation) must not wrap.
      long next = milliTokenRatio >= maxMilliTokens - current ? maxMilliTokens : current + milliTokenRatio;
      if (next == current || milliTokens.compareAndSet(current, next)) {
        return;
      }
    }
  }

  @Override
  public double level() {
    return milliTokens.get() / (double) MILLI;
  }

  long maxMilliTokens() {
    return maxMilliTokens;
  }

  long milliTokenRatio() {
    return milliTokenRatio;
  }

  long milliTokens() {
    return milliTokens.get();
  }

  @Override
  public String toString() {
    return "gRPC throttling " + level() + "/" + (maxMilliTokens / (double) MILLI) + ", token ratio "
        + (milliTokenRatio / (double) MILLI);
  }
}
