package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * The simulator's +concurrency policies: the core's ConcurrencyLimiter on the virtual clock, one per run, asked
 * by the call state machine's gate before every attempt; its refusals (first attempts apart from retries and
 * hedges) in the series and reports.
 */
class ConcurrencySimulationTest {
  /** Open-loop 200 req/s against a pool of 100 req/s (10 workers, 100 ms) answering 429 above a queue of 10. */
  private static final Map<String, Object> OVERLOAD = Map.ofEntries(Map.entry("client", "open"),
      Map.entry("rate", 200), Map.entry("server", "pool"), Map.entry("workers", 10), Map.entry("queue-size", 10),
      Map.entry("service-time", "100ms"), Map.entry("reject-status", 429), Map.entry("timeout", "2s"),
      Map.entry("duration", "60s"), Map.entry("faults", "none"), Map.entry("max-attempts", 5));

  private static SimulationResult run(Map<String, Object> base, Map<String, Object> more) {
    Map<String, Object> values = new LinkedHashMap<>(base);
    values.putAll(more);
    return Simulator.run(Scenario.of(values));
  }

  private static long sum(PolicyResult policy, ToLongFunction<Second> field) {
    return policy.series().stream().mapToLong(field).sum();
  }

  private static double goodputFrom(PolicyResult policy, int from) {
    return policy.series().stream().filter(s -> s.t() >= from).mapToLong(Second::goodput).average().orElseThrow();
  }

  @Test
  void underSteadyOverloadTheLimiterHoldsGoodputNearCapacityWithFewThrottles() {
    SimulationResult result = run(OVERLOAD,
        Map.of("policies", "full-jitter,full-jitter+concurrency,full-jitter+concurrency:aimd"));
    PolicyResult plain = result.policies().get(0);
    long plainThrottles = sum(plain, Second::errors);
    assertThat(plain.usesConcurrencyLimiter()).isFalse();
    assertThat(plain.protection()).isEmpty();
    for (PolicyResult limited : result.policies().subList(1, 3)) {
      assertThat(limited.usesConcurrencyLimiter()).isTrue();
      assertThat(goodputFrom(limited, 10)).as(limited.name()).isGreaterThanOrEqualTo(90);
      assertThat(sum(limited, Second::errors)).as(limited.name()).isLessThanOrEqualTo(plainThrottles / 10);
      assertThat(limited.summary().attempts()).isLessThan(plain.summary().attempts());
      // Each refused first attempt ends its call at once: it is among the calls given up.
      assertThat(limited.concurrencyRefusedFirst()).isPositive()
          .isLessThanOrEqualTo(sum(limited, Second::gaveUp));
      for (Protection second : limited.protection()) {
        assertThat(second.concurrencyLimit()).isBetween(1, 1000);
      }
    }
  }

  @Test
  void retriesAreShedBeforeFirstAttempts() {
    PolicyResult limited = run(OVERLOAD, Map.of("policies", "full-jitter+concurrency:fixed=30")).policies().get(0);
    // The share of the retries that fell due which the limiter refused, against the share of first attempts.
    double retriesShed = (double) limited.concurrencyRefusedRetries() / sum(limited, Second::retries);
    double firstShed = (double) limited.concurrencyRefusedFirst() / sum(limited, Second::newRequests);
    assertThat(limited.concurrencyRefusedRetries()).isPositive();
    assertThat(retriesShed).isGreaterThan(firstShed);
  }

  @Test
  void aRefusedHedgeCountsWithTheRetries() {
    Map<String, Object> pool = Map.of("client", "open", "rate", 340, "server", "pool", "workers", 20,
        "queue-size", 200, "service-time", "50ms", "service-distribution", "exponential", "duration", "30s",
        "faults", "none", "max-attempts", 3);
    SimulationResult result = run(pool, Map.of("policies", "full-jitter+hedge:100ms,full-jitter+hedge:100ms+concurrency:fixed=20"));
    PolicyResult hedged = result.policies().get(0);
    PolicyResult limited = result.policies().get(1);
    assertThat(limited.concurrencyRefusedRetries()).isPositive();
    assertThat(limited.hedgesSent()).isLessThan(hedged.hedgesSent());
  }

  @Test
  void theSameSeedGivesTheSameBytesAndTheReportsShowTheRefusals() {
    Map<String, Object> more = Map.of("duration", "30s", "policies", "full-jitter,full-jitter+concurrency");
    SimulationResult result = run(OVERLOAD, more);
    assertThat(Output.json(result)).isEqualTo(Output.json(run(OVERLOAD, more)));
    assertThat(Output.csv(result)).isEqualTo(Output.csv(run(OVERLOAD, more)));
    PolicyResult limited = result.policies().get(1);
    String table = Output.summaryTable(result);
    assertThat(table.lines().findFirst().orElseThrow()).endsWith("  conc. shed first/retry");
    assertThat(table).contains(limited.concurrencyRefusedFirst() + "/" + limited.concurrencyRefusedRetries());
    assertThat(Output.csv(result).lines().findFirst().orElseThrow())
        .endsWith(",hedgesWon,concurrencyLimit,concurrencyRefusedFirst,concurrencyRefusedRetries");
    assertThat(Output.summaryCsv(result).lines().findFirst().orElseThrow())
        .endsWith(",verdictReason,concurrencyRefusedFirst,concurrencyRefusedRetries");
    assertThat(Output.summaryCsv(result)).contains(
        "," + limited.concurrencyRefusedFirst() + "," + limited.concurrencyRefusedRetries() + "\n");
    assertThat(Output.json(result)).contains("\"concurrencyRefusedFirst\":" + limited.concurrencyRefusedFirst(),
        "\"concurrencyRefusedRetries\":" + limited.concurrencyRefusedRetries(), "\"concurrencyLimit\":");
    assertThat(Output.timeline(result)).contains("| concurrency limit: ");
    assertThat(HtmlReport.simulation(result)).contains("Concurrency limiter: limit", "\"concurrencyLimit\":[");
  }
}
