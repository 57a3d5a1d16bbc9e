package dev.backoff.driver;

/**
 * What a loop tells an attempt about itself: its number and the time left before the policy's deadline,
 * so that a driver can cut its own per-attempt timeout (the HTTP client does). Valid only during the call
 * of the attempt hook it was given to.
 *
 * <p>Implementations are the loops' own; not thread-safe beyond the attempt's starting thread.
 */
public interface AttemptContext {
  /** {@link #nanosLeft()} when the policy has no deadline. */
  long NO_DEADLINE = Long.MAX_VALUE;

  /** The attempt's number, 1 for the first. */
  int attempt();

  /**
   * Nanoseconds left before the policy's deadline ({@link #NO_DEADLINE} if it has none); zero or negative
   * once it has passed. Reads the loop's clock when the policy has a deadline, so call it only when needed.
   */
  long nanosLeft();
}
