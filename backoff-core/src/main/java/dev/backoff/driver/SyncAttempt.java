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
}
