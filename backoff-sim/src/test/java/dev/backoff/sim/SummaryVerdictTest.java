package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each verdict from a hand-made series (exact), and each misleading summary the issue reported, reproduced on
 * a small run: no verdict contradicts its own numbers, and a number the run does not have is never printed
 * as 0.
 */
class SummaryVerdictTest {
  private static final long MS = 1_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A 100 s run with a pause from 40 to 50 s and 10 s recovery windows (baseline 200/s keeps them at 10 s). */
  private static final Scenario PAUSE_40_TO_50 = Scenario.of(Map.of("duration", "100s", "faults", "pause@40s+10s",
      "recovery-window", "10s", "policies", "fixed"));

  /** Metrics with 200 successes (and attempts) a second, none in {@code [downFrom, downTo)}, latency 100 ms. */
  private static Metrics series(int seconds, int downFrom, int downTo) {
    Metrics m = new Metrics(seconds);
    for (int t = 0; t < seconds; t++) {
      boolean down = t >= downFrom && t < downTo;
      m.successes[t] = down ? 0 : 200;
      m.attempts[t] = 200;
      m.latencyNanos[t] = 100 * MS;
    }
    return m;
  }

  private static Summary summary(Scenario scenario, Metrics m) {
    long attempts = Arrays.stream(m.attempts).sum();
    long successes = Arrays.stream(m.successes).sum();
    return Summary.of(scenario, m, attempts, successes, attempts);
  }

  @Test
  void backWithinTheFaultsEndIsRecoveredAtOnce() {
    Summary s = summary(PAUSE_40_TO_50, series(100, 40, 50));
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.RECOVERED);
    assertThat(s.recovered()).isTrue();
    assertThat(s.recoverySeconds()).isZero();
    assertThat(s.baselineGoodput()).isEqualTo(200.0);
    assertThat(s.goodputAfterFault()).isEqualTo(200.0);
  }

  @Test
  void afterFaultGoodputOfExactlyNinetyPercentIsStillRecovered() {
    // Down until 55 s: after the fault (50..100 s) 45 of 50 seconds at 200/s, 180/s = 90% of baseline.
    Summary s = summary(PAUSE_40_TO_50, series(100, 40, 55));
    assertThat(s.goodputAfterFault()).isEqualTo(180.0);
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.RECOVERED);
    assertThat(s.recoverySeconds()).isEqualTo(5);
  }

  @Test
  void comingBackSoLateThatGoodputAfterTheFaultAveragesBelowNinetyPercentIsLateNotRecovered() {
    // Down until 60 s: 160/s after the fault, 80% of baseline, although it is back from 60 s on.
    Summary s = summary(PAUSE_40_TO_50, series(100, 40, 60));
    assertThat(s.goodputAfterFault()).isEqualTo(160.0);
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.LATE);
    assertThat(s.recovered()).isFalse();
    assertThat(s.recoverySeconds()).isEqualTo(10);
  }

  @Test
  void neverBackIsNotRecovered() {
    Summary s = summary(PAUSE_40_TO_50, series(100, 40, 100));
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.NOT_RECOVERED);
    assertThat(s.recoverySeconds()).isNull();
    assertThat(s.goodputAfterFault()).isZero();
  }

  @Test
  void lessThanOneWindowAfterTheFaultIsNotObservedAndExactlyOneWindowIsEnough() {
    Scenario endsFiveSecondsAfter = PAUSE_40_TO_50.with("faults", "pause@85s+10s");
    Summary late = summary(endsFiveSecondsAfter, series(100, 85, 95));
    assertThat(late.verdict()).isEqualTo(RecoveryVerdict.NOT_OBSERVED);
    assertThat(late.recoverySeconds()).isNull();
    assertThat(late.goodputAfterFault()).isEqualTo(200.0); // it is there, but 5 s prove nothing

    Scenario endsOneWindowBefore = PAUSE_40_TO_50.with("faults", "pause@80s+10s");
    assertThat(summary(endsOneWindowBefore, series(100, 80, 90)).verdict()).isEqualTo(RecoveryVerdict.RECOVERED);
  }

  @Test
  void aFaultThatEndsWithTheRunHasNoGoodputAfterIt() {
    Summary s = summary(PAUSE_40_TO_50.with("faults", "pause@90s+10s"), series(100, 90, 100));
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.NOT_OBSERVED);
    assertThat(s.goodputAfterFault()).isNaN();
  }

  @Test
  void requestsSentButNoneSucceededBeforeTheFaultIsDownBeforeTheFaultEvenIfGoodputComesLater() {
    // The reported bug: baseline 0 and goodput after it >= 90% of 0 read as "recovered yes, recovery 0s".
    Summary s = summary(PAUSE_40_TO_50, series(100, 0, 50));
    assertThat(s.baselineGoodput()).isZero();
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.DOWN_BEFORE_FAULT);
    assertThat(s.recovered()).isFalse();
    assertThat(s.recoverySeconds()).isNull();
  }

  @Test
  void noRequestsBeforeTheFaultOrAFaultAtZeroLeavesNoBaseline() {
    Metrics idle = series(100, 0, 50);
    Arrays.fill(idle.attempts, 0, 40, 0);
    assertThat(summary(PAUSE_40_TO_50, idle).verdict()).isEqualTo(RecoveryVerdict.NO_BASELINE);

    Summary atZero = summary(PAUSE_40_TO_50.with("faults", "pause@0s+10s"), series(100, 0, 10));
    assertThat(atZero.verdict()).isEqualTo(RecoveryVerdict.NO_BASELINE);
    assertThat(atZero.baselineGoodput()).isNaN();
  }

  @Test
  void aRunWithoutAFaultHasNothingToRecoverFrom() {
    Summary s = summary(PAUSE_40_TO_50.with("faults", "none"), series(100, 0, 0));
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.NO_FAULT);
    assertThat(s.recovered()).isFalse();
    assertThat(s.recoverySeconds()).isNull();
    assertThat(s.baselineGoodput()).isEqualTo(200.0);
    assertThat(s.goodputAfterFault()).isNaN();
  }

  @Test
  void percentilesAndRatiosTheRunDoesNotHaveAreNaN() {
    Metrics m = series(100, 40, 50);
    Summary none = Summary.of(PAUSE_40_TO_50, m, 0, 0, 0);
    assertThat(none.p99SuccessLatencySeconds()).isNaN();
    assertThat(none.amplification()).isNaN();
    assertThat(none.successRatio()).isNaN();
    m.runHistogram.record(250 * MS);
    assertThat(Summary.of(PAUSE_40_TO_50, m, 4, 1, 6).p99SuccessLatencySeconds()).isBetween(0.246, 0.254);
    assertThat(Summary.of(PAUSE_40_TO_50, m, 4, 1, 6).amplification()).isEqualTo(1.5);
  }

  @Test
  void aRecoveryTimeBelongsExactlyToTheVerdictsThatCameBack() {
    assertThatThrownBy(() -> new Summary(RecoveryVerdict.NOT_RECOVERED, 1, 3, 0, 1, 1, 1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recoverySeconds").hasMessageContaining("3");
    assertThatThrownBy(() -> new Summary(RecoveryVerdict.LATE, 1, null, 0, 1, 1, 1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LATE");
    assertThatThrownBy(() -> new Summary(null, 1, null, 0, 1, 1, 1, 1, 1, 1))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("verdict");
  }

  // The reported cases, on small runs.

  /** Every attempt times out (500 µs against a 100 ms server): nothing ever succeeds. */
  private static final Scenario TIMES_OUT = Scenario.of(Map.of("clients", 50, "duration", "60s",
      "faults", "pause@30s+5s", "timeout", "500us", "policies", "fixed,aws-standard"));

  @Test
  void aTimeoutShorterThanTheServersLatencyIsDownBeforeTheFaultInEveryOutput() throws Exception {
    SimulationResult result = Simulator.run(TIMES_OUT);
    for (PolicyResult policy : result.policies()) {
      Summary s = policy.summary();
      assertThat(s.verdict()).as(policy.name()).isEqualTo(RecoveryVerdict.DOWN_BEFORE_FAULT);
      assertThat(s.p99SuccessLatencySeconds()).isNaN();
      assertThat(s.successRatio()).isZero();
    }
    String table = Output.summaryTable(result);
    assertThat(table.lines().skip(2).limit(result.policies().size())).allSatisfy(row -> assertThat(row)
        .contains("  down before the fault  ").endsWith("  -").doesNotContain("yes").doesNotContain("µs"));
    JsonNode fixed = JSON.readTree(Output.json(result)).get("policies").get(0);
    assertThat(fixed.get("summary").get("verdict").asText()).isEqualTo("down-before-fault");
    assertThat(fixed.get("summary").get("recovered").asBoolean()).isFalse();
    assertThat(fixed.get("summary").get("p99SuccessLatencySeconds").isNull()).isTrue();
    assertThat(fixed.get("series").get(10).get("clientP99Seconds").isNull()).isTrue();
    List<String> csv = Output.summaryCsv(result).lines().toList();
    assertThat(csv.get(1)).startsWith("fixed,down-before-fault,false,0.000,0.000,,").contains(",0.0000,,"
        + fixed.get("summary").get("logicalRequests").asLong() + "," + fixed.get("summary").get("attempts").asLong()
        + "," + fixed.get("summary").get("unfinishedRequests").asLong() + ",no request succeeded in the baseline "
        + "window (15s to 30s)");
    assertThat(table).contains("\nwhy:\nfixed         no request succeeded in the baseline window (15s to 30s) (");
    assertThat(Output.csv(result).lines().skip(11).findFirst().orElseThrow()).matches("fixed,10,.*,\\d+\\.\\d{6},,,");
    assertThat(Output.goodputPicture(result)).contains("\u00b7 = none (nothing succeeded in any run)")
        .doesNotContain("\u2588");
  }

  @Test
  void noRequestsAtAllHasNoAmplificationNoSuccessRatioAndNoBaseline() {
    Scenario idle = Scenario.of(Map.of("client", "open", "rate", 0, "duration", "30s", "faults", "pause@10s+5s",
        "policies", "fixed"));
    SimulationResult result = Simulator.run(idle);
    Summary s = result.policies().get(0).summary();
    assertThat(s.logicalRequests()).isZero();
    assertThat(s.amplification()).isNaN();
    assertThat(s.verdict()).isEqualTo(RecoveryVerdict.NO_BASELINE);
    String row = Output.summaryTable(result).lines().skip(2).findFirst().orElseThrow();
    assertThat(row.split("\\s{2,}")).containsExactly("fixed", "0.0", "0.0", "no baseline", "-", "0", "-", "-", "0",
        "-");
    assertThat(Output.json(result)).contains("\"amplification\":null,\"successRatio\":null,\"verdict\":\"no-baseline\"");
    assertThat(Output.summaryCsv(result)).endsWith("fixed,no-baseline,false,0.000,0.000,,0,,,,0,0,0,"
        + "no request was sent in the baseline window (5s to 10s)\n");
  }

  @Test
  void theGoodputPictureIsExact() {
    Scenario scenario = Scenario.of(Map.of("duration", "8s", "faults", "pause@2s+2s", "policies", "fixed"));
    long[] goodput = {0, 1, 2, 3, 4, 5, 6, 8};
    List<Second> series = new java.util.ArrayList<>();
    for (int t = 0; t < goodput.length; t++) {
      series.add(new Second(t, 0, 0, goodput[t], 0, 0, 0, 0, 0, 0, 0.1, Double.NaN, Double.NaN, Double.NaN));
    }
    Summary summary = new Summary(RecoveryVerdict.NOT_OBSERVED, 1, null, 0, 1, 1, 6, 0.1, 1, 1);
    SimulationResult result = new SimulationResult(scenario, List.of(new PolicyResult("a", summary, series, 0)));
    assertThat(Output.goodputPicture(result)).isEqualTo(
        "goodput over time, one character per 1 second: \u2588 = 8.0/s, \u00b7 = none, ^ = pause@2s+2s\n"
            + "a       \u00b7\u2581\u2582\u2583\u2584\u2585\u2586\u2588\n"
            + "          ^^\n");
  }

  @Test
  void theGoodputPictureKeepsWithinEightyCharactersAndMarksOpenLoopSpikes() {
    Scenario scenario = Scenario.of(Map.of("client", "open", "rate", 20, "rate-profile", "spike", "rate-peak", 40,
        "rate-at", "100s", "rate-length", "30s", "duration", "401s", "faults", "none", "policies", "fixed"));
    List<String> lines = Output.goodputPicture(Simulator.run(scenario)).lines().toList();
    assertThat(lines.get(0)).startsWith("goodput over time, one character per 6 seconds: ")
        .endsWith("^ = spike@100s+30s");
    assertThat(lines.get(1)).hasSize("policy  ".length() + 67); // ceil(401 / 6)
    // 100..130 s touches the buckets starting at 96, 102, ..., 126.
    assertThat(lines.get(2)).isEqualTo(" ".repeat(8 + 16) + "^".repeat(6));
  }
}
