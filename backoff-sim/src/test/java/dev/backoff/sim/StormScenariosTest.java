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

  @Test
  void throttlingTheAdaptiveLimiterKeepsAmplificationNearOneWhilePlainRetriesMultiplyIt() throws Exception {
    SimulationResult result = run("throttling.yaml");
    PolicyResult plain = policy(result, "full-jitter");
    PolicyResult budget = policy(result, "full-jitter+budget");
    PolicyResult adaptive = policy(result, "full-jitter+adaptive");
    PolicyResult failing = policy(result, "full-jitter+adaptive:fail");
    // Documented: 2.11 against 1.00; 53 185 answers of 429 during the drop against 31.
    assertThat(plain.summary().amplification()).isGreaterThan(1.8);
    assertThat(adaptive.summary().amplification()).isBetween(0.95, 1.05);
    long plainThrottled = 0;
    long adaptiveThrottled = 0;
    for (int t = 60; t < 180; t++) {
      plainThrottled += plain.series().get(t).errors();
      adaptiveThrottled += adaptive.series().get(t).errors();
    }
    assertThat(adaptiveThrottled).isLessThan(plainThrottled / 100);
    assertThat(adaptive.summary().successRatio()).isGreaterThan(plain.summary().successRatio());
    assertThat(budget.summary().amplification()).isLessThan(plain.summary().amplification());
    assertThat(failing.limiterRefusedCalls()).isPositive();
    assertThat(failing.summary().amplification()).isLessThan(1.0);
    // Documented: the waiting limiter comes back 10 s after the capacity returns (33 s before reservations
    // were re-priced), its successes waiting up to 37 s at p99; failing fast comes back sooner (5 s).
    assertThat(adaptive.summary().verdict()).isEqualTo(RecoveryVerdict.RECOVERED);
    assertThat(adaptive.summary().recoverySeconds()).isLessThanOrEqualTo(15);
    assertThat(adaptive.summary().p99SuccessLatencySeconds()).isGreaterThan(10.0);
    assertThat(failing.summary().verdict().cameBack()).isTrue();
    assertThat(failing.summary().recoverySeconds()).isLessThan(adaptive.summary().recoverySeconds());
  }

  /**
   * Issue 30's criteria, on the default seed (docs/simulator.md gives 20 seeds): under a steady overload and
   * after a halving of capacity, the waiting limiter keeps goodput within 10% of the capacity with at most
   * 10% of plain retries' 429s (it delivered 3.5% and 41% of the capacity before the cold-start and
   * reservation fixes).
   */
  @Test
  void theAdaptiveLimiterHoldsGoodputNearCapacityWithAFractionOfTheThrottles() throws Exception {
    assertNearCapacity(run("throttling-steady.yaml"), 30, 130, 100);
    assertNearCapacity(run("throttling-halving.yaml"), 90, 180, 50);
  }

  private static void assertNearCapacity(SimulationResult result, int from, int to, double capacity) {
    PolicyResult plain = policy(result, "full-jitter");
    for (String name : new String[] {"full-jitter+adaptive", "full-jitter+adaptive:fail"}) {
      PolicyResult adaptive = policy(result, name);
      double goodput = 0;
      long plainThrottled = 0;
      long adaptiveThrottled = 0;
      for (int t = from; t < to; t++) {
        goodput += adaptive.series().get(t).goodput();
        plainThrottled += plain.series().get(t).errors();
        adaptiveThrottled += adaptive.series().get(t).errors();
      }
      assertThat(goodput / (to - from)).as(name + " goodput").isBetween(0.9 * capacity, capacity);
      assertThat(adaptiveThrottled).as(name + " 429s").isLessThanOrEqualTo(plainThrottled / 10);
    }
  }

  @Test
  void hedgingCutsTheTailAtLowLoad() throws Exception {
    SimulationResult result = run("hedging-tail.yaml");
    PolicyResult plain = policy(result, "full-jitter");
    PolicyResult hedged = policy(result, "full-jitter+hedge:100ms");
    // Documented: p99 239 ms against 161 ms, for 14% more attempts.
    assertThat(hedged.summary().p99SuccessLatencySeconds()).isLessThan(0.8 * plain.summary().p99SuccessLatencySeconds());
    assertThat(hedged.summary().amplification()).isLessThan(1.25);
    assertThat(hedged.hedgesWon()).isPositive();
  }

  @Test
  void hedgingAmplifiesOverloadNearCapacity() throws Exception {
    SimulationResult result = run("hedging-overload.yaml");
    PolicyResult plain = policy(result, "full-jitter");
    PolicyResult hedged = policy(result, "full-jitter+hedge:100ms");
    // Documented: amplification 1.99, success 73.8% and p99 717 ms against 1.00, 99.9% and 243 ms.
    assertThat(hedged.summary().amplification()).isGreaterThan(1.5);
    assertThat(hedged.summary().successRatio()).isLessThan(0.9 * plain.summary().successRatio());
    assertThat(hedged.summary().p99SuccessLatencySeconds()).isGreaterThan(2 * plain.summary().p99SuccessLatencySeconds());
    assertThat(hedged.summary().baselineGoodput()).isLessThan(0.85 * plain.summary().baselineGoodput());
  }
}
