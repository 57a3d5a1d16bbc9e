package dev.backoff.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./backoff} launcher rebuilds the jar only when a source changed: a POM or a file under
 * {@code src/main}, never build output such as the copies of the examples' POMs that a test run leaves under
 * {@code examples/target/}. Runs the real script in a copy of the project's layout, with {@code mvn} and
 * {@code java} replaced by stubs that record their calls.
 */
class LauncherTest {
  private static final Instant JAR_TIME = Instant.parse("2026-01-02T00:00:00Z");

  @TempDir
  Path root;
  private Path calls;

  @BeforeEach
  void layout() throws IOException {
    Path script = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent().resolve("backoff");
    Files.copy(script, root.resolve("backoff"));
    executable(root.resolve("backoff"));
    calls = root.resolve("calls.txt");
    Path bin = Files.createDirectories(root.resolve("stub-bin"));
    stub(bin.resolve("mvn"), "echo mvn >> '" + calls + "'");
    stub(bin.resolve("java"), "echo java >> '" + calls + "'");
    write(root.resolve("pom.xml"), JAR_TIME.minusSeconds(60));
    write(root.resolve("backoff-core/src/main/java/A.java"), JAR_TIME.minusSeconds(60));
    write(root.resolve("backoff-cli/target/backoff.jar"), JAR_TIME);
  }

  @Test
  void buildOutputNewerThanTheJarDoesNotRebuild() throws Exception {
    write(root.resolve("examples/target/spring-boot-app/pom.xml"), JAR_TIME.plusSeconds(60));
    write(root.resolve("backoff-core/target/classes/A.class"), JAR_TIME.plusSeconds(60));
    write(root.resolve("backoff-core/target/generated-sources/src/main/B.java"), JAR_TIME.plusSeconds(60));
    assertThat(run()).containsExactly("java");
  }

  @Test
  void aChangedSourceOrPomRebuilds() throws Exception {
    write(root.resolve("backoff-core/src/main/java/A.java"), JAR_TIME.plusSeconds(60));
    assertThat(run()).containsExactly("mvn", "java");
    Files.delete(calls);
    write(root.resolve("backoff-core/src/main/java/A.java"), JAR_TIME.minusSeconds(60));
    write(root.resolve("examples/pom.xml"), JAR_TIME.plusSeconds(60));
    assertThat(run()).containsExactly("mvn", "java");
  }

  @Test
  void aMissingJarBuilds() throws Exception {
    Files.delete(root.resolve("backoff-cli/target/backoff.jar"));
    assertThat(run()).containsExactly("mvn", "java");
  }

  private List<String> run() throws Exception {
    ProcessBuilder builder = new ProcessBuilder("bash", root.resolve("backoff").toString(), "--version")
        .redirectErrorStream(true);
    builder.environment().put("PATH", root.resolve("stub-bin") + ":/usr/bin:/bin");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
  }

  private static void write(Path file, Instant modified) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "x");
    Files.setLastModifiedTime(file, FileTime.from(modified));
  }

  private static void stub(Path file, String body) throws IOException {
    Files.writeString(file, "#!/usr/bin/env bash\n" + body + "\n");
    executable(file);
  }

  private static void executable(Path file) throws IOException {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
