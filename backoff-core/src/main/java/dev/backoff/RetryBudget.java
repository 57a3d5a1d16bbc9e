package dev.backoff;

/**
 * A retry budget shared by many calls and threads: it refuses retries once a client has retried too much,
 * which keeps a fleet of clients from multiplying the load on a failing server (a retry storm).
 *
 * <p>The decision engine calls these methods; implementations must be thread-safe and should be lock-free.
 * A budget never goes negative nor above its capacity.
 */
public interface RetryBudget {

  /** Called once for every logical call, when its first attempt ends. */
  void onCall();

  /**
   * Called for every failed attempt that the policy's rules consider retryable, with its class, whether or
   * not a retry follows (attempt limits, the deadline or this budget may still stop the call). Failures the
   * rules refuse (not retryable, aborted, interrupted, cancelled) are not reported.
   */
  void onFailure(FailureClass failureClass);

  /**
   * Asks for permission to retry after a failure of this class, withdrawing its cost on success.
   *
   * @return true if the retry may go ahead; false refuses it and stops the call
   */
  boolean tryAcquire(FailureClass failureClass);

  /**
   * Gives back a permission {@link #tryAcquire} granted for a retry that then did not go ahead: the call was
   * interrupted while waiting, cancelled, or its scheduler refused the retry. The budget is charged only for
   * retries that actually start. The default does nothing, for budgets whose {@code tryAcquire} withdraws
   * nothing; a budget that withdraws must put back what it took (never above its capacity).
   */
  default void release(FailureClass failureClass) {}

  /**
   * Called when a call succeeds.
   *
   * @param retries how many retries the call made (0: it succeeded on the first attempt)
   * @param lastRetryClass the class of the failure before the last retry, or null if there was none
   */
  void onSuccess(int retries, FailureClass lastRetryClass);

  /** The current level (tokens or retries available) for metrics. */
  double level();
}
