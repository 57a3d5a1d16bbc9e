package dev.backoff.conformance;

import dev.backoff.StopReason;

/**
 * Runs one {@link Trial} of the {@link ConformanceTable} through one driver. A runner is all a new driver
 * needs to join the table (see the table's documentation).
 */
public interface DriverRunner {
  /** The driver's name, shown in test names. */
  String name();

  /**
   * The stop reason listeners hear when the caller stops a call mid-backoff: {@link StopReason#CANCELLED}
   * for drivers whose calls are cancelled (futures, subscriptions, coroutines), {@link StopReason#INTERRUPTED}
   * for the blocking executor, whose caller interrupts its thread.
   */
  default StopReason callerStop() {
    return StopReason.CANCELLED;
  }

  /**
   * Whether the driver applies the policy's result rules: false for drivers of streams (a Flux, a Flow),
   * which have no single result to judge; they skip the rows that need them.
   */
  default boolean judgesResults() {
    return true;
  }

  /**
   * Runs the trial's call to its end: builds the policy with {@link Trial#policy} on the driver's (virtual)
   * clock, makes each attempt call {@link Trial#attempt()}, waits in the driver's virtual time, and, when
   * {@link Trial#cancelAfter()} is set, stops the call as its caller would at that time, then lets an hour
   * more pass so that a retry the driver failed to cancel would show.
   *
   * @return the call's result or failure (neither when the caller stopped it and the driver reports nothing)
   */
  Outcome run(Trial trial) throws Exception;

  /** What the caller saw. */
  record Outcome(String result, Throwable failure) {
    /** A result. */
    public static Outcome of(String result) {
      return new Outcome(result, null);
    }

    /** A failure. */
    public static Outcome failed(Throwable failure) {
      return new Outcome(null, failure);
    }
  }
}
