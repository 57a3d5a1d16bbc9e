package dev.backoff.testing;

import dev.backoff.NanoClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fake {@link NanoClock}: it moves only when told to. Thread-safe. It may start anywhere, including just below
 * {@link Long#MAX_VALUE}, to check that code under test only ever subtracts readings (as it must with
 * {@link System#nanoTime()}, which may wrap).
 */
public final class FakeClock implements NanoClock {
  private final AtomicLong nanos;

  /** A clock reading zero. */
  public FakeClock() {
    this(0);
  }

  /** A clock reading {@code startNanos}. */
  public FakeClock(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  /**
   * Moves the clock forward (wrapping past {@link Long#MAX_VALUE} as {@link System#nanoTime()} may).
   *
   * @throws IllegalArgumentException if {@code nanos} is negative
   */
  public void advanceNanos(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("a clock cannot go back: advance must not be negative, was " + nanos);
    }
    this.nanos.addAndGet(nanos);
  }

  /**
   * Moves the clock forward by {@code duration}.
   *
   * @throws IllegalArgumentException if {@code duration} is negative or longer than {@link Long#MAX_VALUE}
   *     nanoseconds (about 292 years)
   */
  public void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a clock cannot go back: advance must not be negative, was " + duration);
    }
    if (duration.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("advance must be at most " + Duration.ofNanos(Long.MAX_VALUE)
          + " (Long.MAX_VALUE ns), was " + duration);
    }
    advanceNanos(duration.toNanos());
  }

  @Override
  public String toString() {
    return "FakeClock[" + nanos.get() + " ns]";
  }
}
