package dev.backoff.bench;

import java.util.concurrent.Callable;

/**
 * A task that fails on its first two attempts and succeeds on the third, counting its attempts. The two
 * failures are distinct, preallocated exceptions without stack traces or suppression, so the benchmarks
 * measure the retry machinery rather than {@code fillInStackTrace}; they are distinct so that no library
 * gets to skip remembering an earlier failure because it is the same object.
 *
 * <p>Not thread-safe: each benchmark thread has its own.
 */
public final class FailingTwice implements Callable<String> {
  static final String RESULT = "ok";
  private static final Exception FIRST = new AttemptFailure("first attempt failed");
  private static final Exception SECOND = new AttemptFailure("second attempt failed");

  private int attempts;

  /** Starts a new call: the next attempt is the first. */
  public void reset() {
    attempts = 0;
  }

  /** Attempts made since the last {@link #reset()}. */
  public int attempts() {
    return attempts;
  }

  @Override
  public String call() throws Exception {
    int attempt = ++attempts;
    if (attempt == 1) {
      throw FIRST;
    }
    if (attempt == 2) {
      throw SECOND;
    }
    return RESULT;
  }

  /** A cheap, reusable failure (no stack trace, no suppressed exceptions). */
  static final class AttemptFailure extends Exception {
    AttemptFailure(String message) {
      super(message, null, false, false);
    }
  }
}
