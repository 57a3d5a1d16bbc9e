package dev.backoff.lab;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Turns a running fleet and its server into one {@link LabSample} per call of {@link #sample()} (the caller
 * calls it once a second). Not thread-safe: one sampling thread.
 */
final class LabRecorder {
  private final ClientFleet fleet;
  private final ServerProbe probe;
  private final List<LabSample> samples = new ArrayList<>();
  private FleetTotals previous = FleetTotals.ZERO;
  private long lastRefused;

  /** Records {@code fleet}, reading the server through {@code probe}. */
  public LabRecorder(ClientFleet fleet, ServerProbe probe) {
    if (fleet == null || probe == null) {
      throw new NullPointerException("fleet and probe must not be null");
    }
    this.fleet = fleet;
    this.probe = probe;
  }

  /** Takes the sample of the second that just ended. */
  public LabSample sample() {
    FleetTotals now = fleet.totals();
    FleetTotals delta = now.minus(previous);
    previous = now;
    LabServer.Stats stats = probe.read();
    LabSample sample;
    boolean hedging = fleet.hedging();
    int hedgesInFlight = hedging ? fleet.hedgesInFlight() : 0;
    if (stats == null) {
      sample = new LabSample(samples.size(), delta, -1, Double.NaN, probe.unreachableState(), hedging,
          hedgesInFlight);
    } else {
      lastRefused = stats.refused();
      sample = new LabSample(samples.size(), delta, stats.peakConcurrency(), stats.lastDelay().toNanos() / 1e9,
          stats.paused() ? LabSample.ServerState.PAUSED : LabSample.ServerState.RUNNING, hedging, hedgesInFlight);
    }
    samples.add(sample);
    return sample;
  }

  /** Requests the server refused so far because it held its maximum (0 if unknown). */
  public long refusedByServer() {
    return lastRefused;
  }

  /** The samples so far, oldest first. */
  public List<LabSample> samples() {
    return Collections.unmodifiableList(new ArrayList<>(samples));
  }

  /** The fleet's totals since it started. */
  public FleetTotals totals() {
    return fleet.totals();
  }

  /**
   * The original experiment's five-second client line for the samples {@code [from, to)}: {@code OK: x req/sec, errors: y
   * req/sec, timedout: z req/sec}, then {@code , refused: r req/sec} if a circuit breaker refused requests in
   * those seconds, and for a hedging fleet the simulator's {@code  | hedges: h req/sec, in flight: n, won: w
   * req/sec} (in flight at the end of the last second).
   */
  public static String rateLine(List<LabSample> samples, int from, int to) {
    long ok = 0;
    long errors = 0;
    long timeouts = 0;
    long refused = 0;
    int seconds = Math.max(1, to - from);
    for (int i = from; i < to; i++) {
      FleetTotals counts = samples.get(i).counts();
      ok += counts.ok();
      errors += counts.errors();
      timeouts += counts.timeouts();
      refused += counts.refused();
    }
    String line = String.format(java.util.Locale.ROOT, "OK: %.2f req/sec, errors: %.2f req/sec, timedout: %.2f req/sec",
        (double) ok / seconds, (double) errors / seconds, (double) timeouts / seconds)
        + (refused == 0 ? "" : String.format(java.util.Locale.ROOT, ", refused: %.2f req/sec",
            (double) refused / seconds));
    if (to > from && samples.get(to - 1).hedging()) {
      long sent = 0;
      long won = 0;
      for (int i = from; i < to; i++) {
        sent += samples.get(i).counts().hedgesSent();
        won += samples.get(i).counts().hedgesWon();
      }
      line += String.format(java.util.Locale.ROOT, " | hedges: %.2f req/sec, in flight: %d, won: %.2f req/sec",
          (double) sent / seconds, samples.get(to - 1).hedgesInFlight(), (double) won / seconds);
    }
    return line;
  }
}
