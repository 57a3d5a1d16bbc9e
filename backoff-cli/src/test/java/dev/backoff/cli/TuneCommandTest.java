package dev.backoff.cli;

import static dev.backoff.cli.ScheduleCommandTest.assertUsage;
import static dev.backoff.cli.ScheduleCommandTest.fieldNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class TuneCommandTest {
  private static JsonNode json(String... args) throws Exception {
    String[] all = ScheduleCommandTest.with(new String[] {"tune"}, args);
    CliRunner result = CliRunner.run(ScheduleCommandTest.with(all, "--format", "json"));
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(result.err).isEmpty();
    return new ObjectMapper().readTree(result.out);
  }

  @Test
  void intervalQuestion() throws Exception {
    JsonNode answer = json("--initial", "1s", "--elapsed", "1000s", "--interval", "100s");
    assertThat(fieldNames(answer)).containsExactly("multiplier", "multiplierMinusOne", "estimatedMultiplier");
    assertThat(answer.get("multiplierMinusOne").asDouble()).isEqualTo(0.099);
    assertThat(answer.get("multiplier").asDouble()).isEqualTo(1.099);
    assertThat(answer.get("estimatedMultiplier").asDouble()).isEqualTo(1.1);
    CliRunner text = CliRunner.run("tune", "--initial", "1s", "--elapsed", "1000s", "--interval", "100s");
    assertThat(text.out.lines().toList()).hasSize(2);
    assertThat(text.out).startsWith("multiplier 1.099\n").contains("1.1");
  }

  @Test
  void deadlineQuestion() throws Exception {
    JsonNode answer = json("--initial", "1s", "--retries", "10", "--deadline", "1023s");
    assertThat(fieldNames(answer)).containsExactly("multiplier", "multiplierMinusOne", "retryElapsedSeconds");
    assertThat(answer.get("multiplier").asDouble()).isCloseTo(2, within(1e-9));
    assertThat(answer.get("retryElapsedSeconds").asDouble()).isCloseTo(1023, within(1e-6));
    double r = json("--initial", "1s", "--retries", "5", "--deadline", "60s").get("multiplier").asDouble();
    assertThat((Math.pow(r, 5) - 1) / (r - 1)).isCloseTo(60, within(1e-6));
  }

  @Test
  void positionQuestion() throws Exception {
    JsonNode answer = json("--initial", "1s", "--multiplier", "2", "--at", "1023s");
    assertThat(answer.get("retry").asLong()).isEqualTo(10);
    assertThat(answer.get("previousDelaySeconds").asDouble()).isEqualTo(512);
    assertThat(answer.get("nextDelaySeconds").asDouble()).isEqualTo(1024);
    JsonNode slow = json("--initial", "1s", "--multiplier", "1.1", "--at", "1000s");
    assertThat(slow.get("retry").asLong()).isEqualTo(48);
    assertThat(ScheduleCommandTest.round3(slow.get("previousDelaySeconds").asDouble())).isEqualTo(88.197);
    assertThat(ScheduleCommandTest.round3(slow.get("nextDelaySeconds").asDouble())).isEqualTo(97.017);
    assertThat(ScheduleCommandTest.round3(slow.get("retryElapsedSeconds").asDouble())).isEqualTo(960.172);
    JsonNode capped = json("--initial", "1s", "--multiplier", "2", "--cap", "10s", "--at", "45s");
    assertThat(capped.get("retry").asLong()).isEqualTo(7);
    assertThat(capped.get("nextDelaySeconds").asDouble()).isEqualTo(10);
  }

  @Test
  void compareQuestion() throws Exception {
    JsonNode answer = json("--initial", "1s", "--multiplier", "2", "--compare-multiplier", "1.1", "--elapsed", "1000s");
    assertThat(answer.get("retries").get("2").asLong()).isEqualTo(9);
    assertThat(answer.get("retries").get("1.1").asLong()).isEqualTo(48);
    assertThat(answer.get("ratio").asDouble()).isCloseTo(48 / 9.0, within(1e-8));
    assertThat(answer.get("estimatedRatio").asDouble()).isCloseTo(Math.log(2) / Math.log(1.1), within(1e-8));
    JsonNode fixed = json("--initial", "1s", "--multiplier", "2", "--compare-multiplier", "1", "--elapsed", "10s");
    assertThat(fixed.get("estimatedRatio").isNull()).isTrue();
    CliRunner text = CliRunner.run("tune", "--initial", "1s", "--multiplier", "2", "--compare-multiplier", "1",
        "--elapsed", "10s");
    assertThat(text.out).contains("undefined").doesNotContain("NaN").doesNotContain("Infinity");
  }

  @Test
  void contradictoryAndInsufficientQuestionsNameTheFlags() {
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--elapsed", "1000s", "--interval", "100s", "--retries", "3"),
        "--retries");
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--elapsed", "1s", "--interval", "2s", "--retries", "3",
        "--deadline", "9s"), "contradictory");
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--multiplier", "2", "--at", "5s", "--elapsed", "5s"),
        "--elapsed");
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--multiplier", "2", "--compare-multiplier", "1.5",
        "--elapsed", "5s", "--cap", "3s"), "--cap");
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--multiplier", "2"), "--at");
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--retries", "3"), "--deadline");
    assertUsage(CliRunner.run("tune", "--initial", "1s"), "no question");
    assertUsage(CliRunner.run("tune", "--elapsed", "1000s", "--interval", "100s"), "--initial");
  }

  @Test
  void unsolvableQuestionsSaySo() {
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--retries", "10", "--deadline", "5s"), "deadline");
    assertUsage(CliRunner.run("tune", "--initial", "10s", "--elapsed", "100s", "--interval", "1s"),
        "shorter than the initial delay");
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--multiplier", "0.5", "--at", "3s"), "--multiplier");
    assertUsage(CliRunner.run("tune", "--initial", "0s", "--multiplier", "2", "--at", "3s"), "initial");
    assertUsage(CliRunner.run("tune", "--initial", "1s", "--retries", "0", "--deadline", "3s"), "--retries");
    assertUsage(CliRunner.run("tune", "--initial", "1ns", "--multiplier", "2", "--compare-multiplier", "1",
        "--elapsed", "100000000d"), "2^40");
  }

  @Test
  void aHugeMultiplierIsLocatedNotOverflowed() {
    // (multiplier − 1)·T/a overflowed and "more than 2^62 retries" came out: the truth is 1.
    CliRunner run = CliRunner.run("tune", "--initial", "1s", "--multiplier", "1e308", "--at", "100s");
    assertThat(run.exitCode).isZero();
    assertThat(run.out).startsWith("retry 1: sleep before 1s, sleep after 1e308s\n")
        .contains("at 100s the last retry was number 1 (at 1s)");
  }

  @Test
  void aMultiplierBarelyAbove1IsNotPrintedAs1() throws Exception {
    CliRunner run = CliRunner.run("tune", "--initial", "1ns", "--retries", "2000000000", "--deadline", "106000d");
    assertThat(run.exitCode).isZero();
    assertThat(run.out.lines().toList()).containsExactly("multiplier 1 + 1.274e-8",
        "solves a(r^N - 1)/(r - 1) = D: with initial 0.000000001s, retry 2000000000 happens at 9158400000s "
            + "(sleeps only); a policy's multiplier is a double, 1.0000000127413968, which reaches retry "
            + "2000000000 at 9158398879.134s");
    JsonNode answer = json("--initial", "1ns", "--retries", "2000000000", "--deadline", "106000d");
    assertThat(answer.get("multiplierMinusOne").decimalValue()).isEqualByComparingTo("1.274139689E-8");
    // Within a double's spacing of 1: the digits of r − 1 are still given.
    assertThat(CliRunner.run("tune", "--initial", "1s", "--elapsed", "100000000d", "--interval", "1000000001ns").out)
        .startsWith("multiplier 1 + 1.157e-22\n");
  }

  @Test
  void helpListsTheQuestions() {
    CliRunner help = CliRunner.run("tune", "--help");
    assertThat(help.exitCode).isZero();
    assertThat(help.out).contains("--compare-multiplier").contains("--deadline").contains("--at");
    assertThat(CliRunner.run("tune", "--version").exitCode).isZero();
  }
}
