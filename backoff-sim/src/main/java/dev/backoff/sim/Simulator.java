package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Runs scenarios: the retry-storm simulator's entry point.
 *
 * <pre>{@code
 * SimulationResult result = Simulator.run(Scenario.defaults());
 * for (PolicyResult policy : result.policies()) {
 *   System.out.println(policy.name() + " recovered: " + policy.summary().recovered());
 * }
 * }</pre>
 *
 * Stateless and thread-safe; each run is single-threaded and deterministic: the same scenario (seed
 * included) gives identical results on every JDK.
 */
public final class Simulator {
  private Simulator() {}

  /**
   * Runs every policy of the scenario.
   *
   * @throws ScenarioException if the run could need more heap than this JVM has (checked before anything
   *     runs), or if a policy's budget cannot be created
   */
  public static SimulationResult run(Scenario scenario) {
    return run(scenario, null);
  }

  /**
   * Runs every policy of the scenario, reporting progress in simulated seconds completed over all runs
   * (the total is {@code policies × seconds}).
   *
   * @throws ScenarioException if the run's worst case (a storm in which the server stops answering) could
   *     need more heap than this JVM has, before anything runs; or if a policy's budget cannot be created
   */
  public static SimulationResult run(Scenario scenario, IntConsumer progress) {
    MemoryEstimate.check(scenario);
    List<PolicyResult> results = new ArrayList<>();
    int done = 0;
    for (PolicySpec spec : scenario.policies) {
      results.add(runOne(scenario, spec, progress, done));
      done += scenario.seconds();
    }
    return new SimulationResult(scenario, results);
  }

  static PolicyResult runOne(Scenario scenario, PolicySpec spec, IntConsumer progress, int offset) {
    Simulation simulation = new Simulation(scenario, spec);
    long events = simulation.run(progress == null ? null : completed -> progress.accept(offset + completed));
    return PolicyResult.of(simulation, events);
  }

  /**
   * Finds, for each policy, the shortest length of the scenario's first fault (from its start) after which the
   * server no longer comes back within the run ({@link Recovery#cameBack()}), by bisection to
   * {@code resolutionSeconds}. The fault may grow up to leave two minutes of run time after it (or half the
   * time left, if less). The shortest fault, 1 s, is tried first: if even that one is not survived, the
   * answer is 1 s with that run's verdict, which says why ({@link Recovery#DOWN_BEFORE_FAULT}: the server is
   * down before any fault, so there is no tipping point to find).
   *
   * @throws ScenarioException if the scenario has no fault, or could need more heap than this JVM has
   */
  public static List<TippingPoint> tippingPoints(Scenario scenario, int resolutionSeconds) {
    checkTippingPointSearch(scenario, resolutionSeconds);
    MemoryEstimate.check(scenario);
    return tippingPoints(scenario, resolutionSeconds, null);
  }

  /** The search's own checks: a fault to vary, a resolution of at least 1 s. */
  static void checkTippingPointSearch(Scenario scenario, int resolutionSeconds) {
    if (scenario.faults.isEmpty()) {
      throw new ScenarioException("faults", "the tipping-point search varies the first fault's length; the scenario has none");
    }
    if (resolutionSeconds < 1) {
      throw new ScenarioException(null, "resolution must be at least 1 second, was " + resolutionSeconds);
    }
  }

  /**
   * The search without the heap check (the caller made it); {@code progress} sees every probe run's simulated
   * seconds (and may throw to stop the search).
   */
  static List<TippingPoint> tippingPoints(Scenario scenario, int resolutionSeconds, IntConsumer progress) {
    checkTippingPointSearch(scenario, resolutionSeconds);
    Fault first = scenario.faults.get(0);
    long remaining = scenario.durationNanos - first.atNanos;
    long maxLength = Math.max(1, Math.min(remaining - 120_000_000_000L, remaining / 2) / 1_000_000_000L);
    List<TippingPoint> points = new ArrayList<>();
    for (PolicySpec spec : scenario.policies) {
      Scenario single = scenario.with("policies", List.of(spec.name));
      Recovery shortest = verdict(single, first, progress, 1);
      if (!shortest.cameBack()) {
        points.add(new TippingPoint(spec.name, 1, (int) maxLength, shortest));
        continue;
      }
      Recovery longest = maxLength == 1 ? shortest : verdict(single, first, progress, maxLength);
      if (longest.cameBack()) {
        points.add(new TippingPoint(spec.name, null, (int) maxLength, longest));
        continue;
      }
      long low = 0; // comes back (1 s did; 0 is the bisection's historical lower bound, kept for the same probes)
      long high = maxLength; // does not
      Recovery atHigh = longest;
      while (high - low > resolutionSeconds) {
        long middle = (low + high) / 2;
        Recovery verdict = middle <= 1 ? shortest : verdict(single, first, progress, middle);
        if (verdict.cameBack()) {
          low = middle;
        } else {
          high = middle;
          atHigh = verdict;
        }
      }
      points.add(new TippingPoint(spec.name, (int) high, (int) maxLength, atHigh));
    }
    return points;
  }

  private static Recovery verdict(Scenario scenario, Fault first, IntConsumer progress, long lengthSeconds) {
    List<Object> faults = new ArrayList<>();
    faults.add(new Fault(first.type, first.atNanos, lengthSeconds * 1_000_000_000L, first.value).spec());
    for (int i = 1; i < scenario.faults.size(); i++) {
      faults.add(scenario.faults.get(i).spec());
    }
    Scenario probe = scenario.with("faults", faults);
    return runOne(probe, probe.policies.get(0), progress, 0).summary().verdict();
  }

  /**
   * A policy's tipping point. Immutable and thread-safe.
   *
   * @param policy the policy's name
   * @param faultSeconds the shortest fault length (seconds) found after which the server does not come back,
   *     or null if it came back after every length up to {@code searchedUpToSeconds}; 1 when not even the
   *     shortest fault was survived (then {@code verdict} says why)
   * @param searchedUpToSeconds the longest fault length the search would try
   * @param verdict the verdict of the run with a fault of {@code faultSeconds} (or, if that is null, of
   *     {@code searchedUpToSeconds}); never null
   */
  public record TippingPoint(String policy, Integer faultSeconds, int searchedUpToSeconds, Recovery verdict) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if {@code policy} or {@code verdict} is null
     */
    public TippingPoint {
      java.util.Objects.requireNonNull(policy, "policy");
      java.util.Objects.requireNonNull(verdict, "verdict");
    }
  }
}
