package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a held request costs, asserted in a forked JVM with a small heap rather than estimated: 2000 held
 * requests (fewer under a low {@code ulimit -n}), half of them abandoned, fit in a 16 MiB heap. Measured
 * on JDK 17: this server needs 8 MiB for them; the JDK {@code HttpServer} the lab used before ran out of
 * memory at 48 MiB and needed 64.
 */
@Tag("slow")
@Timeout(120)
class LabServerMemoryTest {

  @Test
  void twoThousandHeldRequestsFitInASixteenMebibyteHeap() throws Exception {
    long limit = FileDescriptors.limit().orElse(4096);
    int requests = (int) Math.min(2000, (limit - 2 * FileDescriptors.RESERVED) / 2);
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx16m", "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"),
        HeldRequestsInSmallHeap.class.getName(), Integer.toString(requests))
        .redirectErrorStream(true).start();
    String output = read(process);
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("finished; output: %s", output).isTrue();
    assertThat(process.exitValue()).as("exit status; output: %s", output).isZero();
    assertThat(output).contains("held " + requests + " abandoned " + requests / 2);
  }

  private static String read(Process process) throws IOException {
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
