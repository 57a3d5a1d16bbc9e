package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.sim.RecoveryVerdict;
import dev.backoff.sim.RecoveryRule;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LabSummaryTest {
  private static LabSample second(int t, long goodput, double latency, LabSample.ServerState state) {
    FleetTotals counts = new FleetTotals(goodput, goodput, 0, 0, 0, goodput, goodput, 0);
    return new LabSample(t, counts, 10, latency, state);
  }

  /** 10 s at 100/s, a 5 s fault at 0, then {@code after} seconds as given. */
  private static List<LabSample> run(long... after) {
    List<LabSample> samples = new ArrayList<>();
    for (int t = 0; t < 10; t++) {
      samples.add(second(t, 100, 0.1, LabSample.ServerState.RUNNING));
    }
    for (int t = 10; t < 15; t++) {
      samples.add(second(t, 0, 0.1, LabSample.ServerState.PAUSED));
    }
    for (long goodput : after) {
      samples.add(second(samples.size(), goodput, 0.1, LabSample.ServerState.RUNNING));
    }
    return samples;
  }

  /** The window the rule uses at the tests' baseline of 100/s: the simulator's, lengthened at low rates. */
  private static final int WINDOW = RecoveryRule.effectiveWindow(LabSummary.WINDOW, 100);

  private static final FleetTotals TOTALS = new FleetTotals(300, 200, 50, 50, 100, 150, 120, 0);

  @Test
  void recoveryStartsWhereEveryLaterWindowHoldsNinetyPercent() {
    long[] after = new long[25];
    after[0] = 0;
    after[1] = 20;
    for (int i = 2; i < after.length; i++) {
      after[i] = 100;
    }
    LabSummary summary = LabSummary.of(run(after), TOTALS, 10, 15);
    assertThat(summary.baselineGoodput()).isEqualTo(100.0);
    assertThat(summary.recovered()).isTrue();
    assertThat(summary.recoverySeconds()).isEqualTo(2);
    assertThat(summary.goodputAfterFault()).isEqualTo((20 + 23 * 100) / 25.0);
    assertThat(summary.amplification()).isEqualTo(2.0);
    assertThat(summary.successRatio()).isEqualTo(0.8);
    assertThat(summary.peakConcurrency()).isEqualTo(10);
  }

  @Test
  void aStormNeverRecovers() {
    LabSummary summary = LabSummary.of(run(new long[30]), TOTALS, 10, 15);
    assertThat(summary.recovered()).isFalse();
    assertThat(summary.recoverySeconds()).isNull();
    assertThat(summary.goodputAfterFault()).isZero();
  }

  @Test
  void fewerSecondsThanAWindowAfterTheFaultGiveNoVerdictRatherThanNo() {
    long[] after = new long[WINDOW - 1];
    java.util.Arrays.fill(after, 100);
    LabSummary summary = LabSummary.of(run(after), TOTALS, 10, 15);
    assertThat(summary.verdict()).isEqualTo(RecoveryVerdict.NOT_OBSERVED);
    assertThat(summary.recovered()).isNull();
    assertThat(summary.toJson()).contains("\"recovered\":null", "\"verdict\":\"not-observed\"");
    assertThat(LabReport.summaryTable("p", summary, TOTALS)).contains("not observed")
        .contains("the run ends 15s after the disturbance, less than one 16s recovery window");
    // One more second and the same goodput is a recovery; a storm over a full window is a "no".
    long[] window = new long[WINDOW];
    java.util.Arrays.fill(window, 100);
    assertThat(LabSummary.of(run(window), TOTALS, 10, 15).verdict()).isEqualTo(RecoveryVerdict.RECOVERED);
    assertThat(LabSummary.of(run(new long[WINDOW]), TOTALS, 10, 15).verdict())
        .isEqualTo(RecoveryVerdict.NOT_RECOVERED);
  }

  @Test
  void aServerDownBeforeTheFaultHasNothingToRecoverTo() {
    List<LabSample> samples = run(new long[20]);
    for (int t = 0; t < 10; t++) {
      samples.set(t, new LabSample(t, new FleetTotals(50, 0, 50, 0, 0, 50, 0, 50), 10, Double.NaN,
          LabSample.ServerState.RUNNING));
    }
    LabSummary summary = LabSummary.of(samples, TOTALS, 10, 15);
    assertThat(summary.verdict()).isEqualTo(RecoveryVerdict.DOWN_BEFORE_FAULT);
    assertThat(summary.recovered()).isFalse();
    assertThat(summary.reason()).isEqualTo("no request succeeded in the baseline window (5s to 10s) (250 attempts)");
    assertThat(LabSummary.of(run(new long[20]), TOTALS, 0, 15).verdict()).isEqualTo(RecoveryVerdict.NO_BASELINE);
  }

  @Test
  void highLatencyAfterTheFaultDelaysRecovery() {
    long[] after = new long[20];
    java.util.Arrays.fill(after, 100);
    List<LabSample> samples = run(after);
    samples.set(17, second(17, 100, 5.0, LabSample.ServerState.RUNNING));
    LabSummary summary = LabSummary.of(samples, TOTALS, 10, 15);
    assertThat(summary.recovered()).isTrue();
    assertThat(summary.recoverySeconds()).isEqualTo(3);
  }

  @Test
  void theFaultIsFoundFromTheServersState() {
    long[] after = new long[20];
    java.util.Arrays.fill(after, 100);
    LabSummary detected = LabSummary.detect(run(after), TOTALS);
    assertThat(detected.recovered()).isTrue();
    assertThat(detected.recoverySeconds()).isZero();
    List<LabSample> noFault = new ArrayList<>();
    for (int t = 0; t < 10; t++) {
      noFault.add(second(t, 50, Double.NaN, LabSample.ServerState.UNKNOWN));
    }
    LabSummary none = LabSummary.detect(noFault, TOTALS);
    assertThat(none.recovered()).isNull();
    assertThat(none.baselineGoodput()).isEqualTo(50.0);
    assertThat(none.toJson()).contains("\"recovered\":null");
  }

  @Test
  void jsonHasTheSimulatorsFields() {
    String json = LabSummary.of(run(new long[WINDOW]), TOTALS, 10, 15).toJson();
    assertThat(json).contains("\"baselineGoodput\":100.00", "\"recovered\":false", "\"verdict\":\"not-recovered\"", "\"recoverySeconds\":null",
        "\"peakConcurrency\":10", "\"amplification\":2.000", "\"successRatio\":0.8000", "\"goodputAfterFault\":0.00");
  }

  @Test
  void aServerOverloadedBeforeTheFaultIsNotJudgedOnItsBaseline() {
    long[] after = new long[20];
    java.util.Arrays.fill(after, 100);
    List<LabSample> samples = run(after);
    // 100 served of 1000 offered each second: the baseline is the server's capacity, not the load.
    for (int t = 0; t < 10; t++) {
      samples.set(t, new LabSample(t, new FleetTotals(1000, 100, 900, 0, 0, 1000, 100, 900), 10, 0.1,
          LabSample.ServerState.RUNNING));
    }
    LabSummary summary = LabSummary.of(samples, TOTALS, 10, 15);
    assertThat(summary.verdict()).isEqualTo(RecoveryVerdict.OVERLOADED_BEFORE_FAULT);
    assertThat(summary.recovered()).isFalse();
    assertThat(summary.recoverySeconds()).isNull();
    assertThat(summary.toJson()).contains("\"verdict\":\"overloaded-before-fault\"",
        "\"verdictReason\":\"100.0/s succeeded of 1000.0/s offered in the baseline window (5s to 10s)");
  }

  @Test
  void aFaultWindowOutsideTheSamplesIsRefused() {
    assertThatThrownBy(() -> LabSummary.of(run(), TOTALS, 10, 99)).hasMessageContaining("[10, 99)");
  }
}
