package dev.backoff.sim;

/**
 * The headline numbers of one policy's run. A number that does not exist for the run (a baseline with no
 * time before the fault, a latency percentile with no successes, a ratio with no requests) is NaN, never a
 * made-up 0; the table prints it as {@code -}, JSON as {@code null}, CSV as an empty field. Immutable and
 * thread-safe.
 *
 * @param verdict whether the server came back after the disturbance, or why that cannot be judged (see
 *     {@link Recovery}); never null
 * @param baselineGoodput mean successes per second in the second half of the time before the first fault
 *     (or load disturbance); for a run without one, over its second half; NaN if the disturbance starts at 0 s
 * @param recoverySeconds seconds from the end of the disturbance to the recovery point, for
 *     {@link Recovery#RECOVERED} and {@link Recovery#LATE}; otherwise null. The recovery point is the first
 *     second from which goodput, averaged over every window of {@code recovery-window} seconds (longer at low
 *     rates), stays at 90% of baseline or more and server latency within twice its baseline, with at least one
 *     full window of evidence before the end of the run
 * @param peakConcurrency the most requests the server held at once
 * @param amplification attempts per logical request; NaN if no request started
 * @param successRatio logical requests that succeeded per logical request started; NaN if none started
 * @param goodputAfterFault mean successes per second from the end of the disturbance to the end of the run;
 *     NaN if the run has no disturbance or ends with it
 * @param p99SuccessLatencySeconds 99th percentile latency of the logical requests that succeeded (first
 *     attempt to success, retries and waits included), over the whole run; requests that failed or never
 *     finished are not in it; NaN if none succeeded
 * @param logicalRequests logical requests started
 * @param attempts attempts sent
 */
public record Summary(Recovery verdict, double baselineGoodput, Integer recoverySeconds, int peakConcurrency,
    double amplification, double successRatio, double goodputAfterFault, double p99SuccessLatencySeconds,
    long logicalRequests, long attempts) {

  /**
   * Checks the verdict's consistency with the numbers.
   *
   * @throws NullPointerException if {@code verdict} is null
   * @throws IllegalArgumentException if {@code recoverySeconds} is set for a verdict other than recovered or
   *     late, or missing for one of those
   */
  public Summary {
    java.util.Objects.requireNonNull(verdict, "verdict");
    if (verdict.cameBack() != (recoverySeconds != null)) {
      throw new IllegalArgumentException("recoverySeconds must be set exactly for a recovered or late verdict, was "
          + recoverySeconds + " for " + verdict);
    }
  }

  /** True only for {@link Recovery#RECOVERED}: then the baseline is positive and goodput after the fault is at least 90% of it. */
  public boolean recovered() {
    return verdict == Recovery.RECOVERED;
  }

  static Summary of(Scenario scenario, Metrics m, long logicalRequests, long successes, long attempts) {
    int seconds = m.seconds;
    long disturbanceStart = scenario.disturbanceStartNanos();
    long disturbanceEnd = scenario.disturbanceEndNanos();
    int peak = 0;
    for (int p : m.peakConcurrency) {
      peak = Math.max(peak, p);
    }
    double amplification = logicalRequests == 0 ? Double.NaN : (double) attempts / logicalRequests;
    double successRatio = logicalRequests == 0 ? Double.NaN : (double) successes / logicalRequests;
    double p99 = m.runHistogram.count() == 0 ? Double.NaN : m.runHistogram.percentile(0.99) / 1e9;
    if (disturbanceStart == Long.MAX_VALUE) {
      double baseline = mean(m.successes, seconds / 2, seconds);
      return new Summary(Recovery.NO_FAULT, baseline, null, peak, amplification, successRatio, Double.NaN, p99,
          logicalRequests, attempts);
    }
    int faultStart = (int) (disturbanceStart / 1_000_000_000L);
    int faultEnd = (int) ((disturbanceEnd + 999_999_999L) / 1_000_000_000L);
    double baseline = mean(m.successes, faultStart / 2, faultStart);
    double after = mean(m.successes, faultEnd, seconds);
    Recovery verdict;
    Integer recoverySeconds = null;
    int window = (int) (scenario.recoveryWindowNanos / 1_000_000_000L);
    if (Double.isNaN(baseline) || sum(m.attempts, faultStart / 2, faultStart) == 0) {
      verdict = Recovery.NO_BASELINE;
    } else if (!(baseline > 0)) {
      verdict = Recovery.DOWN_BEFORE_FAULT;
    } else if ((long) seconds - faultEnd < effectiveWindow(window, baseline)) {
      verdict = Recovery.NOT_OBSERVED;
    } else {
      double baselineLatency = mean(m.latencyNanos, faultStart / 2, faultStart);
      int recoveredAt = recoveryPoint(m, faultEnd, window, baseline, baselineLatency);
      if (recoveredAt < 0) {
        verdict = Recovery.NOT_RECOVERED;
      } else {
        verdict = after >= 0.9 * baseline ? Recovery.RECOVERED : Recovery.LATE;
        recoverySeconds = recoveredAt - faultEnd;
      }
    }
    return new Summary(verdict, baseline, recoverySeconds, peak, amplification, successRatio, after, p99,
        logicalRequests, attempts);
  }

  /**
   * The recovery point: the first second {@code s} at or after the disturbance from which (1) the goodput
   * averaged over every window of {@code W} seconds starting at or after {@code s} is at least 90% of
   * baseline, (2) the server latency stays within twice its baseline, and (3) second {@code s} itself has at
   * least three quarters of the baseline goodput (so a window cannot start inside the outage or a relapse
   * and pass on the strength of the seconds that follow it). {@code W} is the configured window, lengthened to {@code 1600 / baseline}
   * seconds when the baseline is low, so that 10% of the expected count is four Poisson standard deviations
   * and a healthy run's counting noise almost never reads as a relapse. Returns -1 if there is none.
   */
  static int recoveryPoint(Metrics m, int from, int window, double baseline, double baselineLatency) {
    int seconds = m.seconds;
    int w = effectiveWindow(window, baseline);
    int lastBad = from - 1;
    for (int t = seconds - 1; t >= from; t--) {
      if (m.latencyNanos[t] > 2 * baselineLatency) {
        lastBad = t;
        break;
      }
    }
    long sum = 0;
    for (int t = seconds - 1; t >= Math.max(from, seconds - w); t--) {
      sum += m.successes[t];
    }
    // Windows [t, t + w) from the last one backwards; the first failing one (from the end) bounds s.
    for (int t = seconds - w; t >= from && t > lastBad; t--) {
      if (t < seconds - w) {
        sum += m.successes[t] - m.successes[t + w];
      }
      if (sum < 0.9 * baseline * w) {
        lastBad = t;
        break;
      }
    }
    for (int s = lastBad + 1; s <= seconds - w; s++) {
      if (m.successes[s] >= 0.75 * baseline) {
        return s;
      }
    }
    return -1;
  }

  static int effectiveWindow(int window, double baseline) {
    if (!(baseline > 0)) {
      return window;
    }
    return (int) Math.max(window, Math.ceil(1600 / baseline));
  }

  private static long sum(long[] values, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += values[i];
    }
    return sum;
  }

  private static double mean(long[] values, int from, int to) {
    if (to <= from) {
      return Double.NaN;
    }
    double sum = 0;
    for (int i = from; i < to; i++) {
      sum += values[i];
    }
    return sum / (to - from);
  }
}
