package dev.backoff;

import java.util.concurrent.TimeUnit;

/**
 * Blocks the calling thread for a backoff delay: the seam that tests replace with a recording sleeper.
 *
 * <p>Implementations must honour interruption by throwing {@link InterruptedException}, and must be
 * thread-safe when a policy is shared across threads.
 */
@FunctionalInterface
public interface Sleeper {
  /**
   * Sleeps for {@code nanos} nanoseconds (zero or negative: returns at once).
   *
   * @throws InterruptedException if the thread is interrupted before or while sleeping
   */
  void sleep(long nanos) throws InterruptedException;

  /** Sleeps with {@link TimeUnit#sleep}, which works on platform and virtual threads alike. */
  static Sleeper system() {
    return SystemSleeper.INSTANCE;
  }
}

enum SystemSleeper implements Sleeper {
  INSTANCE;

  @Override
  public void sleep(long nanos) throws InterruptedException {
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } else if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before a zero-length backoff");
    }
  }
}
