package dev.backoff.driver;

import dev.backoff.Sleeper;

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
   * Releases a result the loop will not return: one it retried after, or one whose judging threw. Called
   * at most once per result, on the calling thread. A retried result is held while the loop waits, since
   * the call may still end with it (a retry refused after its wait, by the circuit breaker or the rate
   * limiter, returns it, as running out of attempts does): it is released just before the next attempt, or
   * when the wait is interrupted or cancelled. Default: nothing. The HTTP driver frees the response's
   * connection here.
   */
  default void discard(T result) {}

  /**
   * Waits {@code nanos} nanoseconds before the next attempt, on the calling thread. Default: the policy's
   * sleeper, {@code sleeper.sleep(nanos)}, and go on.
   *
   * <p>A driver whose calls can be cancelled from another thread without an interrupt (OkHttp's
   * {@code Call.cancel()}) overrides it to wake early and return false. The loop then starts no further
   * attempt: it stops the call as {@link dev.backoff.StopReason#CANCELLED} (the listeners are told, a budget
   * gets the unused retry's permission back) and throws a {@link java.util.concurrent.CancellationException}
   * with the last failure, if any, as its cause. An override should wait with {@code sleeper} so that a
   * test's fake sleeper still controls time.
   *
   * @param nanos the wait the engine decided on, in nanoseconds (zero or more)
   * @param sleeper the policy's sleeper
   * @return true to go on with the next attempt, false if the call was cancelled
   * @throws InterruptedException if the thread is interrupted while waiting: the loop stops the call as
   *     {@code INTERRUPTED}, as for the default sleeper
   */
  default boolean waitToRetry(long nanos, Sleeper sleeper) throws InterruptedException {
    sleeper.sleep(nanos);
    return true;
  }
}
