package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The concurrency limiter's scenario files under docs/scenarios give what docs/storm-protection.md reports
 * over 20 seeds (`backoff simulate --seeds 20`), checked here on seeds 1 to 3 for time: each +concurrency policy
 * holds goodput within 10% of the server's capacity during the overload (or of the offered load after the
 * pause), sheds a larger share of the retries that fall due than of the first attempts, and is back at 90% of
 * the offered load after the fault. Seeded, so deterministic; a few seconds per scenario: tagged slow.
 */
@Tag("slow")
class ConcurrencyScenariosTest {
  private static final Path SCENARIOS = Path.of("..", "docs", "scenarios");

  private static double meanGoodput(PolicyResult policy, int from, int to) {
    return policy.series().subList(from, to).stream().mapToLong(Second::goodput).average().orElseThrow();
  }

  private static long sum(PolicyResult policy, java.util.function.ToLongFunction<Second> field) {
    return policy.series().stream().mapToLong(field).sum();
  }

  @ParameterizedTest
  @CsvSource({
      // file, policy, overload window, its capacity (/s), after-fault window, the offered load there (/s)
      "concurrency-steady.yaml, full-jitter+concurrency, 30, 130, 100, 140, 240, 80",
      "concurrency-steady.yaml, full-jitter+concurrency:aimd, 30, 130, 100, 140, 240, 80",
      "concurrency-halving.yaml, full-jitter+concurrency, 90, 180, 50, 190, 300, 70",
      "concurrency-halving.yaml, full-jitter+concurrency:aimd, 90, 180, 50, 190, 300, 70",
      "concurrency-storm.yaml, storm-exponential-full-jitter+concurrency, 100, 160, 99, 100, 400, 99",
      "concurrency-storm.yaml, storm-exponential-full-jitter+concurrency:aimd, 100, 160, 99, 100, 400, 99"})
  void theLimiterHoldsGoodputShedsRetriesFirstAndRecovers(String file, String policy, int from, int to,
      double capacity, int afterFrom, int afterTo, double offered) throws Exception {
    Scenario scenario = ScenarioFiles.read(SCENARIOS.resolve(file)).with("policies", policy);
    for (long seed = 1; seed <= 3; seed++) {
      PolicyResult run = Simulator.run(scenario.with("seed", seed)).policies().get(0);
      String label = policy + " seed " + seed;
      assertThat(meanGoodput(run, from, to)).as(label).isGreaterThanOrEqualTo(0.9 * capacity);
      assertThat(meanGoodput(run, afterFrom, afterTo)).as(label).isGreaterThanOrEqualTo(0.9 * offered);
      double retriesShed = (double) run.concurrencyRefusedRetries() / Math.max(1, sum(run, Second::retries));
      double firstShed = (double) run.concurrencyRefusedFirst() / sum(run, Second::newRequests);
      assertThat(retriesShed).as(label).isGreaterThan(firstShed);
    }
  }
}
