package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A command stopped by Ctrl-C or SIGTERM says so on stderr, as {@code run} does, instead of ending silently
 * with a missing or half-written output; the commands that stop on a signal by design (run, the lab's server
 * and client) report their own stop and get no second line.
 */
class InterruptionTest {
  private static CommandLine.ParseResult parse(String... args) {
    CommandLine commandLine = Main.newCommandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    return commandLine.parseArgs(args);
  }

  @Test
  void theLongRunningCommandsSayTheyWereStopped() {
    assertThat(Main.interruptionMessage(parse("simulate", "--clients", "10")))
        .isEqualTo("backoff: simulate interrupted; stopped before it finished (its output is incomplete)");
    assertThat(Main.interruptionMessage(parse("advise", "--objective", "recovers>=0.9"))).startsWith("backoff: advise interrupted;");
    assertThat(Main.interruptionMessage(parse("sweep", "clients=10..20:10"))).startsWith("backoff: sweep interrupted;");
    assertThat(Main.interruptionMessage(parse("lab", "demo"))).startsWith("backoff: lab demo interrupted;");
  }

  @Test
  void commandsThatReportTheirOwnStopGetNoSecondLine() {
    assertThat(Main.interruptionMessage(parse("run", "true"))).isNull();
    assertThat(Main.interruptionMessage(parse("lab", "server"))).isNull();
    assertThat(Main.interruptionMessage(parse("lab", "client"))).isNull();
    assertThat(Main.interruptionMessage(parse())).isNull();
    assertThat(Main.interruptionMessage(null)).isNull();
  }

  @Test
  @Tag("slow")
  void aSignalledSimulationSaysSoOnStderr(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    // A simulation far longer than the test: SIGTERM (what Process.destroy sends) arrives while it runs.
    List<String> command = List.of(
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java", "-Xmx1g",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "simulate", "--clients", "2000", "--duration", "2000000s", "--policies", "storm-exponential");
    java.nio.file.Path stderr = dir.resolve("stderr.txt");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(stderr.toFile()); // Process.destroy closes the pipes it made
    builder.environment().put("BACKOFF_NO_PROGRESS", "1");
    Process process = builder.start();
    try {
      Thread.sleep(5_000); // the JVM starts and installs its hook well within this, even on a loaded machine
      assertThat(process.isAlive()).as("the simulation still runs when signalled").isTrue();
      process.destroy();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      String err = java.nio.file.Files.readString(stderr, StandardCharsets.UTF_8);
      assertThat(process.exitValue()).isEqualTo(143);
      assertThat(err).isEqualTo("backoff: simulate interrupted; stopped before it finished (its output is incomplete)\n");
    } finally {
      process.destroyForcibly();
    }
  }
}
