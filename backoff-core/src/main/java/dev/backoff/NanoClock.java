package dev.backoff;

/**
 * A monotonic time source in nanoseconds, the seam through which every driver reads time.
 *
 * <p>Like {@link System#nanoTime()}, values are only meaningful as differences and may wrap past
 * {@link Long#MAX_VALUE}; Backoff always subtracts ({@code now - start}) and never compares raw readings.
 * Implementations must be thread-safe when a policy is shared across threads.
 */
@FunctionalInterface
public interface NanoClock {
  /** Returns the current reading in nanoseconds. */
  long nanoTime();

  /** The system's monotonic clock, {@link System#nanoTime()}. Thread-safe. */
  static NanoClock system() {
    return SystemNanoClock.INSTANCE;
  }
}

enum SystemNanoClock implements NanoClock {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
