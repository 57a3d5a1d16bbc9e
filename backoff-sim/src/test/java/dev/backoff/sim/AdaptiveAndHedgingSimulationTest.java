package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The simulator's +adaptive and +hedge policies: the core's AdaptiveRateLimiter and hedging steps on the
 * virtual clock, their series and reports.
 */
class AdaptiveAndHedgingSimulationTest {
  private static final Map<String, Object> POOL = Map.of("client", "open", "server", "pool", "workers", 20,
      "queue-size", 200, "service-time", "50ms", "service-distribution", "exponential", "duration", "60s",
      "faults", "none");
  private static final Map<String, Object> THROTTLING = Map.ofEntries(Map.entry("clients", 500),
      Map.entry("think-mean", "5s"), Map.entry("server", "pool"), Map.entry("workers", 20),
      Map.entry("queue-size", 20), Map.entry("service-time", "100ms"),
      Map.entry("service-distribution", "exponential"), Map.entry("reject-status", 429),
      Map.entry("duration", "120s"), Map.entry("faults", "capacity@30s+40s:0.3"), Map.entry("max-attempts", 5));

  private static SimulationResult run(Map<String, Object> base, Map<String, Object> more) {
    Map<String, Object> values = new LinkedHashMap<>(base);
    values.putAll(more);
    return Simulator.run(Scenario.of(values));
  }

  private static long sum(PolicyResult policy, java.util.function.ToLongFunction<Second> field) {
    return policy.series().stream().mapToLong(field).sum();
  }

  @Test
  void hedgingCutsTheTailAtLowLoadAndEveryAttemptIsAFirstAttemptOrAHedge() {
    SimulationResult result = run(POOL, Map.of("rate", 50, "policies", "full-jitter,full-jitter+hedge:100ms:2"));
    PolicyResult plain = result.policies().get(0);
    PolicyResult hedged = result.policies().get(1);
    assertThat(hedged.usesHedging()).isTrue();
    assertThat(hedged.summary().p99SuccessLatencySeconds()).isLessThan(plain.summary().p99SuccessLatencySeconds());
    assertThat(hedged.hedgesSent()).isPositive();
    assertThat(hedged.hedgesWon()).isPositive().isLessThanOrEqualTo(hedged.hedgesSent());
    // No backoff retries in a hedged call: its attempts are the first ones and the hedges, exactly.
    assertThat(sum(hedged, Second::retries)).isZero();
    assertThat(hedged.summary().attempts()).isEqualTo(hedged.summary().logicalRequests() + hedged.hedgesSent());
    assertThat(hedged.summary().amplification()).isBetween(1.0, 3.0);
    for (Protection second : hedged.protection()) {
      assertThat(second.hedgesInFlight()).isBetween(0, 2 * 200); // at most 2 hedges per call in the pool
      assertThat(second.hedgesWon()).isLessThanOrEqualTo(second.hedgesSent() + 100); // won ones may be older
    }
  }

  @Test
  void hedgingAmplifiesOverloadNearCapacity() {
    SimulationResult result = run(POOL, Map.of("rate", 340, "max-attempts", 3,
        "policies", "full-jitter,full-jitter+hedge:100ms"));
    PolicyResult plain = result.policies().get(0);
    PolicyResult hedged = result.policies().get(1);
    assertThat(hedged.summary().amplification()).isGreaterThan(1.5);
    assertThat(hedged.summary().successRatio()).isLessThan(plain.summary().successRatio());
    assertThat(hedged.summary().p99SuccessLatencySeconds()).isGreaterThan(plain.summary().p99SuccessLatencySeconds());
  }

  @Test
  void anAdaptiveDelayFollowsALatencyShiftWhereAFixedOneFloodsTheServer() {
    // docs/scenarios/hedging-adaptive-shift.yaml for one seed: 200 ms more per request from 20 s to 50 s.
    SimulationResult result = run(POOL, Map.of("rate", 50, "max-attempts", 3, "duration", "70s",
        "faults", "latency@20s+30s:200ms", "policies", "full-jitter+hedge:150ms,full-jitter+hedge:p95"));
    PolicyResult fixed = result.policies().get(0);
    PolicyResult adaptive = result.policies().get(1);
    long fixedGood = 0;
    long adaptiveGood = 0;
    long started = 0;
    for (int t = 30; t < 50; t++) { // the shift's second part: the queue has had 10 s to fill
      fixedGood += fixed.series().get(t).goodput();
      adaptiveGood += adaptive.series().get(t).goodput();
      started += adaptive.series().get(t).newRequests();
    }
    assertThat(adaptiveGood).as("the adaptive delay serves the offered load").isGreaterThan(started * 9 / 10);
    assertThat(fixedGood).as("every call hedges at 150 ms: the server cannot keep up").isLessThan(adaptiveGood / 2);
    // The cap: at most 5 hedges per 100 calls over the run.
    assertThat(adaptive.hedgesSent()).isLessThanOrEqualTo(adaptive.summary().logicalRequests() / 20);
    assertThat(adaptive.hedgesSent()).isPositive();
    assertThat(fixed.summary().amplification()).isGreaterThan(1.2);
  }

  @Test
  void theAdaptiveLimiterLearnsFromThrottlesAndKeepsAmplificationNearOne() {
    SimulationResult result = run(THROTTLING, Map.of("policies", "full-jitter,full-jitter+adaptive,full-jitter+adaptive:fail"));
    PolicyResult plain = result.policies().get(0);
    PolicyResult waiting = result.policies().get(1);
    PolicyResult failing = result.policies().get(2);
    assertThat(waiting.usesAdaptive()).isTrue();
    List<Protection> series = waiting.protection();
    for (int t = 0; t < 30; t++) {
      assertThat(series.get(t).limiterFillRate()).as("second %d: off before the first throttle", t).isZero();
    }
    assertThat(series.get(40).limiterFillRate()).isPositive();
    assertThat(waiting.limiterWaits()).isPositive();
    assertThat(waiting.limiterRefusedCalls()).isZero();
    assertThat(plain.summary().amplification()).isGreaterThan(1.5);
    // Near 1: throttled requests wait for a token instead of retrying (below 1 by the requests still waiting
    // for theirs when the run ends, started but not yet sent).
    assertThat(waiting.summary().amplification()).isBetween(0.9, 1.1);
    // Failing fast refuses calls instead of waiting: no attempt for them, so below 1.
    assertThat(failing.limiterRefusedCalls()).isPositive();
    assertThat(failing.summary().amplification()).isLessThan(1.0);
  }

  @Test
  void theSameSeedGivesTheSameBytes() {
    for (Map<String, Object> run : List.of(
        Map.<String, Object>of("rate", 100, "policies", "full-jitter+hedge:50ms:2+budget+breaker"),
        Map.<String, Object>of("policies", "full-jitter+adaptive+breaker,full-jitter+adaptive:200ms"))) {
      Map<String, Object> base = run.containsKey("rate") ? POOL : THROTTLING;
      String first = Output.json(run(base, run)) + Output.csv(run(base, run));
      String second = Output.json(run(base, run)) + Output.csv(run(base, run));
      assertThat(first).isEqualTo(second);
    }
  }

  @Test
  void reportsShowEachMechanismOnlyForItsPolicies() {
    SimulationResult result = run(THROTTLING, Map.of("duration", "60s", "faults", "capacity@20s+20s:0.3",
        "policies", "full-jitter,full-jitter+adaptive:fail,full-jitter+hedge:1s"));
    String table = Output.summaryTable(result);
    assertThat(table.lines().findFirst().orElseThrow()).endsWith("  refused  hedges (won)");
    PolicyResult failing = result.policies().get(1);
    PolicyResult hedged = result.policies().get(2);
    assertThat(table).contains("  " + failing.limiterRefusedCalls() + "             -")
        .contains("  " + hedged.hedgesSent() + " (" + hedged.hedgesWon() + ")");
    String json = Output.json(result);
    assertThat(json).contains("\"limiterFillRate\"", "\"limiterWaits\"", "\"limiterRefused\"", "\"hedgesSent\"",
        "\"hedgesInFlight\"", "\"hedgesWon\"").doesNotContain("breakerOpen");
    assertThat(Output.summaryCsv(result).lines().findFirst().orElseThrow()).endsWith(
        ",attempts,unfinishedRequests,verdictReason,refused,hedgesSent,hedgesWon");
    String timeline = Output.timeline(result);
    assertThat(timeline).contains("| limiter: off, waits: 0.00 req/sec, refused: 0.00 req/sec")
        .contains("| hedges: ");
    String html = HtmlReport.simulation(result);
    assertThat(html).contains("Adaptive limiter: fill rate", "Hedges in flight", "\"limiterFillRate\":[");
  }

  @Test
  void combinationsTheSimulatorDoesNotModelAreRefused() {
    assertThatThrownBy(() -> Scenario.of(Map.of("policies", "fixed+adaptive+hedge:50ms")))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("policies: policy 'fixed+adaptive+hedge:50ms': the simulator runs +adaptive or +hedge, not both "
            + "in one policy (a hedge waiting for the limiter's token is not modelled)");
    assertThatThrownBy(() -> Scenario.of(Map.of("max-attempts", 2, "policies", "fixed+hedge:50ms:2")))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("max-attempts: policy 'fixed+hedge:50ms:2': hedging maxHedges(2) needs maxAttempts of "
            + "at least 3");
  }
}
