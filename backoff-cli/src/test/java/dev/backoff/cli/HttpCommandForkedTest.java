package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedHttpServer;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code backoff http} in a forked JVM with a small heap, against hostile servers. */
@Tag("slow")
class HttpCommandForkedTest {
  static final long BODY = 300L * 1024 * 1024;
  // Own threads: the common pool may have a single one on a small machine, held by the silent server.
  static final java.util.concurrent.ExecutorService THREADS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "forked-test-io");
    thread.setDaemon(true);
    return thread;
  });

  @Test
  void aHugeErrorBodyIsCutAndTheCommandEndsWithinASmallHeap() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503, BODY))) {
      Result result = fork(Main.class.getName(), "http", "--strategy", "fixed", "--initial", "1ms",
          "--max-attempts", "3", server.uri().toString());

      assertThat(result.exitCode).as(result.err).isEqualTo(HttpCommand.GAVE_UP);
      assertThat(result.err.lines()).startsWith(
          "attempt 1: 503, retrying in 1ms (throttled)",
          "attempt 2: 503, retrying in 1ms (throttled)");
      assertThat(result.err).contains("attempt 3: 503, gave up: ")
          .contains("backoff: body cut after 65536 bytes of " + BODY);
      assertThat(result.out.length).isBetween(HttpCommand.ERROR_BODY_LIMIT, 3 * HttpCommand.ERROR_BODY_LIMIT);
      assertThat(server.requestCount()).isEqualTo(3);
      System.out.println("HttpCommandForkedTest: stdout " + result.out.length + " bytes, stderr: " + result.err);
    }
  }

  @Test
  void anOutOfMemoryErrorInAnyThreadEndsTheProcess() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      // Accepts and reads, never answers: without the exit, the command would wait forever.
      CompletableFuture.runAsync(() -> {
        try (Socket connection = silent.accept(); InputStream in = connection.getInputStream()) {
          in.transferTo(OutputStreamNull.INSTANCE);
        } catch (IOException e) {
          // closed by the test
        }
      }, THREADS);
      Result result = fork(OutOfMemoryInHttpMain.class.getName(),
          "http://127.0.0.1:" + silent.getLocalPort() + "/");

      assertThat(result.exitCode).isEqualTo(Errors.FAILURE);
      assertThat(result.err).contains("backoff: out of memory in thread worker; exiting");
    }
  }

  /** Discards what it is given. */
  static final class OutputStreamNull extends java.io.OutputStream {
    static final OutputStreamNull INSTANCE = new OutputStreamNull();

    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }

  record Result(int exitCode, byte[] out, String err) {}

  static Result fork(String mainClass, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
        "-Xmx64m", "-cp", System.getProperty("java.class.path"), mainClass));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).start();
    // Both pipes read while it runs (a full pipe would block the child); bounded by the wait below.
    CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()), THREADS);
    CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()), THREADS);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the command did not end within 60 s (a hang guard); stderr so far: "
          + new String(err.getNow(new byte[0]), StandardCharsets.UTF_8));
    }
    return new Result(process.exitValue(), out.get(10, TimeUnit.SECONDS),
        new String(err.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      return e.toString().getBytes(StandardCharsets.UTF_8);
    }
  }
}
