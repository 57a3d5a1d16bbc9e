package dev.backoff.sim;

/**
 * The verdict of one policy's run: did the server come back after the disturbance (the faults, or an
 * open-loop client's step, spike or ramp), and if that cannot be judged, why not. Only {@link #RECOVERED}
 * counts as recovered; every other verdict says what the numbers do and do not show. {@link RecoveryRule}
 * gives the verdict, for the simulator and the lab alike. Immutable and thread-safe.
 */
public enum RecoveryVerdict {
  /**
   * Goodput came back to at least 90% of a positive baseline and stayed there, the server latency came back
   * within twice its baseline, and goodput from the end of the disturbance to the end of the run averaged at
   * least 90% of baseline.
   */
  RECOVERED("yes", "recovered"),
  /**
   * It came back as for {@link #RECOVERED}, but so long after the disturbance that goodput from its end to
   * the end of the run averaged less than 90% of baseline.
   */
  LATE("late", "late"),
  /** It did not come back (for at least one full recovery window before the end of the run). */
  NOT_RECOVERED("NO", "not-recovered"),
  /**
   * Goodput did not come back, but not for want of a server: in the run's last recovery window the server
   * answered at least 90% of the attempts sent to it (within twice its baseline latency, where known), and
   * those attempts averaged less than 90% of the baseline goodput. The load offered to the server stayed
   * below baseline, as when closed-loop clients are still in long backoffs after a long fault; the reason gives
   * the numbers.
   */
  CLIENTS_BACKING_OFF("clients backing off", "clients-backing-off"),
  /**
   * The run ends less than one recovery window after the disturbance: too soon to tell whether it came
   * back. Lengthen the run or move the fault earlier.
   */
  NOT_OBSERVED("not observed", "not-observed"),
  /**
   * Requests were sent in the baseline window before the disturbance but none succeeded: the server was
   * already down (or overloaded, or every attempt timed out), so there is nothing to recover to.
   */
  DOWN_BEFORE_FAULT("down before the fault", "down-before-fault"),
  /**
   * Requests succeeded before the disturbance, but fewer than 90% of those offered did (or more attempts
   * failed than succeeded): the server was already overloaded or failing, so its goodput then was what it
   * could serve, not the load, and coming back to it would show nothing.
   */
  OVERLOADED_BEFORE_FAULT("overloaded before the fault", "overloaded-before-fault"),
  /**
   * The baseline window (the second half of the time before the disturbance) is shorter than
   * {@value RecoveryRule#MIN_BASELINE_SECONDS} s: too short to measure what the server serves when healthy.
   * Move the fault later.
   */
  SHORT_BASELINE("baseline too short", "short-baseline"),
  /**
   * The offered load after the disturbance is not the load before it (an open-loop step or ramp): there is no
   * baseline to come back to. The reason says what share of the new load was served.
   */
  LOAD_CHANGED("load changed", "load-changed"),
  /**
   * There is no baseline to judge against: the disturbance starts at 0 s, or no request at all was sent in
   * the baseline window (no load to measure, as with an open-loop rate of 0).
   */
  NO_BASELINE("no baseline", "no-baseline"),
  /** The scenario has no fault and no load disturbance: there is nothing to recover from. */
  NO_FAULT("no fault", "no-fault");

  private final String label;
  private final String id;

  RecoveryVerdict(String label, String id) {
    this.label = label;
    this.id = id;
  }

  /** The verdict as the summary table prints it ({@code yes}, {@code NO}, {@code down before the fault}, ...). */
  public String label() {
    return label;
  }

  /** The verdict in JSON and CSV: lower case, words joined by hyphens ({@code down-before-fault}). */
  public String id() {
    return id;
  }

  /**
   * True for {@link #RECOVERED} and {@link #LATE}: the server came back within the run, whatever it took.
   * The tipping-point search looks for the shortest fault after which this is false.
   */
  public boolean cameBack() {
    return this == RECOVERED || this == LATE;
  }
}
