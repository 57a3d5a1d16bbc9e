package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The simulator's +breaker policies: the core's real breaker on the virtual clock, its series and reports. */
class BreakerSimulationTest {
  private static final Map<String, Object> CRASH = Map.of("clients", 200, "think-mean", "2s", "duration", "200s",
      "faults", "crash@40s+100s", "policies", "full-jitter,full-jitter+breaker");

  private static SimulationResult run(Map<String, Object> base, Map<String, Object> more) {
    Map<String, Object> values = new java.util.LinkedHashMap<>(base);
    values.putAll(more);
    return Simulator.run(Scenario.of(values));
  }

  private static long attempts(PolicyResult policy, int from, int to) {
    long sum = 0;
    for (int t = from; t < to; t++) {
      sum += policy.series().get(t).attempts();
    }
    return sum;
  }

  @Test
  void aSharedBreakerStopsTheWasteWhileTheDependencyIsDownAndRecoversAfter() {
    SimulationResult result = run(CRASH, Map.of());
    PolicyResult plain = result.policies().get(0);
    PolicyResult breaker = result.policies().get(1);
    assertThat(plain.usesBreaker()).isFalse();
    assertThat(plain.protection()).isEmpty();
    assertThat(breaker.usesBreaker()).isTrue();
    // During the outage (after the first seconds) the plain policy keeps sending; the breaker sends only its
    // trial calls, one batch of 3 every 30 s.
    long plainDuring = attempts(plain, 45, 140);
    long breakerDuring = attempts(breaker, 45, 140);
    assertThat(plainDuring).isGreaterThan(1_500);
    assertThat(breakerDuring).isLessThan(plainDuring / 50);
    assertThat(breaker.refusedCalls()).isGreaterThan(5_000);
    List<Protection> series = breaker.protection();
    for (int t = 0; t < 40; t++) {
      assertThat(series.get(t).breakerOpen()).as("second %d", t).isZero();
      assertThat(series.get(t).refused()).as("second %d", t).isZero();
    }
    for (int t = 45; t < 140; t++) {
      assertThat(series.get(t).breakerOpen() + series.get(t).breakerHalfOpen()).as("second %d", t)
          .isGreaterThan(0.99).isLessThanOrEqualTo(1.0 + 1e-9);
    }
    // The dependency returns at 140 s: within one wait in open (30 s) a trial succeeds and the breaker closes.
    for (int t = 175; t < 200; t++) {
      assertThat(series.get(t).breakerOpen()).as("second %d", t).isZero();
    }
    // It comes back, at most one wait in open (30 s) after the dependency did.
    assertThat(breaker.summary().verdict().cameBack()).isTrue();
    assertThat(breaker.summary().recoverySeconds()).isLessThanOrEqualTo(31);
    assertThat(breaker.summary().amplification()).isLessThan(plain.summary().amplification());
  }

  @Test
  void perClientBreakersAreAFractionOfTheFleet() {
    SimulationResult result = run(CRASH, Map.of("breaker-scope", "per-client", "policies", "full-jitter+breaker"));
    PolicyResult breaker = result.policies().get(0);
    List<Protection> series = breaker.protection();
    for (Protection second : series) {
      assertThat(second.breakerOpen()).isBetween(0.0, 1.0);
      assertThat(second.breakerHalfOpen()).isBetween(0.0, 1.0);
    }
    // Each client must see 20 of its own calls fail before its breaker opens: a fraction of the fleet at first.
    assertThat(series.get(41).breakerOpen()).isLessThan(0.5);
    assertThat(series.get(120).breakerOpen()).isGreaterThan(0.9);
    // Two hundred breakers probe on their own, so they send more than one shared breaker's trials.
    PolicyResult shared = run(CRASH, Map.of("policies", "full-jitter+breaker")).policies().get(0);
    assertThat(attempts(breaker, 45, 140)).isGreaterThan(attempts(shared, 45, 140));
  }

  @Test
  void theMemoryEstimateBoundsWhatAClientsOwnBreakerAllocates() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    for (String policy : List.of("fixed+breaker", "fixed+breaker:50%:1000", "fixed+breaker:50%:10s")) {
      Scenario without = Scenario.of(Map.of("clients", 20_000, "duration", "1s", "faults", "none",
          "policies", "fixed"));
      Scenario with = Scenario.of(Map.of("clients", 20_000, "duration", "1s", "faults", "none",
          "policies", policy, "breaker-scope", "per-client"));
      new Simulation(with, with.policies.get(0)).start(); // warm up
      long start = threads.getCurrentThreadAllocatedBytes();
      new Simulation(without, without.policies.get(0)).start();
      long middle = threads.getCurrentThreadAllocatedBytes();
      new Simulation(with, with.policies.get(0)).start();
      long end = threads.getCurrentThreadAllocatedBytes();
      double perClient = ((end - middle) - (middle - start)) / 20_000.0;
      long estimate = MemoryEstimate.breakerBytes(with.policies.get(0));
      assertThat(perClient).as(policy).isLessThanOrEqualTo(estimate).isGreaterThan(estimate / 2.0);
      assertThat(MemoryEstimate.estimate(with, with.policies.get(0))[0]
          - MemoryEstimate.estimate(without, without.policies.get(0))[0]).isEqualTo(20_000 * estimate);
    }
  }

  @Test
  void perClientBreakersNeedClosedLoopClients() {
    assertThatThrownBy(() -> Scenario.of(Map.of("client", "open", "breaker-scope", "per-client",
        "policies", "fixed+breaker")))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("breaker-scope: per-client breakers need the closed client model (an open-loop arrival is one "
            + "request, not a client that keeps a breaker); use breaker-scope: shared");
  }

  @Test
  void theSameSeedGivesTheSameBytes() {
    for (String scope : List.of("shared", "per-client")) {
      Map<String, Object> more = Map.of("breaker-scope", scope, "duration", "120s", "faults", "crash@30s+40s");
      String first = Output.json(run(CRASH, more)) + Output.csv(run(CRASH, more));
      String second = Output.json(run(CRASH, more)) + Output.csv(run(CRASH, more));
      assertThat(first).isEqualTo(second);
    }
  }

  @Test
  void reportsShowTheBreakerOnlyForPoliciesThatHaveOne() {
    SimulationResult result = run(CRASH, Map.of("duration", "120s", "faults", "crash@30s+40s"));
    String table = Output.summaryTable(result);
    assertThat(table.lines().findFirst().orElseThrow()).endsWith("  refused");
    assertThat(table.lines().skip(2).findFirst().orElseThrow()).startsWith("full-jitter ").endsWith("  -");
    assertThat(table.lines().skip(3).findFirst().orElseThrow())
        .endsWith("  " + result.policies().get(1).refusedCalls());
    String json = Output.json(result);
    assertThat(json).contains("\"breakerOpen\"").contains("\"refused\"");
    String csv = Output.csv(result);
    assertThat(csv.lines().findFirst().orElseThrow()).endsWith(",budgetLevel,breakerOpen,breakerHalfOpen,refused,"
        + "limiterFillRate,limiterWaits,limiterRefused,hedgesSent,hedgesInFlight,hedgesWon");
    assertThat(csv.lines().skip(1).findFirst().orElseThrow()).endsWith(",,,,,,,,,");
    assertThat(Output.summaryCsv(result).lines().findFirst().orElseThrow()).endsWith(
        ",attempts,unfinishedRequests,verdictReason,refused");
    String timeline = Output.timeline(result);
    assertThat(timeline).contains("| breaker open: 100%, half-open: 0%, refused: ");
    assertThat(HtmlReport.simulation(result)).contains("\"breakerOpen\":[").contains("Circuit breaker: fraction of time open");

    SimulationResult plain = run(CRASH, Map.of("duration", "120s", "faults", "crash@30s+40s",
        "policies", "full-jitter"));
    assertThat(Output.summaryTable(plain)).doesNotContain("refused");
    assertThat(Output.json(plain)).doesNotContain("breaker").doesNotContain("refused");
    assertThat(Output.csv(plain)).doesNotContain("breaker");
    assertThat(Output.timeline(plain)).doesNotContain("breaker");
    assertThat(HtmlReport.simulation(plain)).doesNotContain("\"breakerOpen\"");
  }

  @Test
  void theTippingPointScanRunsBreakerPolicies() throws Exception {
    Scenario scenario = Scenario.of(Map.of("clients", 200, "duration", "200s", "faults", "pause@40s+10s",
        "policies", "storm-fixed+breaker"));
    TippingPoints.Scan scan = TippingPoints.scan(scenario, 1, 20, 8, 1, null);
    assertThat(scan.policies()).hasSize(1);
    assertThat(scan.policies().get(0).policy()).isEqualTo("storm-fixed+breaker");
  }
}
