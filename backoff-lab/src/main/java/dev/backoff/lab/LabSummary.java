package dev.backoff.lab;

import dev.backoff.sim.Recovery;
import dev.backoff.sim.Json;
import java.util.List;
import java.util.Locale;

/**
 * The verdict on one lab run, with the simulator's summary fields and the same definitions, so live and
 * simulated runs compare like for like: baseline goodput (mean successes per second over the second half of
 * the time before the fault), whether and how fast it recovered, the server's peak concurrency,
 * amplification (attempts per logical request), success ratio (logical requests that succeeded per logical
 * request started), the mean goodput after the fault, the 99th percentile latency of the logical requests
 * that succeeded, and, for a hedging policy, the hedges sent and won (the simulator's counts). Immutable.
 *
 * <p>Recovered means: from some second after the fault on, the server's latency (when known) stays within
 * twice its baseline, and goodput averaged over trailing windows of {@value #WINDOW} seconds that do not reach
 * back before that second stays at or above 90% of baseline, with at least one full window before the end
 * of the run. The recovery time is from the fault's end to that second.
 */
public final class LabSummary {
  /** The simulator's default recovery window, in seconds. */
  static final int WINDOW = 10;
  static final double RECOVERED_SHARE = 0.9;

  private final double baselineGoodput;
  private final Boolean recovered;
  private final Recovery verdict;
  private final Integer recoverySeconds;
  private final int peakConcurrency;
  private final double amplification;
  private final double successRatio;
  private final double goodputAfterFault;
  private final double p99SuccessLatencySeconds;
  private final boolean hedging;
  private final long hedgesSent;
  private final long hedgesWon;
  private final long requests;

  private LabSummary(double baselineGoodput, Recovery verdict, Integer recoverySeconds, int peakConcurrency,
      double amplification, double successRatio, double goodputAfterFault, double p99SuccessLatencySeconds,
      boolean hedging, long hedgesSent, long hedgesWon, long requests) {
    this.baselineGoodput = baselineGoodput;
    this.verdict = verdict;
    this.recovered = switch (verdict) {
      case RECOVERED, LATE -> Boolean.TRUE;
      case NOT_RECOVERED, DOWN_BEFORE_FAULT -> Boolean.FALSE;
      case NOT_OBSERVED, NO_BASELINE, NO_FAULT -> null;
    };
    this.recoverySeconds = recoverySeconds;
    this.peakConcurrency = peakConcurrency;
    this.amplification = amplification;
    this.successRatio = successRatio;
    this.goodputAfterFault = goodputAfterFault;
    this.p99SuccessLatencySeconds = p99SuccessLatencySeconds;
    this.hedging = hedging;
    this.hedgesSent = hedgesSent;
    this.hedgesWon = hedgesWon;
    this.requests = requests;
  }

  /** This summary with the 99th percentile latency of the logical requests that succeeded, in seconds. */
  LabSummary withP99SuccessLatency(double seconds) {
    return new LabSummary(baselineGoodput, verdict, recoverySeconds, peakConcurrency, amplification, successRatio,
        goodputAfterFault, seconds, hedging, hedgesSent, hedgesWon, requests);
  }

  /**
   * Summarizes samples whose fault covered seconds {@code [faultStart, faultEnd)}; an empty window (no fault)
   * gives no verdict on recovery.
   *
   * @param totals the fleet's totals over the run (for amplification and success ratio)
   * @throws IllegalArgumentException if the fault window is not inside the samples
   */
  static LabSummary of(List<LabSample> samples, FleetTotals totals, int faultStart, int faultEnd) {
    if (faultStart < 0 || faultEnd < faultStart || faultEnd > samples.size()) {
      throw new IllegalArgumentException("fault window [" + faultStart + ", " + faultEnd + ") is not within the "
          + samples.size() + " samples");
    }
    int n = samples.size();
    boolean noFault = faultStart == faultEnd;
    int baselineFrom = noFault ? n / 2 : faultStart / 2;
    int baselineTo = noFault ? n : faultStart;
    double baseline = mean(samples, baselineFrom, baselineTo, false);
    double baselineLatency = mean(samples, baselineFrom, baselineTo, true);
    double after = noFault ? baseline : mean(samples, faultEnd, n, false);
    Recovery verdict;
    Integer recoverySeconds = null;
    if (noFault) {
      verdict = Recovery.NO_FAULT;
    } else if (faultStart == 0 || baselineTo == baselineFrom) {
      verdict = Recovery.NO_BASELINE;
    } else if (!(baseline > 0)) {
      verdict = Recovery.DOWN_BEFORE_FAULT;
    } else {
      int at = recoveryPoint(samples, faultEnd, baseline, baselineLatency);
      if (at >= 0 && at <= n - WINDOW) {
        verdict = Recovery.RECOVERED;
        recoverySeconds = at - faultEnd;
      } else {
        // Fewer than one window after the fault: too soon to say it did not come back.
        verdict = n - faultEnd < WINDOW ? Recovery.NOT_OBSERVED : Recovery.NOT_RECOVERED;
      }
    }
    int peak = -1;
    boolean hedging = false;
    for (LabSample sample : samples) {
      peak = Math.max(peak, sample.concurrency());
      hedging |= sample.hedging();
    }
    double amplification = totals.requests() == 0 ? Double.NaN : (double) totals.attempts() / totals.requests();
    double successRatio = totals.requests() == 0 ? Double.NaN : (double) totals.succeeded() / totals.requests();
    return new LabSummary(baseline, verdict, recoverySeconds, peak, amplification, successRatio, after, Double.NaN,
        hedging, totals.hedgesSent(), totals.hedgesWon(), totals.requests());
  }

  /**
   * Summarizes samples whose fault is found from the server's state: the seconds from the first one the
   * server was paused or unreachable to the last. Without such seconds, there is no verdict on recovery.
   */
  static LabSummary detect(List<LabSample> samples, FleetTotals totals) {
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
    return first < 0 ? of(samples, totals, samples.size(), samples.size()) : of(samples, totals, first, last + 1);
  }

  /**
   * The first second from which the latency stays within twice baseline and the goodput, averaged over
   * trailing windows that do not reach back before that second, stays at or above 90% of baseline; -1 if
   * there is none.
   */
  static int recoveryPoint(List<LabSample> samples, int from, double baseline, double baselineLatency) {
    int n = samples.size();
    int candidate = from;
    if (!Double.isNaN(baselineLatency)) {
      for (int t = n - 1; t >= from; t--) {
        double latency = samples.get(t).latencySeconds();
        if (!Double.isNaN(latency) && latency > 2 * baselineLatency) {
          candidate = t + 1;
          break;
        }
      }
    }
    double threshold = RECOVERED_SHARE * baseline;
    boolean changed = true;
    while (changed && candidate < n) {
      changed = false;
      long sum = 0;
      for (int t = candidate; t < n; t++) {
        sum += samples.get(t).goodput();
        if (t - candidate >= WINDOW) {
          sum -= samples.get(t - WINDOW).goodput();
        }
        int length = Math.min(WINDOW, t - candidate + 1);
        if (sum < threshold * length) {
          candidate = t + 1;
          changed = true;
          break;
        }
      }
    }
    return candidate < n ? candidate : -1;
  }

  private static double mean(List<LabSample> samples, int from, int to, boolean latency) {
    double sum = 0;
    int count = 0;
    for (int i = from; i < to; i++) {
      double value = latency ? samples.get(i).latencySeconds() : samples.get(i).goodput();
      if (!Double.isNaN(value)) {
        sum += value;
        count++;
      }
    }
    return count == 0 ? Double.NaN : sum / count;
  }

  /** Successful logical requests per second before the fault. */
  public double baselineGoodput() {
    return baselineGoodput;
  }

  /**
   * Whether goodput came back and stayed: true for {@code RECOVERED}, false for {@code NOT_RECOVERED} and
   * {@code DOWN_BEFORE_FAULT}, null when there is no verdict (no fault seen, no baseline, or fewer than
   * {@value #WINDOW} seconds watched after the fault); {@link #verdict()} says which.
   */
  public Boolean recovered() {
    return recovered;
  }

  /**
   * The verdict, in the simulator's words: {@code RECOVERED}, {@code NOT_RECOVERED}, {@code NOT_OBSERVED}
   * (fewer than {@value #WINDOW} seconds were watched after the fault), {@code DOWN_BEFORE_FAULT},
   * {@code NO_BASELINE} or {@code NO_FAULT}.
   */
  public Recovery verdict() {
    return verdict;
  }

  /** Seconds from the fault's end to recovery, or null if it did not recover. */
  public Integer recoverySeconds() {
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

  /**
   * The 99th percentile latency, in seconds, of the logical requests that succeeded (from the request's start
   * to its success, every attempt included), as the simulator's {@code p99SuccessLatencySeconds}; NaN if
   * none succeeded or it was not measured.
   */
  public double p99SuccessLatencySeconds() {
    return p99SuccessLatencySeconds;
  }

  /** Whether the policy hedges ({@code +hedge}). */
  public boolean hedging() {
    return hedging;
  }

  /** Hedges sent over the run (attempts a hedged call started alongside another); 0 without hedging. */
  public long hedgesSent() {
    return hedgesSent;
  }

  /**
   * Hedges sent per logical request started, the simulator's {@code hedgesSent / logicalRequests}: the
   * extra load hedging adds; NaN without hedging or requests.
   */
  public double hedgesPerRequest() {
    return hedging && requests > 0 ? (double) hedgesSent / requests : Double.NaN;
  }

  /** Logical requests a hedge won (its answer came first); 0 without hedging. */
  public long hedgesWon() {
    return hedgesWon;
  }

  /**
   * The summary in the simulator's JSON shape, plus {@code goodputAfterFault}: {@code p99SuccessLatencySeconds}
   * (null when not known) and, for a hedging policy, {@code hedgesSent} and {@code hedgesWon}.
   */
  public String toJson() {
    Json json = Json.compact().object()
        .field("baselineGoodput").decimal(baselineGoodput, 2)
        .field("recovered").bool(recovered)
        .field("verdict").string(verdict.id())
        .field("recoverySeconds").number(recoverySeconds)
        .field("peakConcurrency").number(peakConcurrency < 0 ? null : peakConcurrency)
        .field("amplification").decimal(amplification, 3)
        .field("successRatio").decimal(successRatio, 4)
        .field("goodputAfterFault").decimal(goodputAfterFault, 2)
        .field("p99SuccessLatencySeconds").decimal(p99SuccessLatencySeconds, 6);
    if (hedging) {
      json.field("hedgesSent").number(hedgesSent).field("hedgesWon").number(hedgesWon);
    }
    return json.endObject().toString();
  }

  @Override
  public String toString() {
    return toJson();
  }
}
