package dev.backoff;

/**
 * Supplies the value a call returns when retrying ended without success, instead of the last failure (or
 * last retried result): a fallback. Given to {@link RetryExecutor#call(java.util.concurrent.Callable, Recovery)}
 * or {@link AsyncRetryExecutor#call(java.util.function.Supplier, Recovery)}.
 *
 * <p>It runs once, when the call stopped for any {@link StopReason} but {@link StopReason#INTERRUPTED} and
 * {@link StopReason#CANCELLED} (a caller who interrupted or cancelled the call wants it to stop, not to go
 * on with a fallback): attempts, deadline or budget exhausted, a failure that is not retryable or matched an
 * abort rule, a server's pushback. It runs on the thread that ended the call (the caller's for the
 * synchronous executor; for the asynchronous one, whichever thread completed the last attempt), after the
 * listeners heard that the call stopped. What it returns is the call's result; what it throws is the call's
 * failure (with the last failure attached as suppressed, if it was another exception).
 *
 * @param <T> the call's result type
 */
@FunctionalInterface
public interface Recovery<T> {
  /**
   * Supplies the call's result in place of its last outcome.
   *
   * @param lastResult the last attempt's result, when retries stopped on a result the policy retries; else null
   * @param lastFailure the last attempt's failure (with earlier failures and the history attached as
   *     suppressed exceptions), or null when retries stopped on a result
   * @param history the call's attempts, elapsed time and {@linkplain RetryHistory#stopReason() stop reason};
   *     never null
   * @return the call's result (may be null)
   * @throws Exception to fail the call with this exception instead
   */
  T recover(T lastResult, Throwable lastFailure, RetryHistory history) throws Exception;
}
