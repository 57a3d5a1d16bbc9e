package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Files and numbers a user (or an attacker feeding a script) can throw at the commands: every one is a usage
 * error, exit 2, one line and a hint, never a hang, an OutOfMemoryError or a silently different value.
 */
@Timeout(30)
class HostileInputTest {
  @TempDir Path directory;

  private static final String[] QUICK = {"--clients", "20", "--duration", "20s", "--faults", "pause@5s+2s",
      "--policies", "fixed"};

  private static void assertUsage(CliRunner result, String message) {
    assertThat(result.exitCode).as(result.err).isEqualTo(2);
    assertThat(result.err).contains(message).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(result.err.lines()).as(result.err).hasSize(2);
    assertThat(result.err.lines().skip(1).findFirst().orElseThrow()).contains("--help");
    assertThat(result.out).isEmpty();
  }

  private static String[] simulate(String... args) {
    String[] all = new String[QUICK.length + args.length + 1];
    all[0] = "simulate";
    System.arraycopy(QUICK, 0, all, 1, QUICK.length);
    System.arraycopy(args, 0, all, 1 + QUICK.length, args.length);
    return all;
  }

  // --- numbers: exact, and the same from a flag and from a file ---

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "clients|18446744073709551626|clients: 18446744073709551626 is out of range (1..2147483647)",
      "reject-status|4294967799|reject-status: must be 503 or 429, was 4294967799",
      "seed|9223372036854775808|seed: 9223372036854775808 is out of range (-9223372036854775808..9223372036854775807)",
      "backlog|-1|backlog: -1 is out of range (0..100000000)",
  })
  void outOfRangeNumbersAreRefusedAlikeFromFlagsAndFiles(String key, String value, String message) throws Exception {
    assertUsage(CliRunner.run("simulate", "--" + key, value), message);
    Path file = directory.resolve("scenario.yaml");
    Files.writeString(file, key + ": " + value + "\n");
    assertUsage(CliRunner.run("simulate", "--scenario", file.toString()), message);
    Path json = directory.resolve("scenario.json");
    Files.writeString(json, "{\"" + key + "\": " + value + "}");
    assertUsage(CliRunner.run("simulate", "--scenario", json.toString()), message);
  }

  @Test
  void contentionNumbersAreExactFromFlagsAndFiles() throws Exception {
    assertUsage(CliRunner.run("contention", "--seed", "18446744073709551616"), "seed: 18446744073709551616 is out of range");
    Path file = directory.resolve("contention.yaml");
    Files.writeString(file, "runs: 4294967297\n");
    assertUsage(CliRunner.run("contention", "--scenario", file.toString()), "runs: 4294967297 is out of range (1..1000000)");
  }

  @Test
  void contentionRefusesWorkThatWouldRunForHoursUpFront() {
    assertUsage(CliRunner.run("contention", "--clients", "100000"), "backoff: clients: about ");
    assertUsage(CliRunner.run("contention", "--clients", "100000"), "more than the limit of 200000000; use fewer");
  }

  // --- files ---

  @Test
  void aBinaryScenarioFileIsNotUtf8Text() throws Exception {
    Path file = directory.resolve("binary.yaml");
    Files.write(file, new byte[] {'s', 'e', 'e', 'd', ':', ' ', (byte) 0xC3, 0x28, 0, 1, 2});
    assertUsage(CliRunner.run("simulate", "--scenario", file.toString()),
        "--scenario " + file + ": is not UTF-8 text (byte 0xC3 at offset 6)");
    assertUsage(CliRunner.run("contention", "--scenario", file.toString()), "is not UTF-8 text (byte 0xC3 at offset 6)");
  }

  @Test
  void aDirectoryOrAMissingFileIsNamedAsSuch() {
    assertUsage(CliRunner.run("simulate", "--scenario", directory.toString()),
        "--scenario " + directory + ": is a directory, not a file");
    assertUsage(CliRunner.run("simulate", "--scenario", directory.resolve("missing.yaml").toString()),
        "missing.yaml: no such file");
  }

  @Test
  void devicesAreRefusedBeforeTheyAreRead() {
    assumeTrue(Files.exists(Path.of("/dev/zero")));
    assertUsage(CliRunner.run("simulate", "--scenario", "/dev/zero"),
        "--scenario /dev/zero: is not a regular file (a FIFO, device or socket)");
    assertUsage(CliRunner.run("contention", "--scenario", "/dev/zero"), "is not a regular file");
  }

  @Test
  void aFifoIsRefusedWithoutWaitingForAWriter() throws Exception {
    Path fifo = directory.resolve("pipe");
    Process mkfifo;
    try {
      mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    } catch (java.io.IOException e) {
      assumeTrue(false, "no mkfifo on this system");
      return;
    }
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo failed");
    // Opening a FIFO for reading blocks until a writer comes: the class-level timeout catches a hang.
    assertUsage(CliRunner.run("simulate", "--scenario", fifo.toString()), "is not a regular file");
  }

  @Test
  void aScenarioFileOverOneMebibyteIsRefused() throws Exception {
    Path file = directory.resolve("huge.yaml");
    byte[] comment = new byte[(1 << 20) + 1];
    java.util.Arrays.fill(comment, (byte) ' ');
    comment[0] = '#';
    Files.write(file, comment);
    assertUsage(CliRunner.run("simulate", "--scenario", file.toString()),
        "huge.yaml: is 1048577 bytes, more than the limit of 1 MiB");
  }

  @Test
  void procFilesWhoseSizeReadsZeroAreStillBounded() {
    // /proc files say they are empty; the reader counts what it reads instead.
    assumeTrue(Files.isRegularFile(Path.of("/proc/self/status")));
    CliRunner result = CliRunner.run("simulate", "--scenario", "/proc/self/status");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).doesNotContain("Exception");
  }

  @Test
  void duplicateKeysAreRefused() throws Exception {
    Path file = directory.resolve("twice.yaml");
    Files.writeString(file, "clients: 10\nduration: 20s\nclients: 20\n");
    assertUsage(CliRunner.run("simulate", "--scenario", file.toString()), "key 'clients' appears twice (line 3");
  }

  @Test
  void aByteOrderMarkIsAccepted() throws Exception {
    Path file = directory.resolve("bom.yaml");
    Files.write(file, ("\uFEFFclients: 20\nduration: 20s\nfaults: [pause@5s+2s]\npolicies: [fixed]\n")
        .getBytes(StandardCharsets.UTF_8));
    CliRunner result = CliRunner.run("simulate", "--scenario", file.toString(), "--format", "csv");
    assertThat(result.exitCode).as(result.err).isZero();
    assertThat(result.out.lines().count()).isEqualTo(1 + 20);
  }

  @Test
  void httpDataFromADeviceOrAnOversizedFileIsRefusedAndNothingIsSent() throws Exception {
    Path big = directory.resolve("big.bin");
    try (RandomAccessFile file = new RandomAccessFile(big.toFile(), "rw")) {
      file.setLength(InputFiles.BODY_LIMIT + 1L); // sparse: no 16 MiB written
    }
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(200, "ok"))) {
      if (Files.exists(Path.of("/dev/zero"))) {
        assertUsage(CliRunner.run("http", "--data", "@/dev/zero", server.uri("/api").toString()),
            "--data /dev/zero: is not a regular file (a FIFO, device or socket)");
      }
      assertUsage(CliRunner.run("http", "--data", "@" + directory, server.uri("/api").toString()),
          "is a directory, not a file");
      assertUsage(CliRunner.run("http", "--data", "@" + big, server.uri("/api").toString()),
          "big.bin: is 16777217 bytes, more than the limit of 16 MiB");
      assertThat(server.requests()).isEmpty();
      // Binary bodies are fine: only scenario files must be text.
      Path binary = directory.resolve("body.bin");
      Files.write(binary, new byte[] {(byte) 0xC3, 0x28});
      assertThat(CliRunner.run("http", "--data", "@" + binary, server.uri("/api").toString()).exitCode).isZero();
      assertThat(server.requests()).hasSize(1);
    }
  }

  // --- report directories: checked before the run ---

  @Test
  void reportDirectoryProblemsAreNamedBeforeTheRun() throws Exception {
    Path file = directory.resolve("file.txt");
    Files.writeString(file, "x");
    assertUsage(CliRunner.run(simulate("--report", file.toString())), "--report " + file + ": exists and is not a directory");
    Path orphan = directory.resolve("no").resolve("such").resolve("dir");
    assertUsage(CliRunner.run(simulate("--report", orphan.toString())),
        "its parent directory " + directory.resolve("no").resolve("such") + " does not exist");
    assertUsage(CliRunner.run(simulate("--report", file.resolve("sub").toString())), "is not a directory");
    assertUsage(CliRunner.run("contention", "--report", file.toString()), "exists and is not a directory");
    if (Files.isDirectory(Path.of("/proc/self"))) {
      assertUsage(CliRunner.run(simulate("--report", "/proc/foo")), "--report /proc/foo: cannot create the directory in /proc");
      assertUsage(CliRunner.run(simulate("--report", "/proc")), "--report /proc: cannot write into the directory");
    }
    Path fresh = directory.resolve("fresh");
    CliRunner ok = CliRunner.run(simulate("--report", fresh.toString(), "--format", "csv"));
    assertThat(ok.exitCode).as(ok.err).isZero();
    try (java.util.stream.Stream<Path> files = Files.list(fresh)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
          .containsExactly("simulation-summary.csv", "simulation.csv", "simulation.html", "simulation.json");
    }
  }
}
