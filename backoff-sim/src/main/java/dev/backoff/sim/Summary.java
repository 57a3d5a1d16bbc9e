package dev.backoff.sim;

/**
 * The headline numbers of one policy's run.
 *
 * @param baselineGoodput mean successes per second in the second half of the time before the first fault
 *     (or load disturbance); for a run without one, over its second half
 * @param recovered whether, after the disturbance ended, goodput came back to at least 90% of baseline and
 *     stayed there (averaged over windows of {@code recovery-window}, never reaching back before the
 *     recovery point) and the server latency came back within twice its baseline, with at least one full
 *     window of evidence before the end of the run
 * @param recoverySeconds seconds from the end of the disturbance to recovery, or null if it did not recover
 * @param peakConcurrency the most requests the server held at once
 * @param amplification attempts per logical request
 * @param successRatio logical requests that succeeded per logical request started
 * @param goodputAfterFault mean successes per second from the end of the disturbance to the end of the run
 * @param p99LatencySeconds 99th percentile latency of successful logical requests (retries and waits
 *     included), over the whole run
 * @param logicalRequests logical requests started
 * @param attempts attempts sent
 */
public record Summary(double baselineGoodput, boolean recovered, Integer recoverySeconds, int peakConcurrency,
    double amplification, double successRatio, double goodputAfterFault, double p99LatencySeconds,
    long logicalRequests, long attempts) {

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
    double p99 = m.runHistogram.percentile(0.99) / 1e9;
    if (disturbanceStart == Long.MAX_VALUE) {
      double baseline = mean(m.successes, seconds / 2, seconds);
      return new Summary(baseline, true, 0, peak, amplification, successRatio, baseline, p99, logicalRequests, attempts);
    }
    int faultStart = (int) (disturbanceStart / 1_000_000_000L);
    int faultEnd = (int) ((disturbanceEnd + 999_999_999L) / 1_000_000_000L);
    double baseline = mean(m.successes, faultStart / 2, faultStart);
    double baselineLatency = mean(m.latencyNanos, faultStart / 2, faultStart);
    double after = mean(m.successes, faultEnd, seconds);
    int window = (int) (scenario.recoveryWindowNanos / 1_000_000_000L);
    int recoveredAt = recoveryPoint(m, faultEnd, window, baseline, baselineLatency);
    boolean recovered = recoveredAt >= 0 && recoveredAt <= seconds - window;
    return new Summary(baseline, recovered, recovered ? recoveredAt - faultEnd : null, peak, amplification,
        successRatio, after, p99, logicalRequests, attempts);
  }

  /**
   * The first second from which the latency stays within twice baseline and the goodput, averaged over
   * trailing windows of {@code window} seconds that do not reach back before that second, stays at or above
   * 90% of baseline; -1 if there is none.
   */
  static int recoveryPoint(Metrics m, int from, int window, double baseline, double baselineLatency) {
    int seconds = m.seconds;
    int candidate = from;
    for (int t = seconds - 1; t >= from; t--) {
      if (m.latencyNanos[t] > 2 * baselineLatency) {
        candidate = t + 1;
        break;
      }
    }
    double threshold = 0.9 * baseline;
    boolean changed = true;
    while (changed && candidate < seconds) {
      changed = false;
      long sum = 0;
      for (int t = candidate; t < seconds; t++) {
        sum += m.successes[t];
        if (t - candidate >= window) {
          sum -= m.successes[t - window];
        }
        int length = Math.min(window, t - candidate + 1);
        if (sum < threshold * length) {
          candidate = t + 1;
          changed = true;
          break;
        }
      }
    }
    return candidate < seconds ? candidate : -1;
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
