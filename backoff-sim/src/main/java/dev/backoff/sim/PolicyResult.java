package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * One policy's run: its name, summary and per-second series, and the number of events simulated.
 * Immutable and thread-safe.
 */
public final class PolicyResult {
  private final String name;
  private final Summary summary;
  private final List<Second> series;
  private final long events;
  private final List<Protection> protection;
  private final boolean breaker;
  private final boolean adaptive;
  private final boolean hedging;
  private final boolean concurrency;

  PolicyResult(String name, Summary summary, List<Second> series, long events) {
    this(name, summary, series, events, List.of(), false, false, false, false);
  }

  PolicyResult(String name, Summary summary, List<Second> series, long events, List<Protection> protection,
      boolean breaker, boolean adaptive, boolean hedging, boolean concurrency) {
    this.name = name;
    this.summary = summary;
    this.series = List.copyOf(series);
    this.events = events;
    this.protection = List.copyOf(protection);
    this.breaker = breaker;
    this.adaptive = adaptive;
    this.hedging = hedging;
    this.concurrency = concurrency;
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
    ProtectionMetrics p = simulation.protection;
    if (p == null) {
      return new PolicyResult(simulation.spec.name, summary, series, events);
    }
    List<Protection> protection = new ArrayList<>(m.seconds);
    for (int t = 0; t < m.seconds; t++) {
      protection.add(new Protection(t, p.breakerOpen[t], p.breakerHalfOpen[t], p.refused[t], p.limiterFillRate[t],
          p.limiterWaits[t], p.limiterRefused[t], p.hedgesSent[t], p.hedgesInFlight[t], p.hedgesWon[t],
          p.concurrencyLimit[t], p.concurrencyRefusedFirst[t], p.concurrencyRefusedRetries[t]));
    }
    PolicySpec spec = simulation.spec;
    return new PolicyResult(spec.name, summary, series, events, protection, spec.breaker != null,
        spec.adaptive != null, spec.hedge != null, spec.concurrency != null);
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

  /**
   * One entry per simulated second with what the policy's storm-protection mechanisms did (breaker,
   * adaptive limiter, hedging); empty if it uses none.
   */
  public List<Protection> protection() {
    return protection;
  }

  /** Whether the policy has a circuit breaker ({@code +breaker}). */
  public boolean usesBreaker() {
    return breaker;
  }

  /** Whether the policy has an adaptive rate limiter ({@code +adaptive}). */
  public boolean usesAdaptive() {
    return adaptive;
  }

  /** Whether the policy hedges ({@code +hedge}). */
  public boolean usesHedging() {
    return hedging;
  }

  /** Whether the policy has a concurrency limiter ({@code +concurrency}). */
  public boolean usesConcurrencyLimiter() {
    return concurrency;
  }

  /** First attempts the concurrency limiter refused over the run (see {@link Protection#concurrencyRefusedFirst()}). */
  public long concurrencyRefusedFirst() {
    return total(Protection::concurrencyRefusedFirst);
  }

  /**
   * Retries and hedges the concurrency limiter refused over the run (see
   * {@link Protection#concurrencyRefusedRetries()}).
   */
  public long concurrencyRefusedRetries() {
    return total(Protection::concurrencyRefusedRetries);
  }

  /** Calls the breaker refused over the run (see {@link Protection#refused()}); 0 without one. */
  public long refusedCalls() {
    return total(Protection::refused);
  }

  /** Attempts the adaptive limiter refused over the run (see {@link Protection#limiterRefused()}). */
  public long limiterRefusedCalls() {
    return total(Protection::limiterRefused);
  }

  /** Attempts the adaptive limiter delayed over the run (see {@link Protection#limiterWaits()}). */
  public long limiterWaits() {
    return total(Protection::limiterWaits);
  }

  /** Hedged attempts sent over the run (see {@link Protection#hedgesSent()}). */
  public long hedgesSent() {
    return total(Protection::hedgesSent);
  }

  /** Calls a hedge won over the run (see {@link Protection#hedgesWon()}). */
  public long hedgesWon() {
    return total(Protection::hedgesWon);
  }

  /** Events the engine processed for this run. */
  public long events() {
    return events;
  }

  private long total(ToLongFunction<Protection> field) {
    long total = 0;
    for (Protection second : protection) {
      total += field.applyAsLong(second);
    }
    return total;
  }
}
