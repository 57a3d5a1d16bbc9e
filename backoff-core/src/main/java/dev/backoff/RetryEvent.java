package dev.backoff;

import java.time.Duration;

/**
 * What listeners are told about one moment of one call. Built only when the policy has listeners.
 * Immutable and thread-safe (the result and failure are the caller's objects).
 *
 * @param <R> the result type
 */
public final class RetryEvent<R> {
  private final String policyName;
  private final int attempts;
  private final long elapsedNanos;
  private final R result;
  private final Throwable failure;
  private final FailureClass failureClass;
  private final long delayNanos;
  private final StopReason stopReason;
  private final long attemptNanos;
  private final Object call;

  RetryEvent(String policyName, int attempts, long elapsedNanos, R result, Throwable failure,
      FailureClass failureClass, long delayNanos, StopReason stopReason) {
    this(policyName, attempts, elapsedNanos, result, failure, failureClass, delayNanos, stopReason, 0, null);
  }

  RetryEvent(String policyName, int attempts, long elapsedNanos, R result, Throwable failure,
      FailureClass failureClass, long delayNanos, StopReason stopReason, long attemptNanos, Object call) {
    this.attemptNanos = attemptNanos;
    this.call = call;
    this.policyName = policyName;
    this.attempts = attempts;
    this.elapsedNanos = elapsedNanos;
    this.result = result;
    this.failure = failure;
    this.failureClass = failureClass;
    this.delayNanos = delayNanos;
    this.stopReason = stopReason;
  }

  /** The policy's name (for metrics tags and logs). */
  public String policyName() {
    return policyName;
  }

  /** Attempts made so far in this call, including the one this event is about. */
  public int attempts() {
    return attempts;
  }

  /** Time since the call started (see {@link RetryPolicy} for when that is measured from). */
  public Duration elapsed() {
    return Duration.ofNanos(elapsedNanos);
  }

  /** {@link #elapsed()} in nanoseconds. */
  public long elapsedNanos() {
    return elapsedNanos;
  }

  /** The last attempt's result, or null if it failed (or returned null). */
  public R result() {
    return result;
  }

  /** The last attempt's failure, or null if it returned a result. */
  public Throwable failure() {
    return failure;
  }

  /** The class of the last failure, or null after a success. */
  public FailureClass failureClass() {
    return failureClass;
  }

  /** For a scheduled retry, the delay before it; otherwise zero. */
  public Duration delay() {
    return Duration.ofNanos(Math.max(0, delayNanos));
  }

  /** {@link #delay()} in nanoseconds. */
  public long delayNanos() {
    return Math.max(0, delayNanos);
  }

  /** For exhausted and aborted events, why the call stopped; otherwise null. */
  public StopReason stopReason() {
    return stopReason;
  }

  /**
   * For an attempt-finished event, how long the attempt took (from just before it started to when its
   * outcome arrived); otherwise zero.
   */
  public Duration attemptDuration() {
    return Duration.ofNanos(Math.max(0, attemptNanos));
  }

  /** {@link #attemptDuration()} in nanoseconds. */
  public long attemptDurationNanos() {
    return Math.max(0, attemptNanos);
  }

  /**
   * The call this event is about, as an opaque object: the same instance in every event of one call and
   * a different one for every call, so a listener can keep per-call state (a tracing span) keyed by it,
   * compared by identity. Null unless the policy has a listener of attempt events (one overriding
   * {@link RetryListener#onAttemptStarted} or {@link RetryListener#onAttemptFinished}): only such policies
   * pay for it. Every call that starts an attempt ends with exactly one of {@code onSuccess},
   * {@code onExhausted} or {@code onAborted}, after which the object is not seen again.
   */
  public Object call() {
    return call;
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    text.append(policyName).append(": attempt ").append(attempts).append(" after ").append(elapsed());
    if (failure != null) {
      text.append(", failed with ").append(failure);
    }
    if (stopReason != null) {
      text.append(", stopped: ").append(stopReason.description());
    } else if (delayNanos > 0) {
      text.append(", retrying in ").append(delay());
    }
    return text.toString();
  }
}
