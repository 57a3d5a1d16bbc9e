package dev.backoff.driver;

/**
 * A synchronous loop's attempt hook: runs one attempt on the calling thread and returns its result or
 * throws its failure.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface SyncAttempt<T> {
  /**
   * Runs one attempt.
   *
   * @throws Exception the attempt's failure, judged by the loop's {@link OutcomeJudge}
   */
  T run(AttemptContext context) throws Exception;

  /**
   * Releases a result the loop will not return: one it retries after, or one whose judging threw. Called
   * on the calling thread before the loop sleeps. Default: nothing. The HTTP driver frees the response's
   * connection here.
   */
  default void discard(T result) {}
}
