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
}
