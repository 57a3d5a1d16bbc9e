package dev.backoff;

/**
 * A call's first attempt was refused by the policy's {@link ConcurrencyLimiter}: as many attempts as its
 * limit allows were already in flight. When the limiter refuses a retry instead, the call stops with
 * {@link StopReason#CONCURRENCY_LIMITED} and the caller gets the last attempt's failure (or result), as with
 * any other stop.
 */
public final class ConcurrencyLimitedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with this message.
   *
   * @param message what was refused, by which limiter, and why
   */
  public ConcurrencyLimitedException(String message) {
    super(message);
  }
}
