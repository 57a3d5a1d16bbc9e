package dev.backoff.cli;

import static dev.backoff.cli.HelpTest.assertOneLineAndHint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each error a user can make gives one line with its cause (the file, line and column of a syntax error; the
 * host that does not resolve; which part of a path is wrong) and the documented exit code.
 */
@Timeout(60)
class CliErrorsTest {
  @TempDir Path directory;

  // --- scenario files: where the syntax breaks ---

  @Test
  void malformedYamlNamesTheFileLineAndColumn() throws Exception {
    Path file = directory.resolve("bad.yaml");
    Files.writeString(file, "clients: 10\nduration: [20s\n");
    assertOneLineAndHint(CliRunner.run("simulate", "--scenario", file.toString()), "backoff: " + file
        + ":3:1: not valid YAML: expected ',' or ']', but got <stream end> (while parsing a flow sequence from "
        + "line 2, column 11)");
    Path indented = directory.resolve("indented.yaml");
    Files.writeString(indented, "clients: 10\n  duration: 5s\n");
    assertOneLineAndHint(CliRunner.run("contention", "--scenario", indented.toString()),
        indented + ":2:11: not valid YAML: mapping values are not allowed here");
    Path tab = directory.resolve("tab.yaml");
    Files.writeString(tab, "clients: 10\n\tseed: 2\n");
    assertOneLineAndHint(CliRunner.run("simulate", "--scenario", tab.toString()), tab + ":2:1: not valid YAML: found "
        + "character '\\t(TAB)' that cannot start any token");
  }

  @Test
  void malformedJsonNamesTheFileLineAndColumn() throws Exception {
    Path file = directory.resolve("bad.json");
    // YAML would read this as "duration: ''" and blame the value; as JSON the missing value is at 2:14.
    Files.writeString(file, "{\"clients\": 10,\n \"duration\": }\n");
    assertOneLineAndHint(CliRunner.run("simulate", "--scenario", file.toString()),
        "backoff: " + file + ":2:14: not valid JSON: Unexpected character ('}' (code 125))");
    Path comma = directory.resolve("comma.json");
    Files.writeString(comma, "{\"clients\": 10\n \"seed\": 3}\n");
    assertOneLineAndHint(CliRunner.run("contention", "--scenario", comma.toString()),
        comma + ":2:2: not valid JSON: Unexpected character ('\"' (code 34)): was expecting comma");
  }

  @Test
  void validJsonScenarioFilesStillWork() throws Exception {
    Path file = directory.resolve("ok.json");
    Files.writeString(file, "{\"clients\": 20, \"duration\": \"20s\", \"faults\": [\"pause@5s+2s\"], "
        + "\"policies\": [\"fixed\"]}");
    CliRunner result = CliRunner.run("simulate", "--scenario", file.toString(), "--format", "csv");
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(result.out.lines().count()).isEqualTo(1 + 20);
  }

  // --- http ---

  @Test
  void anUnknownHostIsNamed() {
    // .invalid never resolves (RFC 6761); the JDK's client reports only "ConnectException".
    CliRunner result = CliRunner.run("http", "--max-attempts", "2", "http://no-such-host.invalid:8080/x");
    assertThat(result.exitCode).as(result.err).isEqualTo(Errors.FAILURE);
    assertThat(result.err).contains("attempt 1: unknown host no-such-host.invalid")
        .contains("backoff: unknown host no-such-host.invalid (")
        .doesNotContain("ConnectException").doesNotContain("\tat ");
    assertThat(result.out).isEmpty();
  }

  // --- schedule --plot: no directories made behind the user's back ---

  @Test
  void aPlotInAMissingDirectoryIsRefusedAndNothingIsCreated() {
    Path plot = directory.resolve("no").resolve("such").resolve("x.png");
    assertOneLineAndHint(CliRunner.run("schedule", "--plot", plot.toString()),
        "--plot " + plot + ": its directory " + plot.getParent() + " does not exist (it is not created; create it first)");
    assertThat(directory.resolve("no")).doesNotExist();
  }

  @Test
  void aPlotPathThatIsADirectoryOrUnwritableIsNamedAsSuch() throws Exception {
    Path named = Files.createDirectory(directory.resolve("x.png"));
    assertOneLineAndHint(CliRunner.run("schedule", "--plot", named.toString()), "--plot " + named + ": is a directory, not a file");
    Path file = Files.writeString(directory.resolve("file"), "x");
    assertOneLineAndHint(CliRunner.run("schedule", "--plot", file.resolve("x.svg").toString()),
        "its parent " + file + " is not a directory");
    if (Files.isDirectory(Path.of("/proc/self"))) {
      assertOneLineAndHint(CliRunner.run("schedule", "--plot", "/proc/x.png"), "--plot /proc/x.png: cannot write into /proc");
    }
  }

  @Test
  void aPlotNextToExistingFilesIsWritten() {
    Path plot = directory.resolve("x.png");
    CliRunner result = CliRunner.run("schedule", "--strategy", "fixed", "--retries", "3", "--plot", plot.toString());
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(plot).isNotEmptyFile();
  }

  // --- run ---

  @Test
  void runPassesOptionsAfterTheCommandsNameToTheCommand() throws Exception {
    // No "--": from the command's name on, "-c" and the rest are the command's, as with nice or timeout.
    Path log = directory.resolve("log");
    CliRunner result = CliRunner.run("run", "--strategy", "fixed", "--initial", "1ms", "--max-attempts", "2",
        "sh", "-c", "echo \"$1 $2\" >> '" + log + "'; exit 4", "sh", "--max-attempts", "9");
    assertThat(result.exitCode).as(result.err).isEqualTo(4);
    assertThat(Files.readString(log)).isEqualTo("--max-attempts 9\n--max-attempts 9\n"); // two attempts, not nine
    assertThat(result.err).contains("attempt 2 exited 4; giving up");
  }

  @Test
  void anUnknownOptionBeforeTheCommandHintsAtTheDoubleDash() {
    CliRunner result = CliRunner.run("run", "-la", "ls");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err.lines().toList()).containsExactly("backoff: unknown option '-la' for 'backoff run'",
        "If '-la' is for the command, put -- before the command: backoff run [OPTIONS] -- COMMAND [ARGS...]");
    CliRunner typo = CliRunner.run("run", "--max-atempts", "3", "true");
    assertThat(typo.exitCode).isEqualTo(2);
    assertThat(typo.err.lines().toList()).hasSize(2);
    assertThat(typo.err).contains("did you mean '--max-attempts'?").contains("put -- before the command");
    // With "--" given, the usual hint: the option was meant for backoff.
    assertOneLineAndHint(CliRunner.run("run", "--bogus", "--", "true"), "unknown option '--bogus'");
  }

  @Test
  void aCommandEndedByCtrlCStopsTheRunWithoutARetryLine() {
    // The terminal sends SIGINT to the command and to backoff; the command can die first. Here it does: it
    // sends SIGINT to itself (status 130), before any handler of ours could run. (Where SIGINT is ignored, as
    // in a background job, a shell cannot undo that; it then exits 130 as a shell does after a Ctrl-C.)
    CliRunner result = CliRunner.run("run", "--strategy", "fixed", "--initial", "1ms", "--max-attempts", "5",
        "--", "sh", "-c", "kill -INT $$; exit 130");
    assertThat(result.exitCode).isEqualTo(RunCommand.INTERRUPTED);
    assertThat(result.err.lines().toList()).containsExactly(
        "backoff: attempt 1 exited 130; not retried (INTERRUPTED)",
        "backoff: interrupted; stopped");
  }

  @Test
  void exitStatus130IsRetriedWhenListed() {
    CliRunner result = CliRunner.run("run", "--strategy", "fixed", "--initial", "1ms", "--max-attempts", "3",
        "--retry-on-exit", "130", "--", "sh", "-c", "exit 130");
    assertThat(result.exitCode).isEqualTo(130);
    assertThat(result.err).contains("attempt 1 exited 130; retrying in 1ms")
        .contains("attempt 3 exited 130; giving up");
  }

  // --- numbers that differ never print the same ---

  @Test
  void tuneShowsTwoDifferentRetryTimesAsDifferent() {
    CliRunner result = CliRunner.run("tune", "--initial", "1s", "--multiplier", "1", "--at", "99999999999s");
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(result.out).isEqualTo("retry 99999999999: sleep before 1s, sleep after 1s\n"
        + "at 99999999999s the last retry was number 99999999999 (at 99999999999s); the next comes at "
        + "100000000000s\n");
    CliRunner close = CliRunner.run("tune", "--initial", "1s", "--multiplier", "1.0000000001", "--at", "10s");
    assertThat(close.exitCode).as(close.err).isZero();
    // Three decimals would print both sleeps as "1s".
    assertThat(close.out).startsWith("retry 10: sleep before 1.0000000009s, sleep after 1.000000001s\n");
  }

  @Test
  void aReportFileInTheWayIsNamedBeforeTheRun() throws Exception {
    Path report = directory.resolve("report");
    Files.createDirectories(report.resolve("contention.json"));
    assertOneLineAndHint(CliRunner.run("contention", "--clients", "10", "--runs", "1", "--report", report.toString()),
        "--report " + report + ": contention.json in it is a directory, so the report cannot be written there");
    Files.createDirectories(report.resolve("simulation.csv"));
    assertOneLineAndHint(CliRunner.run("simulate", "--clients", "20", "--duration", "20s", "--faults", "pause@5s+2s",
        "--policies", "fixed", "--report", report.toString()), "simulation.csv in it is a directory");
  }

  @Test
  void aFileSystemFailureSaysWhyNotJustThePath() {
    // The JDK's message for these is the bare path.
    assertThat(Errors.message(new java.nio.file.AccessDeniedException("out/simulation.html")))
        .isEqualTo("out/simulation.html: permission denied");
    assertThat(Errors.message(new java.nio.file.NoSuchFileException("out/x.png"))).isEqualTo("out/x.png: no such file");
    assertThat(Errors.message(new java.nio.file.FileSystemException("a", "b", "Read-only file system")))
        .isEqualTo("a -> b: Read-only file system");
    assertThat(Errors.message(new IllegalStateException("first\nsecond"))).isEqualTo("first");
  }

  @Test
  void aReportDirectoryThatCannotBeWrittenIsAUsageError() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")));
    assertOneLineAndHint(CliRunner.run("contention", "--report", "/proc"), "--report /proc: cannot write into the directory");
  }
}
