package dev.backoff;

import java.time.Duration;

/**
 * A server's "come back later", as drivers report it to the decision engine: either no hint, an explicit
 * "do not retry", or a minimum delay. Encoded as a {@code long} so the hot path allocates nothing.
 *
 * <p>The engine waits {@code max(hint, backoff)}; a hint above the policy's maximum pushback stops the call
 * ({@link StopReason#PUSHBACK_TOO_LONG}), as does one that would end past the deadline. Any negative value
 * other than {@link #STOP} counts as no hint, so a garbled hint never produces a negative wait.
 */
public final class Pushback {
  /** No hint: use the backoff. */
  public static final long NONE = -1;
  /** The server said not to retry. */
  public static final long STOP = Long.MIN_VALUE;

  private Pushback() {}

  /**
   * A hint to wait at least {@code delay}.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public static long after(Duration delay) {
    return Nanos.nonNegative("pushback delay", delay);
  }

  /** Extracts a pushback hint from an attempt's result or failure; returns {@link #NONE} when there is none. */
  @FunctionalInterface
  public interface Extractor<R> {
    /**
     * Returns the hint in nanoseconds, {@link #NONE} or {@link #STOP}.
     *
     * @param result the attempt's result, or null if it failed
     * @param failure the attempt's failure, or null if it returned a result
     */
    long hintNanos(R result, Throwable failure);
  }
}
