package dev.backoff.driver;

/**
 * What a loop tells an attempt about itself: its number and the time left before the policy's deadline,
 * so that a driver can cut its own per-attempt timeout (the HTTP client does). Read {@link #attempt()}
 * while the attempt hook runs (the loop moves it on for the next attempt); {@link #nanosLeft()} may also be
 * read later, from any thread, while the attempt is in flight (a response's headers arriving).
 *
 * <p>Implementations are the loops' own.
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
