package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProtectionSummaryTest {
  private static final Scenario POOL = Scenario.of(Map.of("duration", "40s", "client", "open", "rate", 80,
      "server", "pool", "workers", 10, "service-time", "100ms",
      "faults", "capacity@10s+10s:0.5,latency@30s+2s:100ms", "policies", "full-jitter"));

  @Test
  void aPoolsCapacityIsItsWorkersLeftOverItsServiceTimeAtEachSecondsMiddle() {
    assertThat(ProtectionSummary.capacity(POOL, 9)).isEqualTo(100.0);
    assertThat(ProtectionSummary.capacity(POOL, 10)).isEqualTo(50.0); // 5 workers of 10
    assertThat(ProtectionSummary.capacity(POOL, 19)).isEqualTo(50.0);
    assertThat(ProtectionSummary.capacity(POOL, 20)).isEqualTo(100.0);
    assertThat(ProtectionSummary.capacity(POOL, 31)).isEqualTo(50.0); // 10 workers at 200 ms
    Scenario paused = POOL.with(Map.of("faults", "pause@5s+2s"));
    assertThat(ProtectionSummary.capacity(paused, 5)).isZero();
    assertThat(ProtectionSummary.capacity(paused, 7)).isEqualTo(100.0);
    assertThat(ProtectionSummary.capacity(Scenario.defaults(), 70)).isNaN(); // the knee server has none of its own
  }

  /** Goodput 100/s except 50/s from 10 s to 23 s; 429s at 4 s and 21 s; 200 requests a second, 10 retries. */
  private static PolicyResult handMade(Summary summary) {
    List<Second> series = new ArrayList<>();
    for (int t = 0; t < 40; t++) {
      long goodput = t >= 10 && t < 23 ? 50 : 100;
      long errors = t == 4 || t == 21 ? 3 : 0;
      series.add(new Second(t, 200, 210, goodput, errors, 0, 10, 0, 5, 5, 0.1, 0.1, 0.1, Double.NaN));
    }
    return new PolicyResult("full-jitter", summary, series, 0);
  }

  @Test
  void theWindowIsTheDisturbancesSecondHalfAndBackCountsFromItsEnd() {
    Summary summary = new Summary(RecoveryVerdict.RECOVERED, 100, 3, 5, 1.05, 0.5, 90, 0.1, 8000, 8400);
    ProtectionSummary p = ProtectionSummary.of(POOL, handMade(summary));
    // The disturbance runs from 10 s (the capacity fault) to 32 s (the latency fault's end): window 21..32.
    assertThat(p.windowStart()).isEqualTo(21);
    assertThat(p.windowEnd()).isEqualTo(32);
    assertThat(p.goodput()).isCloseTo((2 * 50 + 9 * 100) / 11.0, offset(1e-12));
    assertThat(p.capacity()).isCloseTo((9 * 100 + 2 * 50) / 11.0, offset(1e-12)); // 30 s and 31 s at 200 ms
    assertThat(p.started()).isEqualTo(200);
    assertThat(p.errors()).isCloseTo(3 / 11.0, offset(1e-12));
    assertThat(p.backSeconds()).isZero(); // goodput is 100 from 32 s on
    assertThat(p.backFromLastError()).isEqualTo(32 - 21);
    assertThat(p.requests()).isEqualTo(40 * 200);
    assertThat(p.retries()).isEqualTo(40 * 10);
    assertThat(p.refusedFirst()).isEqualTo(-1); // no concurrency limiter
    assertThat(p.firstShed()).isNaN();
    assertThat(p.retriesShed()).isNaN();
    Scenario shorter = POOL.with(Map.of("faults", "capacity@10s+10s:0.5"));
    ProtectionSummary q = ProtectionSummary.of(shorter, handMade(summary));
    assertThat(q.windowStart()).isEqualTo(15);
    assertThat(q.windowEnd()).isEqualTo(20);
    assertThat(q.goodput()).isEqualTo(50);
    assertThat(q.capacity()).isEqualTo(50);
    assertThat(q.backSeconds()).isEqualTo(3); // 50/s until 23 s, below 90% of the baseline of 100
    assertThat(q.backFromLastError()).isEqualTo(23 - 21);
    Summary noBaseline = new Summary(RecoveryVerdict.NOT_RECOVERED, Double.NaN, null, 5, 1.05, 0.5, 90, 0.1, 8000,
        8400);
    assertThat(ProtectionSummary.of(shorter, handMade(noBaseline)).backSeconds()).isNaN();
    ProtectionSummary none = ProtectionSummary.of(POOL.with(Map.of("faults", "none")), handMade(summary));
    assertThat(none.windowStart()).isEqualTo(-1);
    assertThat(none.goodput()).isNaN();
    assertThat(none.backSeconds()).isNaN();
  }

  @Test
  void theSeedsTableCsvAndJsonShowTheSameNumbersForEveryThreadCount() throws Exception {
    Scenario scenario = Scenario.of(Map.of("duration", "60s", "client", "open", "rate", 60, "rate-profile", "spike",
        "rate-peak", 150, "rate-at", "10s", "rate-length", "30s", "server", "pool", "faults", "none"))
        .with(Map.of("workers", 10, "queue-size", 10, "service-time", "100ms", "reject-status", 429, "seed", 1,
            "max-attempts", 5, "policies", "full-jitter,full-jitter+concurrency,full-jitter+adaptive"));
    Confidence one = Confidence.run(scenario, 3, 1, null);
    Confidence two = Confidence.run(scenario, 3, 2, null);
    String table = ConfidenceOutput.table(one);
    assertThat(ConfidenceOutput.table(two)).isEqualTo(table);
    assertThat(ConfidenceOutput.csv(two)).isEqualTo(ConfidenceOutput.csv(one));
    assertThat(ConfidenceOutput.json(two)).isEqualTo(ConfidenceOutput.json(one));
    assertThat(table).contains("Storm protection in the disturbance's second half, seconds 25 to 40, where the pool "
        + "serves 100.0 req/s;\n");
    List<String> lines = table.lines().toList();
    String header = lines.stream().filter(line -> line.startsWith("policy ") && line.contains("goodput/capacity"))
        .findFirst().orElseThrow();
    assertThat(header).containsPattern("policy +goodput/capacity +worst +goodput/started +worst +after/baseline +worst "
        + "+429s/s +429s/full-jitter's +first shed +retries shed +back +worst +from last 429 +worst");
    // Each cell follows from the per-run CSV: the concurrency limiter's goodput of capacity and its worst seed.
    Confidence.PolicyStats limited = one.policies().get(1);
    double[] shares = limited.values(WindowMetric.GOODPUT_OF_CAPACITY);
    double sum = 0;
    double worst = 1;
    for (int i = 0; i < 3; i++) {
      ProtectionSummary run = limited.protection().get(i);
      assertThat(shares[i]).isEqualTo(run.goodput() / run.capacity());
      sum += shares[i];
      worst = Math.min(worst, shares[i]);
    }
    String row = lines.stream().filter(line -> line.startsWith("full-jitter+concurrency ") && line.contains("%"))
        .reduce((a, b) -> b).orElseThrow();
    assertThat(row).matches("full-jitter\\+concurrency +" + java.util.regex.Pattern.quote(Values.format(100 * sum / 3, 1)
        + "% [") + "[^]]+\\] +" + java.util.regex.Pattern.quote(Values.format(100 * worst, 1) + "%  ") + ".*");
    // The plain policy's 429s are 100% of its own; the others' a share of them.
    assertThat(lines.stream().filter(line -> line.startsWith("full-jitter  ")).reduce((a, b) -> b).orElseThrow())
        .contains("  100.0%  ");
    String csv = ConfidenceOutput.csv(one);
    assertThat(csv.lines().findFirst().orElseThrow()).contains(",attempts," + ConfidenceOutput.PROTECTION_COLUMNS
        + ",verdictReason");
    String[] fields = csv.lines().toList().get(4).split(",", -1); // full-jitter+concurrency, seed 1
    assertThat(fields[0]).isEqualTo("full-jitter+concurrency");
    assertThat(fields[13]).isEqualTo("25");
    assertThat(fields[14]).isEqualTo("40");
    assertThat(Double.parseDouble(fields[15])).isCloseTo(limited.protection().get(0).goodput(), offset(5e-4));
    assertThat(Long.parseLong(fields[22])).isEqualTo(limited.protection().get(0).refusedFirst()).isPositive();
    JsonNode json = new ObjectMapper().readTree(ConfidenceOutput.json(one));
    JsonNode protection = json.get("policies").get(1).get("protection");
    assertThat(protection.get("window").toString()).isEqualTo("{\"start\":25,\"end\":40,\"capacity\":100.0}");
    assertThat(protection.get("goodputOfCapacity").get("mean").get("value").asDouble())
        .isCloseTo(sum / 3, offset(1e-6));
    assertThat(protection.get("firstAttemptsShed").get("values").size()).isEqualTo(3);
    assertThat(json.get("policies").get(0).get("protection").get("firstAttemptsShed").get("runs").asInt()).isZero();
    assertThat(ConfidenceOutput.summaryCsv(one).lines().toList()).hasSize(1 + 3 * (6 + WindowMetric.values().length))
        .anyMatch(line -> line.startsWith("full-jitter+concurrency,goodput-of-capacity,3,0,"));
  }

  @Test
  void aScenarioWithoutALimiterOrAPoolHasNoStormProtectionBlock() throws Exception {
    Scenario scenario = Scenario.of(Map.of("clients", 200, "duration", "60s", "faults", "pause@20s+10s",
        "policies", "fixed,full-jitter:100ms:20s+budget"));
    Confidence c = Confidence.run(scenario, 2, 2, null);
    assertThat(ConfidenceOutput.table(c)).doesNotContain("Storm protection");
    assertThat(ConfidenceOutput.csv(c).lines().findFirst().orElseThrow()).contains("windowGoodput");
  }
}
