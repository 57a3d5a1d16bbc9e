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
   * Releases a result the loop will not complete the call with: one it retried after, one whose judging
   * threw, or one that arrived after the call had ended (the caller cancelled or completed the future).
   * Called at most once per result, and never for the result the call completes with. The loop holds a
   * retried result while the call may still end with it: until the retry starts (a retry refused after its
   * wait, by the circuit breaker or the rate limiter, ends the call with that result, as running out of
   * attempts does) or, hedged, until a later outcome replaces it or the call succeeds with another result;
   * and discards it if the caller cancels first. Default: nothing. The HTTP driver closes the response's body
   * here so that its connection is freed.
   *
   * @param result the result nobody will read; never null
   */
  default void discard(T result) {}
}
