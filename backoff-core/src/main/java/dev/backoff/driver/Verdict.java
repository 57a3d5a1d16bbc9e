package dev.backoff.driver;

import dev.backoff.Pushback;
import dev.backoff.StopReason;

/**
 * An {@link OutcomeJudge}'s word on one attempt's outcome, which the loop hands to the decision engine:
 * {@linkplain #ACCEPT accept} the result, let the engine decide on a {@linkplain #RETRYABLE retryable}
 * outcome (with or without the driver's own pushback hint), or {@linkplain #stop stop} for a reason only
 * the driver knows. Immutable and thread-safe; every verdict but one carrying a pushback delay is a shared
 * constant.
 */
public final class Verdict {
  private static final Verdict[] STOPS = new Verdict[StopReason.values().length];

  /** The result is accepted: the call succeeds with it. Never for a failure. */
  public static final Verdict ACCEPT = new Verdict(Kind.ACCEPT, Pushback.NONE, null);

  /**
   * The engine decides by the policy's rules: a failure goes through its retry and abort rules and failure
   * classifier; a result is retried as the policy retries results (result classifier). Either way the
   * policy's pushback extractor, if any, supplies the hint.
   */
  public static final Verdict RETRYABLE = new Verdict(Kind.POLICY_HINT, Pushback.NONE, null);

  private static final Verdict RETRYABLE_NO_HINT = new Verdict(Kind.DRIVER_HINT, Pushback.NONE, null);
  private static final Verdict RETRYABLE_STOP_HINT = new Verdict(Kind.DRIVER_HINT, Pushback.STOP, null);

  static {
    for (StopReason reason : StopReason.values()) {
      STOPS[reason.ordinal()] = new Verdict(Kind.STOP, Pushback.NONE, reason);
    }
  }

  enum Kind { ACCEPT, POLICY_HINT, DRIVER_HINT, STOP }

  private final Kind kind;
  private final long pushbackHintNanos;
  private final StopReason stopReason;

  private Verdict(Kind kind, long pushbackHintNanos, StopReason stopReason) {
    this.kind = kind;
    this.pushbackHintNanos = pushbackHintNanos;
    this.stopReason = stopReason;
  }

  /**
   * As {@link #RETRYABLE}, with the driver's own pushback hint instead of the policy's extractor (a
   * {@code Retry-After} header, a simulated server's hint): {@link Pushback#NONE} for no hint,
   * {@link Pushback#STOP} for "do not retry", or a delay of at least zero nanoseconds
   * ({@link Pushback#after}). The wait is then {@code max(hint, backoff)}.
   *
   * @throws IllegalArgumentException if the hint is negative but neither {@code NONE} nor {@code STOP}
   */
  public static Verdict retryable(long pushbackHintNanos) {
    if (pushbackHintNanos == Pushback.NONE) {
      return RETRYABLE_NO_HINT;
    }
    if (pushbackHintNanos == Pushback.STOP) {
      return RETRYABLE_STOP_HINT;
    }
    if (pushbackHintNanos < 0) {
      throw new IllegalArgumentException("pushbackHintNanos must be Pushback.NONE, Pushback.STOP or at least 0, was "
          + pushbackHintNanos);
    }
    return new Verdict(Kind.DRIVER_HINT, pushbackHintNanos, null);
  }

  /**
   * Records the outcome and stops the call for a reason only the driver knows (a request that must not be
   * repeated, an interrupted caller). The budget is not charged for it.
   *
   * @throws NullPointerException if {@code reason} is null
   */
  public static Verdict stop(StopReason reason) {
    if (reason == null) {
      throw new NullPointerException("reason must not be null");
    }
    return STOPS[reason.ordinal()];
  }

  /** True for {@link #ACCEPT}. */
  public boolean isAccept() {
    return kind == Kind.ACCEPT;
  }

  /** True when the policy's pushback extractor supplies the hint ({@link #RETRYABLE}). */
  public boolean usesPolicyPushback() {
    return kind == Kind.POLICY_HINT;
  }

  /** The driver's pushback hint ({@link Pushback#NONE} unless given to {@link #retryable(long)}). */
  public long pushbackHintNanos() {
    return pushbackHintNanos;
  }

  /** The driver's stop reason, or null unless this is a {@link #stop} verdict. */
  public StopReason stopReason() {
    return stopReason;
  }

  @Override
  public String toString() {
    return switch (kind) {
      case ACCEPT -> "accept";
      case POLICY_HINT -> "retryable";
      case DRIVER_HINT -> pushbackHintNanos == Pushback.NONE ? "retryable (no hint)"
          : pushbackHintNanos == Pushback.STOP ? "retryable (server said stop)"
          : "retryable (pushback " + pushbackHintNanos + " ns)";
      default -> "stop: " + stopReason.description();
    };
  }
}
