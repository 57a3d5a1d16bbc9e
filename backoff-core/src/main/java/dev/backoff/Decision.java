package dev.backoff;

import java.time.Duration;

/**
 * What the decision engine says after an attempt: {@linkplain #isSuccess() success}, {@linkplain #isRetry()
 * retry after a delay}, or {@linkplain #isStop() stop} with a {@link StopReason}.
 *
 * <p>Immutable and thread-safe. Success and stop decisions are shared constants; only retry decisions are
 * allocated.
 */
public final class Decision {
  private static final Decision SUCCESS = new Decision(-1, null);
  private static final Decision[] STOPS = new Decision[StopReason.values().length];

  static {
    for (StopReason reason : StopReason.values()) {
      STOPS[reason.ordinal()] = new Decision(-1, reason);
    }
  }

  private final long delayNanos; // >= 0 only for a retry
  private final StopReason stopReason;

  private Decision(long delayNanos, StopReason stopReason) {
    this.delayNanos = delayNanos;
    this.stopReason = stopReason;
  }

  static Decision success() {
    return SUCCESS;
  }

  static Decision stop(StopReason reason) {
    return STOPS[reason.ordinal()];
  }

  static Decision retryAfter(long delayNanos) {
    return new Decision(delayNanos, null);
  }

  /** True when the attempt succeeded (its result is accepted). */
  public boolean isSuccess() {
    return this == SUCCESS;
  }

  /** True when the call should be retried after {@link #delayNanos()}. */
  public boolean isRetry() {
    return delayNanos >= 0;
  }

  /** True when the call failed for good; see {@link #stopReason()}. */
  public boolean isStop() {
    return stopReason != null;
  }

  /**
   * The delay before the retry, in nanoseconds.
   *
   * @throws IllegalStateException if this is not a retry decision
   */
  public long delayNanos() {
    if (delayNanos < 0) {
      throw new IllegalStateException("not a retry decision: " + this);
    }
    return delayNanos;
  }

  /**
   * The delay before the retry.
   *
   * @throws IllegalStateException if this is not a retry decision
   */
  public Duration delay() {
    return Duration.ofNanos(delayNanos());
  }

  /** Why the call stopped, or null unless this is a stop decision. */
  public StopReason stopReason() {
    return stopReason;
  }

  @Override
  public String toString() {
    if (isSuccess()) {
      return "success";
    }
    return isRetry() ? "retry after " + dev.backoff.spec.Durations.formatTruncated(delayNanos) : "stop: " + stopReason.description();
  }
}
