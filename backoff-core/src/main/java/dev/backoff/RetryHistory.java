package dev.backoff;

import java.time.Duration;

/**
 * Attached as a suppressed exception to the failure a caller receives when retries stopped, so the
 * attempt count, elapsed time and reason travel with the failure itself (which is rethrown unchanged, so
 * callers still catch their own exception types). It has no stack trace. Find it with {@link #of}.
 * Immutable.
 */
public final class RetryHistory extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String policyName;
  private final int attempts;
  private final long elapsedNanos;
  private final StopReason stopReason;

  RetryHistory(String policyName, int attempts, long elapsedNanos, StopReason stopReason) {
    super(policyName + ": gave up after " + attempts + (attempts == 1 ? " attempt" : " attempts") + " in "
        + readable(elapsedNanos) + (stopReason == null ? "" : ": " + stopReason.description()),
        null, false, false);
    this.policyName = policyName;
    this.attempts = attempts;
    this.elapsedNanos = elapsedNanos;
    this.stopReason = stopReason;
  }

  /**
   * The elapsed time as a person reads it, in the one duration format ({@code 38ms}, {@code 1.786s},
   * {@code 2m}): to the millisecond, or to the microsecond below one millisecond; not {@code PT0.038352162S}.
   */
  static String readable(long elapsedNanos) {
    return dev.backoff.spec.Durations.formatTruncated(elapsedNanos);
  }

  /**
   * The history attached to {@code failure} by Backoff, or null if it has none. When several are attached
   * (a retrying call inside another), the last one: that of the outermost call, which gave up last. An
   * exception instance thrown again by many calls carries at most 8 histories, so past that this is an
   * earlier call's: throw fresh exceptions (or ones with suppression disabled) from retried code.
   */
  public static RetryHistory of(Throwable failure) {
    if (failure == null) {
      return null;
    }
    Throwable[] suppressed = failure.getSuppressed();
    for (int i = suppressed.length - 1; i >= 0; i--) {
      if (suppressed[i] instanceof RetryHistory history) {
        return history;
      }
    }
    return null;
  }

  /** The name of the policy that gave up. */
  public String policyName() {
    return policyName;
  }

  /** How many attempts were made. */
  public int attempts() {
    return attempts;
  }

  /** Time from the call's start to the last attempt's end. */
  public Duration elapsed() {
    return Duration.ofNanos(Math.max(0, elapsedNanos));
  }

  /** Why retrying stopped. */
  public StopReason stopReason() {
    return stopReason;
  }
}
