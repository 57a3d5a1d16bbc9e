package dev.backoff.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Runs a class's {@code main} in a new JVM on this one's class path, for tests that must assert a memory
 * bound ({@code -Xmx64m}: buffering a large body whole fails there) or a process's exit status. The child's
 * standard output and error are read as one text while it runs (a full pipe would block it), and a
 * timeout guards against a hang: the child is killed and the test fails with what it printed.
 *
 * <pre>{@code
 * ForkedJvm.Result result = ForkedJvm.run(HugeBodyMain.class, List.of("-Xmx64m"), Duration.ofSeconds(60),
 *     server.uri().toString());
 * assertThat(result.exitCode()).as(result.output()).isZero();
 * }</pre>
 *
 * <p>Stateless; each call is independent.
 */
public final class ForkedJvm {
  private ForkedJvm() {}

  /**
   * What the child did.
   *
   * @param exitCode its exit status
   * @param output its standard output and error, interleaved as written, decoded as UTF-8
   */
  public record Result(int exitCode, String output) {}

  /**
   * Runs {@code mainClass} in a new JVM ({@code java.home}'s {@code java}, this JVM's class path) with
   * {@code jvmOptions} before the class name and {@code args} after it, and waits for it to end.
   *
   * @throws AssertionError if it has not ended within {@code timeout} (it is killed first)
   * @throws InterruptedException if interrupted while waiting (the child is killed)
   * @throws UncheckedIOException if the JVM cannot be started
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public static Result run(Class<?> mainClass, List<String> jvmOptions, Duration timeout, String... args)
      throws InterruptedException {
    Objects.requireNonNull(mainClass, "mainClass must not be null");
    Objects.requireNonNull(jvmOptions, "jvmOptions must not be null");
    Objects.requireNonNull(timeout, "timeout must not be null");
    Objects.requireNonNull(args, "args must not be null");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    command.addAll(List.of(args));
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command.get(0), e);
    }
    StringBuilder output = new StringBuilder();
    Thread reader = new Thread(() -> {
      try {
        String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        synchronized (output) {
          output.append(text);
        }
      } catch (IOException e) {
        synchronized (output) {
          output.append(e);
        }
      }
    }, "forked-jvm-output");
    reader.setDaemon(true);
    reader.start();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        reader.join(5_000);
        synchronized (output) {
          throw new AssertionError(mainClass.getSimpleName() + " did not finish within " + timeout.toSeconds()
              + " s (a hang guard): " + output);
        }
      }
      reader.join();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      throw e;
    }
    synchronized (output) {
      return new Result(process.exitValue(), output.toString());
    }
  }
}
