package dev.backoff.plan;

import java.util.Objects;

/**
 * One retry of a {@link Schedule}: the sleep before it and the elapsed time at it (the sum of the sleeps up
 * to and including its own; attempt durations ignored). Immutable and thread-safe.
 *
 * @param retry the retry number, 1 for the first retry (the second attempt)
 * @param delay the sleep before this retry, in seconds
 * @param elapsed the elapsed time at this retry, in seconds
 */
public record ScheduleRow(int retry, Distribution delay, Distribution elapsed) {
  /** @throws NullPointerException if {@code delay} or {@code elapsed} is null */
  public ScheduleRow {
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(elapsed, "elapsed");
  }

  @Override
  public String toString() {
    return "retry " + retry + ": delay " + delay + ", elapsed " + elapsed;
  }
}
