package dev.backoff.lab;

import dev.backoff.sim.RecoveryVerdict;
import dev.backoff.sim.RecoveryRule;
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
 * <p>The verdict is the simulator's, by the same rule ({@link RecoveryRule}) with the simulator's default
 * recovery window of {@value #WINDOW} seconds: from some second after the fault on, the server's latency (when
 * known) stays within twice its baseline and goodput over every window (lengthened at low rates) at or above
 * 90% of baseline, with at least one full window before the end of the run; the baseline itself must be
 * healthy (at least 90% of the requests offered in it succeeded). The recovery time is from the fault's end
 * to that second.
 */
public final class LabSummary {
  /** The simulator's default recovery window, in seconds. */
  static final int WINDOW = 10;

  private final double baselineGoodput;
  private final Boolean recovered;
  private final RecoveryVerdict verdict;
  private final String reason;
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

  private LabSummary(double baselineGoodput, RecoveryVerdict verdict, String reason, Integer recoverySeconds, int peakConcurrency,
      double amplification, double successRatio, double goodputAfterFault, double p99SuccessLatencySeconds,
      boolean hedging, long hedgesSent, long hedgesWon, long requests) {
    this.baselineGoodput = baselineGoodput;
    this.verdict = verdict;
    this.reason = reason;
    this.recovered = switch (verdict) {
      case RECOVERED, LATE -> Boolean.TRUE;
      case NOT_RECOVERED, CLIENTS_BACKING_OFF, DOWN_BEFORE_FAULT, OVERLOADED_BEFORE_FAULT -> Boolean.FALSE;
      case NOT_OBSERVED, NO_BASELINE, SHORT_BASELINE, LOAD_CHANGED, NO_FAULT -> null;
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
    return new LabSummary(baselineGoodput, verdict, reason, recoverySeconds, peakConcurrency, amplification,
        successRatio, goodputAfterFault, seconds, hedging, hedgesSent, hedgesWon, requests);
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
    long[] successes = new long[n];
    long[] offered = new long[n];
    long[] attempts = new long[n];
    long[] failed = new long[n];
    double[] latency = new double[n];
    for (int t = 0; t < n; t++) {
      FleetTotals counts = samples.get(t).counts();
      successes[t] = counts.succeeded();
      offered[t] = counts.requests();
      attempts[t] = counts.attempts();
      failed[t] = counts.errors() + counts.timeouts();
      latency[t] = samples.get(t).latencySeconds();
    }
    RecoveryRule.Judgement judgement = RecoveryRule.judge(
        new RecoveryRule.Series(successes, offered, attempts, failed, latency),
        noFault ? RecoveryRule.Disturbance.none(WINDOW) : RecoveryRule.Disturbance.fault(faultStart, faultEnd, WINDOW));
    double baseline = judgement.baselineGoodput();
    double after = noFault ? baseline : judgement.goodputAfter();
    int peak = -1;
    boolean hedging = false;
    for (LabSample sample : samples) {
      peak = Math.max(peak, sample.concurrency());
      hedging |= sample.hedging();
    }
    double amplification = totals.requests() == 0 ? Double.NaN : (double) totals.attempts() / totals.requests();
    double successRatio = totals.requests() == 0 ? Double.NaN : (double) totals.succeeded() / totals.requests();
    return new LabSummary(baseline, judgement.verdict(), judgement.reason(), judgement.recoverySeconds(), peak,
        amplification, successRatio, after, Double.NaN, hedging, totals.hedgesSent(), totals.hedgesWon(),
        totals.requests());
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

  /** Successful logical requests per second before the fault. */
  public double baselineGoodput() {
    return baselineGoodput;
  }

  /**
   * Whether goodput came back and stayed: true for {@code RECOVERED} and {@code LATE}, false for
   * {@code NOT_RECOVERED}, {@code CLIENTS_BACKING_OFF}, {@code DOWN_BEFORE_FAULT} and {@code OVERLOADED_BEFORE_FAULT}, null when there is no
   * verdict (no fault seen, no or too short a baseline, a change of load, or less than one recovery window
   * watched after the fault); {@link #verdict()} says which and {@link #reason()} why.
   */
  public Boolean recovered() {
    return recovered;
  }

  /**
   * The verdict, by the simulator's rule and in its words ({@link RecoveryVerdict}).
   */
  public RecoveryVerdict verdict() {
    return verdict;
  }

  /** One sentence with the numbers the verdict follows from (the simulator's {@link RecoveryRule}). */
  public String reason() {
    return reason;
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
        .field("verdictReason").string(reason)
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
