package dev.backoff;

/**
 * A monotonic time source in nanoseconds, the seam through which every driver reads time.
 *
 * <p>Like {@link System#nanoTime()}, values are only meaningful as differences and may wrap past
 * {@link Long#MAX_VALUE}; Backoff always subtracts ({@code now - start}) and never compares raw readings.
 * Implementations must be thread-safe when a policy is shared across threads.
 */
@FunctionalInterface
public interface Clock {
  /** Returns the current reading in nanoseconds. */
  long nanoTime();

  /** The system's monotonic clock, {@link System#nanoTime()}. Thread-safe. */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}

enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
