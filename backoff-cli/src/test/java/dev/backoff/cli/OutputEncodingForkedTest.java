package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@code backoff} script's JVM options make the output UTF-8 under a C locale, on the JDK running the
 * build (17 or 25): the simulator's sparklines and {@code µs} come out as the README shows them, not as
 * {@code ?}, and the bytes equal the in-process output's.
 */
@Tag("slow")
class OutputEncodingForkedTest {
  private static final String[] SMALL = {"simulate", "--clients", "100", "--duration", "30s", "--faults",
      "pause@10s+5s", "--policies", "fixed", "--timeout", "500ms"};

  /** The script's {@code -D...encoding=...} options, read from its exec line. */
  static List<String> encodingOptions() throws Exception {
    String script = Files.readString(Path.of("..", "backoff"));
    List<String> options = new ArrayList<>();
    Matcher m = Pattern.compile("-D[a-z.]*encoding=\\S+").matcher(script.substring(script.indexOf("exec java")));
    while (m.find()) {
      options.add(m.group());
    }
    return options;
  }

  @Test
  void theScriptsOptionsWriteUtf8UnderACLocale() throws Exception {
    List<String> options = encodingOptions();
    assertThat(options).contains("-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8");
    byte[] withOptions = fork(options);
    String expected = CliRunner.run(SMALL).out;
    assertThat(expected).contains("\u00b7").containsPattern("[\u2581-\u2588]");
    assertThat(withOptions).isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
    // Without them, this locale really does lose the characters: the options are what makes the difference.
    assertThat(new String(fork(List.of()), StandardCharsets.UTF_8)).doesNotContain("\u00b7");
  }

  private static byte[] fork(List<String> options) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java", "-Xmx256m"));
    command.addAll(options);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(SMALL));
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("LC_ALL", "C");
    builder.environment().put("LANG", "C");
    builder.environment().put("BACKOFF_NO_PROGRESS", "1");
    Process process = builder.start();
    CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
      try {
        return process.getInputStream().readAllBytes();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the command did not end within 60 s (a hang guard)");
    }
    assertThat(process.exitValue()).isZero();
    return out.get(10, TimeUnit.SECONDS);
  }
}
