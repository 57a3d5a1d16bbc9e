package dev.backoff.driver;

import java.util.concurrent.CompletionStage;

/**
 * An asynchronous loop's attempt hook: starts one attempt and returns the stage it completes. It must not
 * block: retries start it on the scheduler's thread.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface AsyncAttempt<T> {
  /**
   * Starts one attempt. Throwing, or returning null, counts as a failed attempt.
   */
  CompletionStage<T> start(AttemptContext context);

  /**
   * Releases a result the loop will not complete the call with: one it retries after, one whose judging
   * threw, or one that arrived after the call had ended (the caller cancelled or completed the future).
   * Called at most once per result, and never for the result the call completes with. A hedged call holds a
   * retried result while the call may still end with it (no further hedge may start and nothing else is in
   * flight), and discards it only once a later outcome replaces it, the call succeeds with another result,
   * or the caller cancels. Default: nothing. The HTTP driver closes the response's body here so that its
   * connection is freed.
   *
   * @param result the result nobody will read; never null
   */
  default void discard(T result) {}
}
