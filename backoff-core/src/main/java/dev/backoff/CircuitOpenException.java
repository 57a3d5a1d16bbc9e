package dev.backoff;

/**
 * A call was refused by an open (or fully occupied half-open) {@link CircuitBreaker} before any attempt
 * ran. When the breaker refuses a retry instead, the call stops with {@link StopReason#CIRCUIT_OPEN} and
 * the caller gets the last attempt's failure, as with any other stop.
 */
public final class CircuitOpenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with this message.
   *
   * @param message what was refused, and by which breaker
   */
  public CircuitOpenException(String message) {
    super(message);
  }
}
