package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.driver.CallState;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulatorTest {

  private static final Scenario SMALL = Scenario.of(Map.of("clients", 200, "duration", "120s",
      "faults", "pause@30s+10s", "policies", "fixed,storm-exponential,full-jitter:100ms:20s+budget"));

  @Test
  void aCrashInAPoolOrAPollingServerGivesTheSameOutputOnEveryRun() {
    // Both fail the requests they serve in the order those started; they once iterated an identity hash
    // set, whose order changed from run to run.
    for (Map<String, ?> model : List.of(
        Map.of("server", "pool", "workers", 8, "queue-size", 50, "queue-order", "lifo"),
        Map.of("recheck", "50ms"))) {
      Scenario scenario = Scenario.of(Map.of("clients", 400, "duration", "90s",
          "faults", "pause@20s+10s,crash@40s+3s,crash@60s+2s")).with(model);
      String first = Output.json(Simulator.run(scenario));
      for (int run = 0; run < 3; run++) {
        assertThat(Output.json(Simulator.run(scenario))).as(model.toString()).isEqualTo(first);
      }
    }
  }

  @Test
  void theDefaultScenarioShowsTheSeedsResult() {
    SimulationResult result = Simulator.run(Scenario.defaults());
    Map<String, Summary> byName = new java.util.HashMap<>();
    for (PolicyResult policy : result.policies()) {
      byName.put(policy.name(), policy.summary());
    }
    assertThat(byName.keySet()).containsExactlyInAnyOrder("storm-fixed", "storm-exponential",
        "storm-exponential-full-jitter", "storm-exponential-full-jitter+budget");
    Summary fixed = byName.get("storm-fixed");
    Summary exponential = byName.get("storm-exponential");
    assertThat(fixed.baselineGoodput()).isBetween(90.0, 110.0); // ~99 req/s, as the seed's client prints
    assertThat(fixed.recovered()).isFalse();
    assertThat(fixed.recoverySeconds()).isNull();
    assertThat(fixed.goodputAfterFault()).isLessThan(5.0);
    assertThat(fixed.peakConcurrency()).isGreaterThan(2231); // the seed saw 1040, 1599, 1925, 2231, ...
    assertThat(exponential.recovered()).isTrue();
    assertThat(exponential.recoverySeconds()).isNotNull().isLessThan(60);
    assertThat(byName.get("storm-exponential-full-jitter").recovered()).isTrue();
    assertThat(byName.get("storm-exponential-full-jitter+budget").recovered()).isTrue();
    assertThat(fixed.amplification()).isGreaterThan(5 * exponential.amplification());
  }

  @Test
  void sameSeedGivesIdenticalBytesAndAnotherSeedDiffers() {
    String first = Output.json(Simulator.run(SMALL));
    String again = Output.json(Simulator.run(SMALL));
    String other = Output.json(Simulator.run(SMALL.with("seed", 4)));
    assertThat(again).isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
    assertThat(Output.csv(Simulator.run(SMALL))).isEqualTo(Output.csv(Simulator.run(SMALL)));
  }

  @Test
  void policiesShareClientRandomStreamsUntilTheFaultSoBaselinesMatch() {
    List<PolicyResult> policies = Simulator.run(SMALL).policies();
    for (PolicyResult policy : policies) {
      // Before the fault no request fails, so every policy sees exactly the same think times.
      assertThat(policy.series().subList(0, 30)).isEqualTo(policies.get(0).series().subList(0, 30)
          .stream().map(s -> new Second(s.t(), s.newRequests(), s.attempts(), s.goodput(), s.errors(), s.timeouts(),
              s.retries(), s.gaveUp(), s.concurrency(), s.peakConcurrency(), s.latencySeconds(), s.clientP50Seconds(),
              s.clientP99Seconds(), policy.series().get(s.t()).budgetLevel())).toList());
    }
  }

  @Test
  void closedLoopClientsNeverHaveTwoRequestsInFlight() {
    for (PolicyResult policy : Simulator.run(SMALL).policies()) {
      long sent = 0;
      long ended = 0;
      for (Second s : policy.series()) {
        sent += s.attempts();
        ended += s.goodput() + s.errors() + s.timeouts();
        assertThat(sent - ended).as("attempts in flight at %ss for %s", s.t(), policy.name()).isBetween(0L, 200L);
      }
    }
  }

  @Test
  void countersAreConsistent() {
    for (PolicyResult policy : Simulator.run(SMALL).policies()) {
      long attempts = 0;
      long newRequests = 0;
      long retries = 0;
      for (Second s : policy.series()) {
        attempts += s.attempts();
        newRequests += s.newRequests();
        retries += s.retries();
      }
      Summary summary = policy.summary();
      assertThat(summary.attempts()).isEqualTo(attempts);
      assertThat(summary.logicalRequests()).isEqualTo(newRequests);
      // Every attempt is a first attempt or a scheduled retry (a retry scheduled near the end may not be sent).
      assertThat(attempts).isBetween(newRequests + retries - 200, newRequests + retries);
      assertThat(summary.amplification()).isEqualTo((double) attempts / newRequests);
    }
  }

  @Test
  void aPausedServerTimesOutEveryAttemptAtTheClientTimeout() {
    // 10 clients, server paused from 1 s to the end, fixed 100 ms retries: each client sends every 2.1 s.
    Scenario scenario = Scenario.of(Map.of("clients", 10, "think-mean", "1ms", "duration", "60s",
        "faults", "pause@1s+59s", "policies", "fixed", "backlog", 0));
    PolicyResult fixed = Simulator.run(scenario).policies().get(0);
    long timeouts = fixed.series().stream().mapToLong(Second::timeouts).sum();
    // From about 1 s to 60 s: 10 clients × 59 s / 2.1 s ≈ 281 timeouts.
    assertThat(timeouts).isBetween(270L, 290L);
    assertThat(fixed.series().get(30).goodput()).isZero();
  }

  @Test
  void aCrashGivesImmediateErrorsAndFixedRetriesEvery100Milliseconds() {
    Scenario scenario = Scenario.of(Map.of("clients", 10, "think-mean", "1ms", "duration", "60s",
        "faults", "crash@10s+20s", "policies", "storm-fixed"));
    PolicyResult fixed = Simulator.run(scenario).policies().get(0);
    // During the crash each client is refused (known after 1 ms) and retries after 100 ms: 1000/101 errors
    // per second each.
    assertThat(fixed.series().get(15).errors()).isBetween(98L, 100L);
    assertThat(fixed.series().get(15).timeouts()).isZero();
    assertThat(fixed.summary().recovered()).isTrue();
  }

  @Test
  void aPolicyWithoutBackoffAgainstRefusedConnectionsStillAdvancesTime() {
    Scenario scenario = Scenario.of(Map.of("clients", 5, "think-mean", "1ms", "duration", "20s",
        "faults", "crash@10s+5s", "policies", "none", "max-attempts", "unlimited"));
    PolicyResult none = Simulator.run(scenario).policies().get(0);
    assertThat(none.series().get(12).errors()).isEqualTo(5 * 1000); // one refusal per client per millisecond
    assertThat(none.summary().recovered()).isFalse();
    assertThat(none.summary().verdict()).isEqualTo(RecoveryVerdict.NOT_OBSERVED); // too little run left after the crash to tell
  }

  @Test
  void budgetStopsRetriesAndItsLevelIsReported() {
    PolicyResult budgeted = Simulator.run(SMALL).policies().get(2);
    assertThat(budgeted.series().get(10).budgetLevel()).isEqualTo(500.0);
    double lowest = budgeted.series().stream().mapToDouble(Second::budgetLevel).min().orElseThrow();
    assertThat(lowest).isLessThan(50.0);
    assertThat(budgeted.series().stream().mapToLong(Second::gaveUp).sum()).isPositive();
    assertThat(Simulator.run(SMALL).policies().get(0).series().get(10).budgetLevel()).isNaN();
  }

  @Test
  void everyBudgetKindRunsOnTheVirtualClockAndRefusesRetriesInTheStorm() {
    for (String budget : List.of("ratio:0.1:1:10s", "grpc:10:0.1", "token-bucket:100:5:10")) {
      // 200 clients make ~20 req/s: the recovery window stretches to 1600/20 = 80 s, so run 200 s.
      PolicyResult result = Simulator.run(SMALL.with(Map.of("budget", budget, "policies", "fixed+budget",
          "duration", "200s")))
          .policies().get(0);
      assertThat(result.series().stream().mapToLong(Second::gaveUp).sum()).as(budget).isPositive();
      assertThat(result.summary().recovered()).as(budget).isTrue();
    }
  }

  @Test
  void openLoopArrivalsFollowTheRateProfile() {
    Scenario scenario = Scenario.of(Map.of("client", "open", "rate", 200, "rate-profile", "step", "rate-peak", 50,
        "rate-at", "50s", "duration", "100s", "faults", "none", "policies", "fixed"));
    PolicyResult result = Simulator.run(scenario).policies().get(0);
    long before = result.series().subList(0, 50).stream().mapToLong(Second::newRequests).sum();
    long after = result.series().subList(50, 100).stream().mapToLong(Second::newRequests).sum();
    // Poisson: 10000 ± 100 and 2500 ± 50; allow five standard deviations.
    assertThat(before).isBetween(9500L, 10500L);
    assertThat(after).isBetween(2250L, 2750L);
    assertThat(result.summary().amplification()).isEqualTo(1.0);
  }

  @Test
  void rampProfileInterpolatesLinearly() {
    Scenario scenario = Scenario.of(Map.of("client", "open", "rate", 0, "rate-profile", "ramp", "rate-peak", 100,
        "rate-at", "0s", "rate-length", "100s", "duration", "100s", "faults", "none", "policies", "fixed"));
    assertThat(scenario.rateProfile.rateAt(25_000_000_000L)).isEqualTo(25.0);
    PolicyResult result = Simulator.run(scenario).policies().get(0);
    long firstHalf = result.series().subList(0, 50).stream().mapToLong(Second::newRequests).sum();
    long secondHalf = result.series().subList(50, 100).stream().mapToLong(Second::newRequests).sum();
    // Expected 1250 and 3750.
    assertThat(firstHalf).isBetween(1075L, 1425L);
    assertThat(secondHalf).isBetween(3450L, 4050L);
  }

  @Test
  void poolServerWithRetryAfterFeedsThePushbackHint() {
    Scenario scenario = Scenario.of(Map.of("server", "pool", "workers", 1, "queue-size", 0, "service-time", "1s",
        "retry-after", "5s", "clients", 2, "think-mean", "1ms", "duration", "30s", "faults", "none",
        "policies", "fixed"));
    PolicyResult result = Simulator.run(scenario).policies().get(0);
    // One client is served per second; the other is shed and, told to wait 5 s (not 100 ms), retries rarely.
    long errors = result.series().stream().mapToLong(Second::errors).sum();
    assertThat(errors).isBetween(1L, 10L);
  }

  @Test
  void firstRetryQuirkWaitsETimesTheThinkTime() {
    dev.backoff.RetryPolicy<Object> base = PolicySpec.parse("exponential-original", false).build(Integer.MAX_VALUE, null);
    dev.backoff.RetryPolicy<Object> quirk = PolicySpec.withFirstRetryAfter(base, 10_000_000_000L);
    CallState<Object> execution = Engine.newExecution(quirk, 0, new SplitMix64(7));
    long first = Engine.record(execution, null, PolicySpec.TIMEOUT, Verdict.RETRYABLE, 2_000_000_000L).delayNanos();
    // e × 10 s = 27.18 s, gaussian jitter of 0.1 truncated at 3 deviations.
    assertThat(first / 1e9).isBetween(27.18 * 0.7, 27.18 * 1.3);
    long second = Engine.record(execution, null, PolicySpec.TIMEOUT, Verdict.RETRYABLE, 40_000_000_000L).delayNanos();
    assertThat(second / 1e9).isBetween(73.89 * 0.7, 73.89 * 1.3);
    // The textbook policy starts at 100 ms.
    long textbook = Engine.record(Engine.newExecution(base, 0, new SplitMix64(7)), null, PolicySpec.TIMEOUT,
        Verdict.RETRYABLE, 0).delayNanos();
    assertThat(textbook / 1e6).isBetween(70.0, 130.0);
  }

  @Test
  void exactCurrentModeAndFiftyMillisecondPollingAgreeOnTheOutcome() {
    // Polling costs an event per request in service every 50 ms, so a storm is expensive: keep it short.
    Scenario exact = Scenario.defaults().with(Map.of("policies", "storm-fixed,storm-exponential", "duration", "90s",
        "faults", "pause@20s+20s", "recovery-window", "5s"));
    Scenario polling = exact.with("recheck", "50ms");
    List<PolicyResult> a = Simulator.run(exact).policies();
    List<PolicyResult> b = Simulator.run(polling).policies();
    assertThat(a.get(0).summary().recovered()).isFalse();
    assertThat(a.get(1).summary().recovered()).isTrue();
    for (int i = 0; i < a.size(); i++) {
      assertThat(b.get(i).summary().recovered()).as(a.get(i).name()).isEqualTo(a.get(i).summary().recovered());
    }
  }
}
