package dev.backoff.plan;

/**
 * One retry of a {@link Schedule}: the sleep before it and the elapsed time at it (the sum of the sleeps up
 * to and including its own; attempt durations ignored). Immutable and thread-safe.
 */
public final class ScheduleRow {
  private final int retry;
  private final Distribution delay;
  private final Distribution elapsed;

  ScheduleRow(int retry, Distribution delay, Distribution elapsed) {
    this.retry = retry;
    this.delay = delay;
    this.elapsed = elapsed;
  }

  /** The retry number, 1 for the first retry (the second attempt). */
  public int retry() {
    return retry;
  }

  /** The sleep before this retry, in seconds. */
  public Distribution delay() {
    return delay;
  }

  /** The elapsed time at this retry, in seconds. */
  public Distribution elapsed() {
    return elapsed;
  }

  @Override
  public String toString() {
    return "retry " + retry + ": delay " + delay + ", elapsed " + elapsed;
  }
}
