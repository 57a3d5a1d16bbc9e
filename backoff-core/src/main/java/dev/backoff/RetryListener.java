package dev.backoff;

/**
 * Hears about the retries of calls made under a policy. Every method has an empty default, so a listener
 * overrides what it needs. Listeners run on the thread that made the attempt; they must be quick and
 * thread-safe. Anything a listener throws, {@code Error}s such as {@code AssertionError} included, is
 * ignored: it never changes the call's outcome, never reaches the executor's caller nor a {@code cancel} on
 * an asynchronous call's future, and the other listeners still hear the event. The first such failure in
 * the JVM is logged at WARNING (logger {@code dev.backoff.RetryListener}), later ones at DEBUG. Only a
 * {@link VirtualMachineError} ({@code OutOfMemoryError}, {@code StackOverflowError}) propagates, as the
 * JVM's state is then in doubt.
 *
 * @param <R> the result type
 */
public interface RetryListener<R> {

  /**
   * An attempt is about to start. {@link RetryEvent#attempts()} is its number (1 for the first) and
   * {@link RetryEvent#elapsed()} the time since the call started; it carries no result, failure or delay.
   * Runs on the thread that starts the attempt, just before it starts.
   *
   * <p>The loops build attempt events (and read the clock for them) only for listeners that override this
   * method or {@link #onAttemptFinished}, so listeners that do not cost nothing per attempt.
   */
  default void onAttemptStarted(RetryEvent<R> event) {}

  /**
   * An attempt ended, before the policy judged it: {@link RetryEvent#result()} or {@link RetryEvent#failure()}
   * is its outcome (a {@link java.util.concurrent.TimeoutException} if it outlived the policy's attempt
   * timeout), {@link RetryEvent#attemptDuration()} how long it took, {@link RetryEvent#elapsed()} the time
   * since the call started. {@link RetryEvent#failureClass()} and {@link RetryEvent#stopReason()} are null:
   * the decision that follows is the next event ({@code onRetryScheduled}, {@code onSuccess},
   * {@code onExhausted} or {@code onAborted}). Runs on the thread that completed the attempt.
   */
  default void onAttemptFinished(RetryEvent<R> event) {}

  /** A retry was scheduled after a failed attempt; {@link RetryEvent#delay()} is the wait before it. */
  default void onRetryScheduled(RetryEvent<R> event) {}

  /**
   * A hedged call (see {@link Hedging}) started another attempt alongside those in flight.
   * {@link RetryEvent#attempts()} is the new attempt's number (2 for the first hedge), {@link RetryEvent#elapsed()}
   * the time since the call started, and {@link RetryEvent#failure()} the failure that triggered it at once, or
   * null when the hedging delay passed without an answer. Runs on the thread that starts the hedge, just before
   * it starts.
   */
  default void onHedgeSent(RetryEvent<R> event) {}

  /**
   * A hedge's result won a hedged call: {@link RetryEvent#attempts()} is the winning attempt's number (2 or
   * more), {@link RetryEvent#result()} its result. Sent just before {@link #onSuccess}; not sent when the
   * original attempt won.
   */
  default void onHedgeWon(RetryEvent<R> event) {}

  /** The call succeeded, after {@link RetryEvent#attempts()} attempts. */
  default void onSuccess(RetryEvent<R> event) {}

  /** The call ran out of retries (attempts, deadline, budget or pushback); the failure goes to the caller. */
  default void onExhausted(RetryEvent<R> event) {}

  /** The call was cut short (not retryable, an abort rule, interruption or cancellation). */
  default void onAborted(RetryEvent<R> event) {}

  /**
   * A listener that logs to a {@link System.Logger}: scheduled retries at DEBUG, exhausted calls at WARNING
   * (as Google Cloud documents it: report the error once retries run out), aborted calls at DEBUG.
   *
   * @throws NullPointerException if {@code logger} is null
   */
  static <R> RetryListener<R> logging(System.Logger logger) {
    Nanos.requireNonNull("logger", logger);
    return new RetryListener<>() {
      @Override
      public void onRetryScheduled(RetryEvent<R> event) {
        logger.log(System.Logger.Level.DEBUG, event::toString);
      }

      @Override
      public void onExhausted(RetryEvent<R> event) {
        logger.log(System.Logger.Level.WARNING, event.toString(), event.failure());
      }

      @Override
      public void onAborted(RetryEvent<R> event) {
        logger.log(System.Logger.Level.DEBUG, event::toString);
      }
    };
  }
}
