package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class RunCommandTest {
  private static final String[] FAST = {"run", "--strategy", "fixed", "--initial", "1ms"};

  @TempDir
  Path directory;

  @Test
  void exitsWithTheLastAttemptsStatusAfterTheAttemptLimit() {
    CliRunner result = CliRunner.run(ScheduleCommandTest.with(FAST, "--max-attempts", "3", "--", "sh", "-c", "exit 3"));
    assertThat(result.exitCode).isEqualTo(3);
    assertThat(result.err.lines().filter(line -> line.contains("attempt")).count()).isEqualTo(3);
    assertThat(result.err).contains("attempt 3 exited 3; giving up");
    assertThat(result.out).isEmpty();
  }

  @Test
  void retriesUntilTheCommandSucceeds() throws Exception {
    Path counter = directory.resolve("count");
    String script = "n=$(cat '" + counter + "' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '" + counter
        + "'; [ $n -ge 3 ]";
    CliRunner result = CliRunner.run(ScheduleCommandTest.with(FAST, "--max-attempts", "5", "--", "sh", "-c", script));
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(Files.readString(counter).trim()).isEqualTo("3");
    assertThat(result.err).contains("attempt 1 exited 1; retrying in 1ms").contains("attempt 3 succeeded");
  }

  @Test
  void retriesOnlyTheListedExitCodes() {
    CliRunner other = CliRunner.run(ScheduleCommandTest.with(FAST, "--retry-on-exit", "4,5", "--", "sh", "-c",
        "exit 3"));
    assertThat(other.exitCode).isEqualTo(3);
    assertThat(other.err).contains("attempt 1 exited 3; not retried");
    assertThat(other.err).doesNotContain("attempt 2");
    CliRunner listed = CliRunner.run(ScheduleCommandTest.with(FAST, "--max-attempts", "2", "--retry-on-exit", "3",
        "--", "sh", "-c", "exit 3"));
    assertThat(listed.exitCode).isEqualTo(3);
    assertThat(listed.err).contains("attempt 2 exited 3; giving up");
  }

  @Test
  void successAtOnceIsOneAttempt() {
    CliRunner result = CliRunner.run(ScheduleCommandTest.with(FAST, "--", "true"));
    assertThat(result.exitCode).isZero();
    assertThat(result.err.trim()).isEqualTo("backoff: attempt 1 succeeded");
  }

  /**
   * With --adaptive every retried exit is a throttle. The first comes before any time bucket closed, so the
   * limiter starts at 0.7 x the open bucket's rate (one response over a whole 0.5 s bucket: 1.4/s, not the
   * 0.5/s floor) with 1.4 tokens; the later attempts wait for their tokens, and the run stops with
   * DEADLINE_EXCEEDED at the first wait that would end past the 1 s deadline, without sleeping into it.
   */
  @Test
  void adaptiveRateLimitingStopsAWaitThatWouldPassTheDeadline() {
    CliRunner result = CliRunner.run(ScheduleCommandTest.with(FAST, "--adaptive", "--max-attempts", "5",
        "--deadline", "1s", "--", "sh", "-c", "exit 1"));
    assertThat(result.exitCode).as(result.err).isEqualTo(1);
    assertThat(result.err).contains("for the adaptive rate limiter (").doesNotContain("(0.50 requests/s)")
        .contains("giving up (DEADLINE_EXCEEDED");
    java.util.regex.Matcher elapsed = java.util.regex.Pattern.compile("DEADLINE_EXCEEDED, (\\d+)ms elapsed")
        .matcher(result.err);
    assertThat(elapsed.find()).as(result.err).isTrue();
    assertThat(Integer.parseInt(elapsed.group(1))).as("stopped before the deadline, not after a wait").isLessThan(1000);
  }

  @Test
  void deadlineStopsRetrying() {
    CliRunner result = CliRunner.run("run", "--strategy", "fixed", "--initial", "1h", "--max-attempts", "10",
        "--deadline", "1s", "--", "sh", "-c", "exit 7");
    assertThat(result.exitCode).isEqualTo(7);
    assertThat(result.err).contains("attempt 1 exited 7; giving up");
  }

  @Test
  void badInputIsAUsageError() {
    ScheduleCommandTest.assertUsage(CliRunner.run(ScheduleCommandTest.with(FAST, "--retry-on-exit", "0", "--",
        "true")), "--retry-on-exit");
    ScheduleCommandTest.assertUsage(CliRunner.run("run", "--max-attempts", "0", "--", "true"), "--max-attempts");
    ScheduleCommandTest.assertUsage(CliRunner.run("run", "--deadline", "0s", "--", "true"), "--deadline");
    ScheduleCommandTest.assertUsage(CliRunner.run("run"), "<command>");
    CliRunner missing = CliRunner.run(ScheduleCommandTest.with(FAST, "--", "/nonexistent/backoff-test-command"));
    assertThat(missing.exitCode).isEqualTo(2);
    assertThat(missing.err).contains("cannot run '/nonexistent/backoff-test-command'");
  }

  @Test
  void interruptStopsAWaitAtOnce() throws Exception {
    StringWriter err = new StringWriter();
    AtomicInteger code = new AtomicInteger(-1);
    Thread thread = new Thread(() -> code.set(Main.newCommandLine(new PrintWriter(new StringWriter()),
        new PrintWriter(err, true)).execute("run", "--strategy", "fixed", "--initial", "1h", "--max-attempts", "3",
        "--", "sh", "-c", "exit 1")));
    thread.start();
    while (!err.toString().contains("retrying in")) {
      assertThat(thread.isAlive()).as(err.toString()).isTrue();
      Thread.sleep(5);
    }
    thread.interrupt();
    thread.join(60_000); // liveness bound only: without the interrupt this would wait an hour
    assertThat(thread.isAlive()).isFalse();
    assertThat(code.get()).isEqualTo(RunCommand.INTERRUPTED);
    assertThat(err.toString()).contains("interrupted; stopped");
  }

  @Test
  void stopKillsTheRunningCommand() throws Exception {
    Path marker = directory.resolve("started");
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.newCommandLine(new PrintWriter(new StringWriter()), new PrintWriter(err, true));
    RunCommand run = commandLine.getSubcommands().get("run").getCommand();
    AtomicInteger code = new AtomicInteger(-1);
    Thread thread = new Thread(() -> code.set(commandLine.execute("run", "--", "sh", "-c",
        "touch '" + marker + "'; exec sleep 600")));
    thread.start();
    while (!Files.exists(marker)) {
      assertThat(thread.isAlive()).isTrue();
      Thread.sleep(5);
    }
    List<ProcessHandle> children = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
    assertThat(children).isNotEmpty();
    run.stop(); // what the shutdown hook does on Ctrl-C
    thread.join(60_000);
    assertThat(thread.isAlive()).isFalse();
    assertThat(code.get()).isEqualTo(RunCommand.INTERRUPTED);
    // The default policy would retry the killed command: no retry is announced for a stopped run.
    assertThat(err.toString()).doesNotContain("retrying in").endsWith("backoff: interrupted; stopped\n");
    for (ProcessHandle child : children) {
      // Killing is asynchronous; a child that was not killed would sleep for ten minutes and fail this.
      child.onExit().get(60, TimeUnit.SECONDS);
      assertThat(child.isAlive()).isFalse();
    }
  }
}
