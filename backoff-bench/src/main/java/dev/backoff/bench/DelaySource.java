package dev.backoff.bench;

/**
 * One library's delay computation for a call's retries 1 to {@value #RETRIES_PER_CALL}, one delay per
 * {@link #nextDelayNanos()}; after the last retry the next delay starts a new call. Libraries that keep
 * per-call state (a context, an execution) create it at the start of each call, as they would in use, so
 * its cost is spread over the call's delays.
 *
 * <p>All use the same schedule: initial delay 100 ms, multiplier 2, cap 10 s (reached at retry 8).
 * Not thread-safe: each benchmark thread has its own.
 */
public abstract class DelaySource {
  /** Retries per call: enough to reach the cap of the shared schedule. */
  public static final int RETRIES_PER_CALL = 8;

  private int retry = RETRIES_PER_CALL;

  /** The delay, in nanoseconds, before the next retry. */
  public final long nextDelayNanos() {
    if (retry == RETRIES_PER_CALL) {
      retry = 0;
      startCall();
    }
    return delayNanos(++retry);
  }

  /** Starts a new call (creates per-call state, if the library has any). */
  void startCall() {}

  /** The delay before retry {@code retry} (1-based) of the current call, in nanoseconds. */
  abstract long delayNanos(int retry);
}
