package dev.backoff.sim;

import java.util.List;

/** The results of running one scenario: one {@link PolicyResult} per policy, in scenario order. Immutable. */
public final class SimulationResult {
  private final Scenario scenario;
  private final List<PolicyResult> policies;

  SimulationResult(Scenario scenario, List<PolicyResult> policies) {
    this.scenario = scenario;
    this.policies = List.copyOf(policies);
  }

  /** The scenario that was run. */
  public Scenario scenario() {
    return scenario;
  }

  /** The per-policy results. */
  public List<PolicyResult> policies() {
    return policies;
  }

  /** Events processed over all runs (for events-per-second measurements). */
  public long events() {
    long total = 0;
    for (PolicyResult policy : policies) {
      total += policy.events();
    }
    return total;
  }
}
