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
   * Finds, for each policy, the shortest length of the scenario's first fault (from its start) for which
   * the system no longer recovers, by bisection to {@code resolutionSeconds}. The fault may grow up to
   * leave two minutes of run time after it (or half the time left, if less).
   *
   * @throws ScenarioException if the scenario has no fault, or could need more heap than this JVM has
   */
  public static List<TippingPoint> tippingPoints(Scenario scenario, int resolutionSeconds) {
    if (scenario.faults.isEmpty()) {
      throw new ScenarioException("faults", "the tipping-point search varies the first fault's length; the scenario has none");
    }
    if (resolutionSeconds < 1) {
      throw new ScenarioException(null, "resolution must be at least 1 second, was " + resolutionSeconds);
    }
    MemoryEstimate.check(scenario);
    Fault first = scenario.faults.get(0);
    long remaining = scenario.durationNanos - first.atNanos;
    long maxLength = Math.max(1, Math.min(remaining - 120_000_000_000L, remaining / 2) / 1_000_000_000L);
    List<TippingPoint> points = new ArrayList<>();
    for (PolicySpec spec : scenario.policies) {
      Scenario single = scenario.with("policies", List.of(spec.name));
      if (recovers(single, first, maxLength)) {
        points.add(new TippingPoint(spec.name, null, (int) maxLength));
        continue;
      }
      long low = 0; // recovers (no fault at all is assumed to)
      long high = maxLength; // does not recover
      while (high - low > resolutionSeconds) {
        long middle = (low + high) / 2;
        if (middle == 0 || recovers(single, first, middle)) {
          low = middle;
        } else {
          high = middle;
        }
      }
      points.add(new TippingPoint(spec.name, (int) high, (int) maxLength));
    }
    return points;
  }

  private static boolean recovers(Scenario scenario, Fault first, long lengthSeconds) {
    List<Object> faults = new ArrayList<>();
    faults.add(new Fault(first.type, first.atNanos, lengthSeconds * 1_000_000_000L, first.value).spec());
    for (int i = 1; i < scenario.faults.size(); i++) {
      faults.add(scenario.faults.get(i).spec());
    }
    Scenario probe = scenario.with("faults", faults);
    return runOne(probe, probe.policies.get(0), null, 0).summary().recovered();
  }

  /**
   * A policy's tipping point. Immutable and thread-safe.
   *
   * @param policy the policy's name
   * @param faultSeconds the shortest fault length (seconds) found not to recover, or null if every length
   *     up to {@code searchedUpToSeconds} recovered
   * @param searchedUpToSeconds the longest fault length tried
   */
  public record TippingPoint(String policy, Integer faultSeconds, int searchedUpToSeconds) {}
}
