package dev.backoff.sim;

/**
 * The headline numbers of one policy's run, judged by {@link RecoveryRule}. A number that does not exist for the run (a baseline with no
 * time before the fault, a latency percentile with no successes, a ratio with no requests) is NaN, never a
 * made-up 0; the table prints it as {@code -}, JSON as {@code null}, CSV as an empty field. Immutable and
 * thread-safe.
 *
 * @param verdict whether the server came back after the disturbance, or why that cannot be judged (see
 *     {@link RecoveryVerdict}); never null
 * @param baselineGoodput mean successes per second in the second half of the time before the first fault
 *     (or load disturbance); for a run without one, over its second half; NaN if the disturbance starts at 0 s
 * @param recoverySeconds seconds from the end of the disturbance to the recovery point, for
 *     {@link RecoveryVerdict#RECOVERED} and {@link RecoveryVerdict#LATE}; otherwise null. The recovery point is the first
 *     second from which goodput, averaged over every window of {@code recovery-window} seconds (longer at low
 *     rates), stays at 90% of baseline or more and server latency within twice its baseline, with at least one
 *     full window of evidence before the end of the run ({@link RecoveryRule#recoveryPoint})
 * @param peakConcurrency the most requests the server held at once
 * @param amplification attempts per logical request; NaN if no request started
 * @param successRatio logical requests that succeeded per logical request started before the end of the run
 *     (requests still unfinished at the end count as not succeeded, see {@code unfinishedRequests}); NaN if
 *     none started
 * @param goodputAfterFault mean successes per second from the end of the disturbance to the end of the run;
 *     NaN if the run has no disturbance or ends with it
 * @param p99SuccessLatencySeconds 99th percentile latency of the logical requests that succeeded (first
 *     attempt to success, retries and waits included), over the whole run; requests that failed or never
 *     finished are not in it; NaN if none succeeded
 * @param logicalRequests logical requests started
 * @param attempts attempts sent
 * @param unfinishedRequests logical requests started that had neither succeeded nor given up when the run
 *     ended (a closed-loop client stuck retrying holds one): the part of {@code 1 - successRatio} that is
 *     not a failure but a request still waiting
 * @param reason one sentence with the numbers the verdict follows from ({@link RecoveryRule})
 */
public record Summary(RecoveryVerdict verdict, double baselineGoodput, Integer recoverySeconds, int peakConcurrency,
    double amplification, double successRatio, double goodputAfterFault, double p99SuccessLatencySeconds,
    long logicalRequests, long attempts, long unfinishedRequests, String reason) {

  /**
   * A summary whose reason is the verdict's label and whose unfinished requests are not counted (0), for
   * tests and tools that build summaries by hand.
   */
  public Summary(RecoveryVerdict verdict, double baselineGoodput, Integer recoverySeconds, int peakConcurrency,
      double amplification, double successRatio, double goodputAfterFault, double p99SuccessLatencySeconds,
      long logicalRequests, long attempts) {
    this(verdict, baselineGoodput, recoverySeconds, peakConcurrency, amplification, successRatio,
        goodputAfterFault, p99SuccessLatencySeconds, logicalRequests, attempts, 0, verdict == null ? "" : verdict.label());
  }

  /**
   * Checks the verdict's consistency with the numbers.
   *
   * @throws NullPointerException if {@code verdict} or {@code reason} is null
   * @throws IllegalArgumentException if {@code recoverySeconds} is set for a verdict other than recovered or
   *     late, or missing for one of those
   */
  public Summary {
    java.util.Objects.requireNonNull(verdict, "verdict");
    java.util.Objects.requireNonNull(reason, "reason");
    if (verdict.cameBack() != (recoverySeconds != null)) {
      throw new IllegalArgumentException("recoverySeconds must be set exactly for a recovered or late verdict, was "
          + recoverySeconds + " for " + verdict);
    }
  }

  /** True only for {@link RecoveryVerdict#RECOVERED}: then the baseline is positive and goodput after the fault is at least 90% of it. */
  public boolean recovered() {
    return verdict == RecoveryVerdict.RECOVERED;
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
    long gaveUp = 0;
    long[] failed = new long[seconds];
    double[] latency = new double[seconds];
    for (int t = 0; t < seconds; t++) {
      gaveUp += m.gaveUp[t];
      failed[t] = m.errors[t] + m.timeouts[t];
      latency[t] = m.latencyNanos[t] / 1e9;
    }
    int window = (int) (scenario.recoveryWindowNanos / 1_000_000_000L);
    RecoveryRule.Disturbance disturbance;
    if (disturbanceStart == Long.MAX_VALUE) {
      disturbance = RecoveryRule.Disturbance.none(window);
    } else {
      RateProfile load = scenario.rateProfile;
      boolean openChange = !scenario.closedLoop && load.hasDisturbance();
      disturbance = new RecoveryRule.Disturbance((int) (disturbanceStart / 1_000_000_000L),
          // A spike or ramp may outlast the run: its end is then the run's end (nothing left to observe).
          (int) Math.min(seconds, (disturbanceEnd + 999_999_999L) / 1_000_000_000L), window,
          openChange ? load.rateAt(load.atNanos - 1) : Double.NaN,
          openChange ? load.rateAt(load.disturbanceEndNanos()) : Double.NaN);
    }
    RecoveryRule.Judgement judgement = RecoveryRule.judge(
        new RecoveryRule.Series(m.successes, m.newRequests, m.attempts, failed, latency), disturbance);
    return new Summary(judgement.verdict(), judgement.baselineGoodput(), judgement.recoverySeconds(), peak,
        amplification, successRatio, judgement.goodputAfter(), p99, logicalRequests, attempts,
        logicalRequests - successes - gaveUp, judgement.reason());
  }
}
