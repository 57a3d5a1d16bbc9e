package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The tipping-point scan: exact outcomes on small scenarios (one not monotone, one monotone, one that always
 * comes back, one that never does), every claim checked against the per-length table it is read from, and the
 * table against single runs.
 */
class TippingPointsTest {
  /** The default experiment cut to 200 s: lengths 1 s to 20 s. */
  private static final Scenario SHORT_DEFAULT = Scenario.defaults().with(Map.of("duration", "200s",
      "policies", "storm-exponential-full-jitter,storm-exponential-full-jitter+budget,storm-fixed"));

  /** Every attempt times out (500 µs against a 100 ms server): nothing succeeds before any fault. */
  private static final Scenario DOWN = Scenario.of(Map.of("clients", 50, "duration", "300s", "faults",
      "pause@30s+5s", "timeout", "500us", "policies", "fixed"));

  @Test
  @Tag("slow")
  void theDefaultExperimentsFullJitterIsNotMonotoneAndTheScanSaysSo() throws Exception {
    TippingPoints.Scan scan = TippingPoints.scan(SHORT_DEFAULT, 1, 5, 1, 2, null);
    // Grid 1, 5, 10, 15, 20; the outcome changes between 5 and 10 and between 10 and 15, so every second there.
    List<Integer> expected = new ArrayList<>(List.of(1));
    IntStream.rangeClosed(5, 15).forEach(expected::add);
    expected.add(20);
    assertThat(scan.lengths()).isEqualTo(expected);
    assertThat(scan.upToSeconds()).isEqualTo(20);
    assertThat(scan.runs()).isEqualTo(13 * 3);

    TippingPoints.PolicyScan jitter = scan.policies().get(0);
    assertThat(cameBack(jitter)).containsExactly(1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1);
    assertThat(jitter.monotone()).isFalse();
    assertThat(jitter.nonMonotone()).extracting(TippingPoints.Length::faultSeconds).containsExactly(6, 15);
    assertThat(jitter.recoversUpToSeconds()).isEqualTo(5);
    assertThat(jitter.firstFailingSeconds()).isEqualTo(6);
    assertThat(jitter.failing()).containsExactly(new TippingPoints.FailingRange(6, 14, 0, 0,
        Map.of(RecoveryVerdict.NOT_RECOVERED, 9)));

    TippingPoints.PolicyScan budget = scan.policies().get(1);
    assertThat(cameBack(budget)).allMatch(count -> count == 1);
    assertThat(budget.monotone()).isTrue();
    assertThat(budget.recoversUpToSeconds()).isEqualTo(20);
    assertThat(budget.firstFailingSeconds()).isNull();
    assertThat(budget.failing()).isEmpty();

    TippingPoints.PolicyScan fixed = scan.policies().get(2);
    assertThat(fixed.monotone()).isTrue();
    assertThat(fixed.recoversUpToSeconds()).isEqualTo(5);
    assertThat(fixed.failing()).containsExactly(new TippingPoints.FailingRange(6, 20, 0, 0,
        Map.of(RecoveryVerdict.NOT_RECOVERED, 11)));

    String table = TippingPointsOutput.table(scan);
    assertThat(table).contains("storm-exponential-full-jitter:\n  not monotone: more seeds came back after a fault "
        + "of 15s (1 of 1) than after the shorter 6s (0 of 1), so no single length is its tipping point\n"
        + "  came back on every seed at every tested length up to 5s\n"
        + "  fails at the tested lengths 6s to 14s: 0 of 1 seed came back at each (the others: 9 NO)\n");
    assertThat(table).contains("storm-exponential-full-jitter+budget:\n"
        + "  came back on every seed at every tested length, 1s to 20s\n");
    assertThat(table).contains("storm-fixed:\n  came back on every seed at every tested length up to 5s\n"
        + "  fails at the tested lengths 6s to 20s: 0 of 1 seed came back at each (the others: 11 NO)\n");
    assertClaimsFollowFromTheTable(scan);
  }

  @Test
  @Tag("slow")
  void everyCellIsTheVerdictOfThatRunAlone() throws Exception {
    TippingPoints.Scan scan = TippingPoints.scan(SHORT_DEFAULT.with("policies", "storm-exponential-full-jitter"),
        2, 5, 1, 2, null);
    for (TippingPoints.Length length : scan.policies().get(0).lengths()) {
      for (int seed = 0; seed < 2; seed++) {
        Scenario alone = SHORT_DEFAULT.with(Map.of("policies", "storm-exponential-full-jitter", "seed", 3 + seed,
            "faults", "pause@60s+" + length.faultSeconds() + "s"));
        assertThat(length.verdicts().get(seed)).as("%d s, seed %d", length.faultSeconds(), 3 + seed)
            .isEqualTo(Simulator.run(alone).policies().get(0).summary().verdict());
      }
    }
  }

  @Test
  void aServerDownBeforeTheFaultComesBackAtNoLengthAndTheScanSaysWhy() throws Exception {
    TippingPoints.Scan scan = TippingPoints.scan(DOWN, 2, 50, 1, 2, null);
    assertThat(scan.lengths()).containsExactly(1, 50, 100, 135); // nothing changes, nothing refined
    TippingPoints.PolicyScan fixed = scan.policies().get(0);
    assertThat(cameBack(fixed)).containsOnly(0);
    assertThat(fixed.monotone()).isTrue();
    assertThat(fixed.recoversUpToSeconds()).isNull();
    assertThat(fixed.failing()).containsExactly(new TippingPoints.FailingRange(1, 135, 0, 0,
        Map.of(RecoveryVerdict.DOWN_BEFORE_FAULT, 8)));
    assertThat(TippingPointsOutput.table(scan)).endsWith("fixed:\n"
        + "  did not come back on every seed even at the shortest length, 1s\n"
        + "  fails at the tested lengths 1s to 135s: 0 of 2 seeds came back at each (the others: 8 down before "
        + "the fault)\n");
    assertClaimsFollowFromTheTable(scan);
  }

  @Test
  @Tag("slow")
  void theSameForAnyThreadCount() throws Exception {
    Scenario scenario = SHORT_DEFAULT.with("policies", "storm-exponential-full-jitter,storm-exponential");
    TippingPoints.Scan one = TippingPoints.scan(scenario, 2, 10, 2, 1, null);
    TippingPoints.Scan two = TippingPoints.scan(scenario, 2, 10, 2, 2, null);
    assertThat(two).isEqualTo(one);
    assertThat(TippingPointsOutput.json(two)).isEqualTo(TippingPointsOutput.json(one));
    long[] last = {0};
    TippingPoints.scan(scenario, 2, 10, 2, 2, runs -> last[0] = runs);
    assertThat(last[0]).isEqualTo(one.runs()).isLessThanOrEqualTo(TippingPoints.maxRuns(scenario, 2, 10, 2));
  }

  @Test
  void claimsAreReadOffTheTableExactly() {
    // Synthetic rows: 20/20 at 1 s and 5 s, 19/20 at 6 s, 20/20 at 7 s, 0/20 at 10 s and 20 s.
    TippingPoints.PolicyScan noisy = new TippingPoints.PolicyScan("p", List.of(length(1, 20, 20),
        length(5, 20, 20), length(6, 19, 20), length(7, 20, 20), length(10, 0, 20), length(20, 0, 20)));
    assertThat(noisy.recoversUpToSeconds()).isEqualTo(5);
    assertThat(noisy.firstFailingSeconds()).isEqualTo(6);
    assertThat(noisy.monotone()).isFalse();
    assertThat(noisy.nonMonotone()).extracting(TippingPoints.Length::faultSeconds).containsExactly(6, 7);
    assertThat(noisy.failing()).containsExactly(
        new TippingPoints.FailingRange(6, 6, 19, 19, Map.of(RecoveryVerdict.NOT_RECOVERED, 1)),
        new TippingPoints.FailingRange(10, 20, 0, 0, Map.of(RecoveryVerdict.NOT_RECOVERED, 40)));
    assertThat(TippingPointsOutput.claims(noisy, 20)).containsExactly(
        "not monotone: more seeds came back after a fault of 7s (20 of 20) than after the shorter 6s (19 of 20), "
            + "so no single length is its tipping point",
        "came back on every seed at every tested length up to 5s",
        "fails at 6s: 19 of 20 seeds came back (the others: 1 NO)",
        "fails at the tested lengths 10s to 20s: 0 of 20 seeds came back at each (the others: 40 NO)");

    TippingPoints.PolicyScan falling = new TippingPoints.PolicyScan("p", List.of(length(1, 20, 20),
        length(5, 12, 20), length(10, 3, 20), length(15, 3, 20)));
    assertThat(falling.monotone()).isTrue();
    assertThat(falling.nonMonotone()).isNull();
    assertThat(falling.recoversUpToSeconds()).isEqualTo(1);
    assertThat(falling.failing()).containsExactly(new TippingPoints.FailingRange(5, 15, 3, 12,
        Map.of(RecoveryVerdict.NOT_RECOVERED, 42)));
  }

  @Test
  void jsonAndCsvCarryEveryLengthAndVerdict() throws Exception {
    TippingPoints.Scan scan = new TippingPoints.Scan("pause@60s+30s", 3, 2, 5, 1, 10, List.of(
        new TippingPoints.PolicyScan("a,b", List.of(
            new TippingPoints.Length(1, List.of(RecoveryVerdict.RECOVERED, RecoveryVerdict.LATE)),
            new TippingPoints.Length(5, List.of(RecoveryVerdict.NOT_RECOVERED, RecoveryVerdict.RECOVERED)),
            new TippingPoints.Length(10, List.of(RecoveryVerdict.RECOVERED, RecoveryVerdict.RECOVERED))))));
    JsonNode json = new ObjectMapper().readTree(TippingPointsOutput.json(scan));
    assertThat(json.get("scan").toString()).isEqualTo("{\"fault\":\"pause@60s+30s\",\"fromSeconds\":1,"
        + "\"upToSeconds\":10,\"gridSeconds\":5,\"resolutionSeconds\":1,\"seeds\":{\"first\":3,\"last\":4,"
        + "\"count\":2},\"runs\":6}");
    JsonNode policy = json.get("policies").get(0);
    assertThat(policy.get("monotone").asBoolean()).isFalse();
    assertThat(policy.get("recoversUpToSeconds").asInt()).isEqualTo(1);
    assertThat(policy.get("firstFailingSeconds").asInt()).isEqualTo(5);
    assertThat(policy.get("nonMonotone").toString()).isEqualTo("{\"shorterSeconds\":5,\"longerSeconds\":10}");
    assertThat(policy.get("failing").toString()).isEqualTo("[{\"fromSeconds\":5,\"toSeconds\":5,"
        + "\"fewestCameBack\":1,\"mostCameBack\":1,\"notBack\":{\"not-recovered\":1}}]");
    assertThat(policy.get("lengths").get(1).toString()).isEqualTo("{\"faultSeconds\":5,\"runs\":2,\"cameBack\":1,"
        + "\"verdicts\":[\"not-recovered\",\"recovered\"]}");
    String csv = TippingPointsOutput.csv(scan);
    StringBuilder header = new StringBuilder("policy,faultSeconds,runs,cameBack");
    for (RecoveryVerdict verdict : RecoveryVerdict.values()) {
      header.append(',').append(verdict.id());
    }
    assertThat(csv.lines().findFirst().orElseThrow()).isEqualTo(header.toString());
    assertThat(csv.lines().skip(1).toList()).hasSize(3).allMatch(line -> line.startsWith("\"a,b\","));
    String five = csv.lines().skip(2).findFirst().orElseThrow();
    assertThat(five).startsWith("\"a,b\",5,2,1,");
    String[] counts = five.substring("\"a,b\",5,2,1,".length()).split(",");
    assertThat(counts).hasSize(RecoveryVerdict.values().length);
    assertThat(counts[RecoveryVerdict.RECOVERED.ordinal()]).isEqualTo("1");
    assertThat(counts[RecoveryVerdict.NOT_RECOVERED.ordinal()]).isEqualTo("1");
  }

  @Test
  void badArgumentsAreRefusedByName() {
    assertThatThrownBy(() -> TippingPoints.scan(SHORT_DEFAULT.with("faults", "none"), 1, 5, 1, 1, null))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("the scenario has none");
    assertThatThrownBy(() -> TippingPoints.scan(SHORT_DEFAULT, 1, 0, 1, 1, null))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("grid must be at least 1 second, was 0");
    assertThatThrownBy(() -> TippingPoints.scan(SHORT_DEFAULT, 1, 5, 0, 1, null))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("resolution must be at least 1 second, was 0");
    assertThatThrownBy(() -> TippingPoints.scan(SHORT_DEFAULT, 0, 5, 1, 1, null))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("seeds");
    assertThatThrownBy(() -> TippingPoints.scan(SHORT_DEFAULT, 1, 5, 1, 0, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threads");
  }

  /**
   * The claims against the table: "up to X" only if every length up to X came back on every seed, the failing
   * ranges exactly the lengths where some seed did not, "not monotone" exactly when a longer length had more
   * seeds come back, and the text saying so.
   */
  private static void assertClaimsFollowFromTheTable(TippingPoints.Scan scan) {
    String table = TippingPointsOutput.table(scan);
    for (TippingPoints.PolicyScan policy : scan.policies()) {
      List<TippingPoints.Length> rows = policy.lengths();
      Integer upTo = policy.recoversUpToSeconds();
      for (TippingPoints.Length row : rows) {
        if (upTo != null && row.faultSeconds() <= upTo) {
          assertThat(row.cameBack()).isEqualTo(row.runs());
        }
      }
      if (upTo != null && upTo < scan.upToSeconds()) {
        assertThat(rows.stream().filter(row -> row.faultSeconds() > upTo).findFirst().orElseThrow()
            .everySeedCameBack()).isFalse();
      }
      List<Integer> failingLengths = new ArrayList<>();
      for (TippingPoints.FailingRange range : policy.failing()) {
        rows.stream().filter(r -> r.faultSeconds() >= range.fromSeconds() && r.faultSeconds() <= range.toSeconds())
            .forEach(r -> failingLengths.add(r.faultSeconds()));
      }
      assertThat(failingLengths).isEqualTo(rows.stream().filter(r -> !r.everySeedCameBack())
          .map(TippingPoints.Length::faultSeconds).toList());
      boolean rises = false;
      for (int i = 0; i < rows.size(); i++) {
        for (int j = i + 1; j < rows.size(); j++) {
          rises |= rows.get(j).cameBack() > rows.get(i).cameBack();
        }
      }
      assertThat(policy.monotone()).isEqualTo(!rises);
      String section = table.substring(table.indexOf("\n" + policy.policy() + ":\n"));
      section = section.substring(0, section.indexOf('\n', section.indexOf(":\n") + 2) + 1);
      assertThat(section.contains("not monotone")).isEqualTo(rises);
      assertThat(table.contains("recovers from every fault length")).isFalse();
    }
  }

  private static List<Integer> cameBack(TippingPoints.PolicyScan policy) {
    return policy.lengths().stream().map(TippingPoints.Length::cameBack).toList();
  }

  private static TippingPoints.Length length(int seconds, int cameBack, int runs) {
    List<RecoveryVerdict> verdicts = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      verdicts.add(i < cameBack ? RecoveryVerdict.RECOVERED : RecoveryVerdict.NOT_RECOVERED);
    }
    return new TippingPoints.Length(seconds, verdicts);
  }
}
