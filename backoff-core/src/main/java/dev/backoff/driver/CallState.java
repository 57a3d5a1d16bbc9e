package dev.backoff.driver;

import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;

/**
 * A driver's handle on one call's state in the decision engine, from {@link Engine#firstFailed} (or
 * {@link Engine#newExecution}) to the call's end: what the engine has recorded, to read. Every decision goes
 * through {@link Engine}'s inputs, which take this handle ({@link Engine#outcome}, {@link Engine#record},
 * {@link Engine#timerFired}, {@link Engine#stop}, the hedging inputs); a driver never decides or records
 * anything on it. Only the core implements it: the handle is the engine's own per-call state, so holding
 * it costs nothing more.
 *
 * <p>Not thread-safe: one call's state, handed between threads only with a happens-before edge.
 *
 * @param <R> the call's result type
 */
public interface CallState<R> {
  /** Attempts recorded so far (a hedged call's: those it started). */
  int attempts();

  /** Retries scheduled so far (a hedged call's: hedges started). */
  int retries();

  /** The time from the call's start to the last recorded outcome, in nanoseconds of the driver's clock. */
  long elapsedNanos();

  /** The clock reading at which the call started. */
  long startNanos();

  /** Why the call stopped, or null if it has not stopped (or succeeded). */
  StopReason stopReason();

  /** True once the call has succeeded or stopped. */
  boolean isDone();

  /** The last attempt's result (null if it failed). */
  R lastResult();

  /** The last attempt's failure, or null if it returned a result. */
  Throwable lastFailure();

  /**
   * The failure the caller should get when the call stopped: the last failure, with the earlier failures (at
   * most the policy's {@code maxSuppressed}, the most recent) and the call's {@link dev.backoff.RetryHistory}
   * attached as suppressed exceptions, once. Null if the last attempt returned a result instead.
   */
  Throwable finalFailure();

  /** The policy the call follows. */
  RetryPolicy<R> policy();
}
