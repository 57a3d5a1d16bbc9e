package dev.backoff;

/**
 * A call's first attempt was refused by the policy's {@link AdaptiveRateLimiter}: the wait for a token would
 * have exceeded the limiter's maximum wait, or would have ended past the policy's deadline. When the limiter
 * refuses a retry instead, the call stops with {@link StopReason#RATE_LIMITED} (or
 * {@link StopReason#DEADLINE_EXCEEDED}) and the caller gets the last attempt's failure, as with any other
 * stop.
 */
public final class RateLimitedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with this message.
   *
   * @param message what was refused, by which limiter, and why
   */
  public RateLimitedException(String message) {
    super(message);
  }
}
