package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import dev.backoff.cli.LabCalibrateCommand.Live;
import dev.backoff.cli.LabCalibrateCommand.Row;
import dev.backoff.cli.LabCalibrateCommand.Simulated;
import dev.backoff.lab.LabDemo;
import dev.backoff.sim.RecoveryVerdict;
import dev.backoff.sim.Stats;
import dev.backoff.sim.Summary;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(180)
class LabCalibrateCommandTest {

  private static Summary run(RecoveryVerdict verdict, Integer recoverySeconds, int peak, double amplification) {
    return new Summary(verdict, 100, recoverySeconds, peak, amplification, 0.99, 95, 1.5, 1000, 2000);
  }

  /** {@code cameBack} of {@code n} simulated runs that came back after 3 s (peak 500, ×2), the rest not. */
  private static Simulated simulated(int cameBack, int n) {
    List<Summary> runs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      runs.add(i < cameBack ? run(RecoveryVerdict.RECOVERED, 3, 500, 2.0) : run(RecoveryVerdict.NOT_RECOVERED, null, 500, 2.0));
    }
    return new Simulated(runs, null);
  }

  private static final Live LIVE_YES = new Live(RecoveryVerdict.RECOVERED, 2, 963, 2.46, null);
  private static final Live LIVE_NO = new Live(RecoveryVerdict.NOT_RECOVERED, null, 4000, 6.69,
      "the server held its maximum of 4000 requests 7s after resuming");

  @Test
  void argumentErrorsExitTwoNamingTheFlagAndValue() {
    CliRunner seeds = CliRunner.run("lab", "calibrate", "--seeds", "0", "--no-live");
    assertThat(seeds.exitCode).isEqualTo(2);
    assertThat(seeds.err).contains("--seeds must be between 1 and 10000, was 0");
    CliRunner many = CliRunner.run("lab", "calibrate", "--seeds", "10001", "--no-live");
    assertThat(many.exitCode).isEqualTo(2);
    assertThat(many.err).contains("--seeds").contains("10001");
    CliRunner overflow = CliRunner.run("lab", "calibrate", "--pause-overflow", "retry", "--no-live");
    assertThat(overflow.exitCode).isEqualTo(2);
    assertThat(overflow.err).contains("--pause-overflow must be reconnect, close or drop, was 'retry'");
    CliRunner policy = CliRunner.run("lab", "calibrate", "--policies", "fixed,bogus", "--no-live");
    assertThat(policy.exitCode).isEqualTo(2);
    assertThat(policy.err).contains("--policies").contains("bogus");
    CliRunner pause = CliRunner.run("lab", "calibrate", "--pause", "0s", "--no-live");
    assertThat(pause.exitCode).isEqualTo(2);
    assertThat(pause.err).contains("--pause");
    CliRunner clients = CliRunner.run("lab", "calibrate", "--clients", "0", "--no-live");
    assertThat(clients.exitCode).isEqualTo(2);
    assertThat(clients.err).contains("--clients").contains("0");
    CliRunner format = CliRunner.run("lab", "calibrate", "--format", "xml", "--no-live");
    assertThat(format.exitCode).isEqualTo(2);
    assertThat(format.err).contains("--format").contains("xml");
  }

  @Test
  void theyAgreeWhenTheLiveOutcomeIsOneTheSimulatorProducesOftenEnough() {
    assertThat(new Row("p", LIVE_YES, simulated(0, 20)).agree()).isFalse();
    assertThat(new Row("p", LIVE_YES, simulated(1, 20)).agree()).isFalse(); // lower bound 0.9%: an accident
    assertThat(new Row("p", LIVE_YES, simulated(3, 20)).agree()).isTrue(); // lower bound 5.2%
    assertThat(new Row("p", LIVE_YES, simulated(20, 20)).agree()).isTrue();
    assertThat(new Row("p", LIVE_NO, simulated(0, 20)).agree()).isTrue();
    assertThat(new Row("p", LIVE_NO, simulated(20, 20)).agree()).isFalse();
    assertThat(new Row("p", null, simulated(20, 20)).agree()).isNull();
    // A live run stopped early as a storm did not come back, whatever its too-short series says.
    Live storm = new Live(RecoveryVerdict.NOT_OBSERVED, null, 4000, 6.91, "the server held its maximum");
    assertThat(storm.cameBack()).isFalse();
    assertThat(new Row("p", storm, simulated(0, 20)).agree()).isTrue();
    assertThat(new Row("p", new Live(RecoveryVerdict.NOT_OBSERVED, null, 10, 1.0, null), simulated(20, 20)).agree()).isNull();
    // A late recovery came back, on both sides.
    assertThat(new Row("p", new Live(RecoveryVerdict.LATE, 25, 10, 1.0, null),
        new Simulated(List.of(run(RecoveryVerdict.LATE, 20, 1, 1.0)), null)).agree()).isTrue();
  }

  @Test
  void mediansOverTheRunsThatCameBack() {
    Simulated sim = new Simulated(List.of(run(RecoveryVerdict.RECOVERED, 9, 570, 2.42), run(RecoveryVerdict.RECOVERED, 13, 575, 2.49),
        run(RecoveryVerdict.NOT_RECOVERED, null, 574, 2.45), run(RecoveryVerdict.LATE, 20, 580, 2.50)), null);
    assertThat(sim.cameBack()).isEqualTo(3);
    assertThat(sim.medianRecoverySeconds()).isEqualTo(13.0);
    assertThat(sim.medianPeak()).isEqualTo(574.5);
    assertThat(sim.medianAmplification()).isCloseTo(2.47, offset(1e-12));
    assertThat(new Simulated(List.of(run(RecoveryVerdict.NOT_RECOVERED, null, 1, 1)), null).medianRecoverySeconds()).isNaN();
  }

  @Test
  void tableFromRecordedInputs() {
    String table = LabCalibrateCommand.table(20, List.of(
        new Row("storm-fixed", LIVE_NO, simulated(0, 20)),
        new Row("storm-exponential-full-jitter", LIVE_YES, simulated(17, 20)),
        new Row("storm-fixed+hedge:50ms", null, new Simulated(List.of(), "the simulator cannot run it: no"))));
    String n = System.lineSeparator();
    assertThat(table).isEqualTo(
        "policy                         live        rec.   peak  ampl.  │ simulated   95% interval        rec.   peak  ampl.  │ agree" + n
        + "storm-fixed                    no, storm      -   4000   6.69  │ 0/20        0.00 [0.00, 0.16]      -    500   2.00  │ yes" + n
        + "storm-exponential-full-jitter  yes           2s    963   2.46  │ 17/20       0.85 [0.64, 0.95]     3s    500   2.00  │ yes" + n
        + "storm-fixed+hedge:50ms         not run        -      -      -  │ n/a                                -      -      -  │ -" + n
        + "live: one run, came back or not (a run stopped early as a storm did not), seconds from the resume to recovery, peak concurrency, attempts per request; "
        + "simulated: runs that came back of 20 seeds with the 95% Wilson interval, medians. They agree when the "
        + "simulated runs with the live outcome have a Wilson lower bound of at least 5%." + n
        + "storm-fixed: live run stopped early, the server held its maximum of 4000 requests 7s after resuming" + n
        + "storm-fixed+hedge:50ms: no simulated runs, the simulator cannot run it: no");
  }

  @Test
  void jsonFromRecordedInputs() {
    LabDemo demo = LabDemo.builder().clients(1000).policies(List.of("storm-fixed", "storm-exponential")).build();
    String json = LabCalibrateCommand.json(demo, 2, "reconnect", List.of(
        new Row("storm-fixed", LIVE_NO, simulated(0, 2)),
        new Row("storm-exponential", null, new Simulated(List.of(run(RecoveryVerdict.RECOVERED, 5, 545, 2.25),
            run(RecoveryVerdict.RECOVERED, 6, 550, 2.3)), null))));
    assertThat(json).startsWith("{\"settings\":{\"clients\":1000,").contains("\"seeds\":2,\"pauseOverflow\":\"reconnect\"}")
        .endsWith(",\"policies\":["
            + "{\"name\":\"storm-fixed\",\"live\":{\"verdict\":\"not-recovered\",\"cameBack\":false,\"recoverySeconds\":null,"
            + "\"peakConcurrency\":4000,\"amplification\":6.690,\"stoppedEarly\":\"the server held its maximum of 4000 "
            + "requests 7s after resuming\"},\"simulator\":{\"runs\":2,\"cameBack\":0,\"fraction\":0.0000,"
            + "\"wilsonLow\":0.0000,\"wilsonHigh\":0.6576,\"medianRecoverySeconds\":null,\"medianPeakConcurrency\":500.0,"
            + "\"medianAmplification\":2.000,\"verdicts\":[\"not-recovered\",\"not-recovered\"]},\"agree\":true},"
            + "{\"name\":\"storm-exponential\",\"live\":null,\"simulator\":{\"runs\":2,\"cameBack\":2,\"fraction\":1.0000,"
            + "\"wilsonLow\":0.3424,\"wilsonHigh\":1.0000,\"medianRecoverySeconds\":5.5,\"medianPeakConcurrency\":547.5,"
            + "\"medianAmplification\":2.275,\"verdicts\":[\"recovered\",\"recovered\"]},\"agree\":null}]}");
  }

  @Test
  void simulatorOnlyRunCountsEverySeed() {
    CliRunner result = CliRunner.run("lab", "calibrate", "--no-live", "--seeds", "3", "--clients", "100",
        "--think-mean", "500ms", "--timeout", "1s", "--warmup", "4s", "--pause", "2s", "--after", "14s",
        "--policies", "storm-fixed,storm-exponential");
    assertThat(result.exitCode).isZero();
    assertThat(result.err).contains("simulator: 3 seeds of 2 policies done");
    assertThat(result.out).containsPattern("(?m)^storm-fixed +not run .*│ [0-3]/3 ")
        .containsPattern("(?m)^storm-exponential +not run .*│ [0-3]/3 ");
  }

  @Test
  void theSimulatorsPauseModelIsAChoice() {
    // The same scenario and seeds under the two pause models: the runs are deterministic, and each model's
    // JSON names itself.
    String[] args = {"lab", "calibrate", "--no-live", "--seeds", "2", "--clients", "100", "--think-mean", "500ms",
        "--timeout", "1s", "--warmup", "4s", "--pause", "2s", "--after", "14s", "--policies", "storm-exponential",
        "--format", "json"};
    CliRunner first = CliRunner.run(args);
    CliRunner again = CliRunner.run(args);
    assertThat(first.out).isEqualTo(again.out).contains("\"pauseOverflow\":\"reconnect\"");
    List<String> withDrop = new ArrayList<>(List.of(args));
    withDrop.addAll(List.of("--pause-overflow", "drop"));
    assertThat(CliRunner.run(withDrop.toArray(String[]::new)).out).contains("\"pauseOverflow\":\"drop\"");
  }

  @Test
  @Tag("slow")
  void aShortLiveCalibrationPutsTheLabNextToTheSimulator() {
    CliRunner result = CliRunner.run("lab", "calibrate", "--seeds", "3", "--clients", "100", "--think-mean", "500ms",
        "--timeout", "1s", "--warmup", "4s", "--pause", "2s", "--after", "12s", "--policies", "storm-exponential",
        "--max-connections", "500", "--format", "json");
    assertThat(result.exitCode).isZero();
    assertThat(result.err).contains("== storm-exponential", "server paused", "server resumed");
    assertThat(result.out).contains("\"name\":\"storm-exponential\",\"live\":{\"verdict\":\"",
        "\"simulator\":{\"runs\":3,");
    // The agreement printed is the rule applied to the two sides printed.
    Matcher live = Pattern.compile("\"cameBack\":(true|false|null)").matcher(result.out);
    assertThat(live.find()).isTrue();
    Matcher sim = Pattern.compile("\"simulator\":\\{\"runs\":3,\"cameBack\":([0-3]),").matcher(result.out);
    assertThat(sim.find()).isTrue();
    Matcher agree = Pattern.compile("\"agree\":(true|false|null)}").matcher(result.out);
    assertThat(agree.find()).isTrue();
    Boolean liveCameBack = live.group(1).equals("null") ? null : Boolean.valueOf(live.group(1));
    int simCameBack = Integer.parseInt(sim.group(1));
    String expected = liveCameBack == null ? "null"
        : String.valueOf(Stats.wilson(liveCameBack ? simCameBack : 3 - simCameBack, 3).lower() >= 0.05);
    assertThat(agree.group(1)).isEqualTo(expected);
  }
}
