package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runs that used to die of OutOfMemoryError after tens of seconds, scaled down to a 256 MiB heap in a
 * forked JVM: each either finishes or is refused up front (exit 2, the heap it needs), never an OOM.
 */
@Tag("slow")
class SimulateMemoryTest {
  @TempDir Path directory;

  private record Outcome(int exitCode, String out, String err) {}

  private Outcome simulate(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "simulate"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(directory, "out", ".txt");
    Path err = Files.createTempFile(directory, "err", ".txt");
    Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError("simulate " + String.join(" ", args) + " still running after 120 s");
    }
    return new Outcome(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  private void assertRefusedUpFront(Outcome outcome, String key) {
    assertThat(outcome.exitCode).as(outcome.err).isEqualTo(2);
    assertThat(outcome.err).startsWith("backoff: " + key + ": ").contains("may need about").contains("MiB of heap")
        .contains("BACKOFF_JAVA_OPTS=-Xmx").doesNotContain("OutOfMemoryError");
    assertThat(outcome.out).isEmpty();
  }

  private void assertFinished(Outcome outcome) {
    assertThat(outcome.err).doesNotContain("OutOfMemoryError");
    assertThat(outcome.exitCode).as(outcome.err).isZero();
    assertThat(outcome.out).startsWith("policy,t,");
  }

  @Test
  void closedLoopStormsFinishOrAreRefused() throws Exception {
    // A million clients with 2 GiB, scaled to 256 MiB: 125000 clients (estimate ~402 MiB of the ~173 MiB a run
    // may use; an abandoned request costs 16 bytes, so 30000 clients, refused before that, now fit).
    assertRefusedUpFront(simulate("--clients", "125000", "--policies", "storm-fixed", "--format", "csv"), "clients");
    // Below the limit (the estimate is ~37 MiB; backoff-sim's MemoryEstimateTest runs a storm in exactly the
    // heap its estimate asks for): it must fit.
    assertFinished(simulate("--clients", "8000", "--policies", "storm-fixed", "--format", "csv"));
  }

  @Test
  void openLoopStormsFinishOrAreRefused() throws Exception {
    assertRefusedUpFront(simulate("--client", "open", "--rate", "9999999", "--format", "csv"), "rate");
    // Every arrival retrying every 2.1 s for the rest of the run: millions of abandoned requests.
    assertRefusedUpFront(simulate("--client", "open", "--rate", "300", "--policies", "storm-fixed", "--format", "csv"), "rate");
    assertFinished(simulate("--client", "open", "--rate", "20", "--policies", "storm-fixed", "--format", "csv"));
  }
}
