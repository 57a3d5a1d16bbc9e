package dev.backoff.lab;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The verdict on one lab run, with the simulator's summary fields: baseline goodput (before the fault),
 * whether and how fast goodput recovered after it, the server's peak concurrency, amplification (attempts per
 * logical request) and success ratio; plus the mean goodput after the fault. Immutable.
 *
 * <p>Recovered means: from some second after the fault on to the end of the run, the goodput averaged over
 * every {@value #WINDOW}-second window stays at or above 90% of the baseline, and the server's latency (when
 * known) stays within twice its base. The recovery time is from the fault's end to the first such second.
 */
public final class LabSummary {
  /** Seconds averaged when judging recovery: long enough that a second's Poisson noise does not decide. */
  static final int WINDOW = 10;
  static final double RECOVERED_SHARE = 0.9;

  private final double baselineGoodput;
  private final Boolean recovered;
  private final Double recoverySeconds;
  private final int peakConcurrency;
  private final double amplification;
  private final double successRatio;
  private final double goodputAfterFault;

  private LabSummary(double baselineGoodput, Boolean recovered, Double recoverySeconds, int peakConcurrency,
      double amplification, double successRatio, double goodputAfterFault) {
    this.baselineGoodput = baselineGoodput;
    this.recovered = recovered;
    this.recoverySeconds = recoverySeconds;
    this.peakConcurrency = peakConcurrency;
    this.amplification = amplification;
    this.successRatio = successRatio;
    this.goodputAfterFault = goodputAfterFault;
  }

  /**
   * Summarizes samples whose fault covered seconds {@code [faultStart, faultEnd)}.
   *
   * @param totals the fleet's totals over the run (for amplification and success ratio)
   * @param baseLatency the server's base latency, to judge that its latency came back
   * @throws IllegalArgumentException if the fault window is not inside the samples
   */
  public static LabSummary of(List<LabSample> samples, FleetTotals totals, int faultStart, int faultEnd,
      Duration baseLatency) {
    if (faultStart < 0 || faultEnd < faultStart || faultEnd > samples.size()) {
      throw new IllegalArgumentException("fault window [" + faultStart + ", " + faultEnd + ") is not within the "
          + samples.size() + " samples");
    }
    // The first second is left out of the baseline: clients are still spreading out and the JIT warming up.
    int baselineFrom = faultStart > 1 ? 1 : 0;
    double baseline = meanGoodput(samples, baselineFrom, faultStart);
    double after = meanGoodput(samples, faultEnd, samples.size());
    Integer recoveredAt = faultEnd == faultStart ? null : recoveredAt(samples, faultEnd, baseline, baseLatency);
    Boolean recovered = faultEnd == faultStart ? null : recoveredAt != null;
    Double recoverySeconds = recoveredAt == null ? null : (double) (recoveredAt - faultEnd);
    int peak = -1;
    for (LabSample sample : samples) {
      peak = Math.max(peak, sample.concurrency());
    }
    double amplification = totals.requests() == 0 ? 0 : (double) totals.attempts() / totals.requests();
    double successRatio = totals.requests() == 0 ? 0 : (double) totals.succeeded() / totals.requests();
    return new LabSummary(baseline, recovered, recoverySeconds, peak, amplification, successRatio, after);
  }

  /**
   * Summarizes samples whose fault is found from the server's state: the seconds from the first one the
   * server was paused or unreachable to the last. Without such seconds, there is no verdict on recovery.
   */
  public static LabSummary detect(List<LabSample> samples, FleetTotals totals, Duration baseLatency) {
    int first = -1;
    int last = -1;
    for (int i = 0; i < samples.size(); i++) {
      LabSample.ServerState state = samples.get(i).serverState();
      if (state == LabSample.ServerState.PAUSED || state == LabSample.ServerState.UNREACHABLE) {
        if (first < 0) {
          first = i;
        }
        last = i;
      }
    }
    return first < 0 ? of(samples, totals, samples.size(), samples.size(), baseLatency)
        : of(samples, totals, first, last + 1, baseLatency);
  }

  private static Integer recoveredAt(List<LabSample> samples, int faultEnd, double baseline, Duration base) {
    int n = samples.size();
    double latencyLimit = 2.0 * base.toNanos() / 1e9;
    // Scan backwards: the latest second from which every later window is good.
    Integer earliest = null;
    for (int s = n - WINDOW; s >= faultEnd; s--) {
      double latency = samples.get(s).latencySeconds();
      boolean latencyOk = Double.isNaN(latency) || latency <= latencyLimit;
      if (!latencyOk || meanGoodput(samples, s, s + WINDOW) < RECOVERED_SHARE * baseline) {
        break;
      }
      earliest = s;
    }
    if (earliest == null) {
      return null;
    }
    for (int s = Math.max(earliest, n - WINDOW); s < n; s++) {
      double latency = samples.get(s).latencySeconds();
      if (!Double.isNaN(latency) && latency > latencyLimit) {
        return null;
      }
    }
    return earliest;
  }

  private static double meanGoodput(List<LabSample> samples, int from, int to) {
    if (to <= from) {
      return 0;
    }
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += samples.get(i).goodput();
    }
    return (double) sum / (to - from);
  }

  /** Successful logical requests per second before the fault. */
  public double baselineGoodput() {
    return baselineGoodput;
  }

  /** Whether goodput came back and stayed (null: no fault was seen, or too few seconds after it). */
  public Boolean recovered() {
    return recovered;
  }

  /** Seconds from the fault's end to recovery, or null if it did not recover. */
  public Double recoverySeconds() {
    return recoverySeconds;
  }

  /** The server's highest concurrency, or -1 if unknown. */
  public int peakConcurrency() {
    return peakConcurrency;
  }

  /** Attempts per logical request. */
  public double amplification() {
    return amplification;
  }

  /** Logical requests that succeeded, over those started (requests still retrying at the end count as not). */
  public double successRatio() {
    return successRatio;
  }

  /** Mean goodput from the fault's end to the end of the run. */
  public double goodputAfterFault() {
    return goodputAfterFault;
  }

  /** The summary in the simulator's JSON shape, plus {@code goodputAfterFault}. */
  public String toJson() {
    return String.format(Locale.ROOT,
        "{\"baselineGoodput\":%.2f,\"recovered\":%s,\"recoverySeconds\":%s,\"peakConcurrency\":%s,"
            + "\"amplification\":%.3f,\"successRatio\":%.4f,\"goodputAfterFault\":%.2f}",
        baselineGoodput, recovered, recoverySeconds == null ? "null" : String.format(Locale.ROOT, "%.0f",
            recoverySeconds), peakConcurrency < 0 ? "null" : Integer.toString(peakConcurrency), amplification,
        successRatio, goodputAfterFault);
  }

  @Override
  public String toString() {
    return toJson();
  }
}
