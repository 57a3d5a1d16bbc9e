package dev.backoff.plan;

/**
 * Where a schedule stands at an elapsed time {@code T}: the last retry made by then, the sleep before it,
 * and the sleep after it (the one in progress at {@code T}, unless a retry happens exactly at {@code T}).
 * Times in seconds. Immutable and thread-safe.
 *
 * @param elapsedSeconds the elapsed time asked about
 * @param retry the last retry made by then ({@code T_n <= T}); 0 if none yet
 * @param retryElapsedSeconds the elapsed time {@code T_n} at that retry (0 for retry 0)
 * @param previousDelaySeconds the sleep {@code t_n} before that retry; 0 for retry 0 (the first attempt has
 *     no sleep)
 * @param nextDelaySeconds the sleep {@code t_(n+1)} after that retry, before the next one
 */
public record Position(double elapsedSeconds, long retry, double retryElapsedSeconds, double previousDelaySeconds,
    double nextDelaySeconds) {

  /** The elapsed time {@code T_(n+1)} at the next retry. */
  public double nextRetryElapsedSeconds() {
    return retryElapsedSeconds + nextDelaySeconds;
  }

  @Override
  public String toString() {
    return "at " + elapsedSeconds + " s: retry " + retry + " (at " + retryElapsedSeconds + " s, after "
        + previousDelaySeconds + " s), next sleep " + nextDelaySeconds + " s";
  }
}
