package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The storm-protection scenario files under docs/scenarios give the outcomes docs/simulator.md describes
 * ("Storm protection"): each test runs one file as shipped (seeded, so deterministic) and checks the
 * documented comparison, so the docs cannot silently go stale when the models or the core change.
 */
class StormScenariosTest {
  private static final Path SCENARIOS = Path.of("..", "docs", "scenarios");

  private static SimulationResult run(String file) throws Exception {
    return Simulator.run(ScenarioFiles.read(SCENARIOS.resolve(file)));
  }

  private static PolicyResult policy(SimulationResult result, String name) {
    return result.policies().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }

  private static long attempts(PolicyResult policy, int from, int to) {
    long sum = 0;
    for (int t = from; t < to; t++) {
      sum += policy.series().get(t).attempts();
    }
    return sum;
  }

  @Test
  void dependencyDownABreakerStopsTheWasteAndRecoversWithinOneWaitInOpen() throws Exception {
    SimulationResult result = run("dependency-down.yaml");
    PolicyResult plain = policy(result, "full-jitter");
    PolicyResult budget = policy(result, "full-jitter+budget");
    PolicyResult breaker = policy(result, "full-jitter+breaker");
    // The crash lasts from 60 s to 230 s. Documented: about 79 000 attempts at the dead server without
    // protection, about 17 000 with a budget (first attempts only), a handful with the breaker.
    long plainWaste = attempts(plain, 60, 230);
    long budgetWaste = attempts(budget, 60, 230);
    long breakerWaste = attempts(breaker, 60, 230);
    assertThat(plainWaste).isGreaterThan(4 * budgetWaste);
    assertThat(breakerWaste).isLessThan(budgetWaste / 100);
    assertThat(breaker.refusedCalls()).isGreaterThan(15_000);
    // Every policy comes back; the breaker at most one wait in open (30 s) after the dependency did.
    for (PolicyResult policy : result.policies()) {
      assertThat(policy.summary().verdict().cameBack()).as(policy.name()).isTrue();
    }
    assertThat(breaker.summary().recoverySeconds()).isBetween(1, 31);
    assertThat(breaker.summary().amplification()).isLessThan(budget.summary().amplification());
    assertThat(budget.summary().amplification()).isLessThan(plain.summary().amplification());
  }
}
