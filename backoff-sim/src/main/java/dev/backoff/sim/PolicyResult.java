package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * One policy's run: its name, summary and per-second series, and the number of events simulated.
 * Immutable and thread-safe.
 */
public final class PolicyResult {
  private final String name;
  private final Summary summary;
  private final List<Second> series;
  private final long events;

  PolicyResult(String name, Summary summary, List<Second> series, long events) {
    this.name = name;
    this.summary = summary;
    this.series = List.copyOf(series);
    this.events = events;
  }

  static PolicyResult of(Simulation simulation, long events) {
    Metrics m = simulation.metrics;
    List<Second> series = new ArrayList<>(m.seconds);
    for (int t = 0; t < m.seconds; t++) {
      series.add(new Second(t, m.newRequests[t], m.attempts[t], m.successes[t], m.errors[t], m.timeouts[t],
          m.retries[t], m.gaveUp[t], m.concurrency[t], m.peakConcurrency[t], m.latencyNanos[t] / 1e9,
          seconds(m.clientP50Nanos[t]), seconds(m.clientP99Nanos[t]), m.budgetLevel[t]));
    }
    Summary summary = Summary.of(simulation.scenario, m, simulation.logicalRequests(), simulation.succeededCalls(),
        simulation.attempts());
    return new PolicyResult(simulation.spec.name, summary, series, events);
  }

  private static double seconds(long clientLatencyNanos) {
    return clientLatencyNanos == Metrics.NO_SUCCESS ? Double.NaN : clientLatencyNanos / 1e9;
  }

  /** The policy's name as given in the scenario. */
  public String name() {
    return name;
  }

  /** The headline numbers. */
  public Summary summary() {
    return summary;
  }

  /** One entry per simulated second. */
  public List<Second> series() {
    return series;
  }

  /** Events the engine processed for this run. */
  public long events() {
    return events;
  }
}
