package dev.backoff;

/** Why the decision engine stopped retrying a call that had not succeeded. */
public enum StopReason {
  /** The failure is not one the policy retries (by default: errors, and exceptions outside the retry rules). */
  NOT_RETRYABLE(false, "not retryable"),
  /** The failure matched one of the policy's abort rules. */
  ABORTED(false, "aborted by rule"),
  /** The server said not to retry (an explicit pushback). */
  PUSHBACK(false, "server said not to retry"),
  /** The server asked for a wait longer than the policy's maximum pushback. */
  PUSHBACK_TOO_LONG(true, "server asked to wait longer than allowed"),
  /** The maximum number of attempts was made. */
  ATTEMPTS_EXHAUSTED(true, "attempts exhausted"),
  /** The next sleep would end past the policy's maximum elapsed time. */
  DEADLINE_EXCEEDED(true, "deadline exceeded"),
  /** The retry budget refused the retry. */
  BUDGET_EXHAUSTED(true, "retry budget exhausted"),
  /**
   * The policy's {@link CircuitBreaker} refused the retry: it was open (and would still be open when the
   * retry was due) or half-open with every trial call taken. No sleep precedes this stop.
   */
  CIRCUIT_OPEN(true, "circuit breaker open"),
  /**
   * The policy's {@link AdaptiveRateLimiter} refused the attempt: its wait for a token would have exceeded
   * the limiter's maximum wait (zero when it fails fast).
   */
  RATE_LIMITED(true, "rate limiter refused"),
  /**
   * The policy's {@link ConcurrencyLimiter} refused the attempt: its limit on attempts in flight was reached
   * (for a retry, the share of it that retries may fill).
   */
  CONCURRENCY_LIMITED(true, "concurrency limit reached"),
  /** The calling thread was interrupted. */
  INTERRUPTED(false, "interrupted"),
  /** The caller cancelled the call (async). */
  CANCELLED(false, "cancelled");

  private final boolean exhaustion;
  private final String description;

  StopReason(boolean exhaustion, String description) {
    this.exhaustion = exhaustion;
    this.description = description;
  }

  /**
   * True when the call stopped because it ran out of retries (attempts, time, budget), which listeners see
   * as "exhausted"; false when it was cut short ("aborted").
   */
  public boolean isExhaustion() {
    return exhaustion;
  }

  /** A short human description, such as "attempts exhausted". */
  public String description() {
    return description;
  }
}
