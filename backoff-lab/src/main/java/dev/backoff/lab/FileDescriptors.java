package dev.backoff.lab;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * The process's limit on open files ({@code ulimit -n}), so that the lab can refuse a fleet or a server
 * that would run out of sockets half-way through a storm with a clear message rather than fail obscurely.
 * Stateless and thread-safe.
 */
final class FileDescriptors {
  /** Descriptors kept aside for the JVM itself (jars, selectors, pipes, logs). */
  static final int RESERVED = 128;

  private FileDescriptors() {}

  /** The soft limit on open files, if the platform tells. */
  public static OptionalLong limit() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      long max = unix.getMaxFileDescriptorCount();
      if (max > 0) {
        return OptionalLong.of(max);
      }
    }
    return fromProcLimits(Path.of("/proc/self/limits"));
  }

  /** The number of open files now, or -1 if unknown. */
  public static long open() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      return unix.getOpenFileDescriptorCount();
    }
    return -1;
  }

  /** Parses the "Max open files" soft limit from a Linux {@code /proc/<pid>/limits} file. */
  static OptionalLong fromProcLimits(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
      return parseProcLimits(lines);
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  static OptionalLong parseProcLimits(List<String> lines) {
    for (String line : lines) {
      if (line.startsWith("Max open files")) {
        String[] fields = line.substring("Max open files".length()).trim().split("\\s+");
        if (fields.length > 0) {
          if (fields[0].equals("unlimited")) {
            return OptionalLong.of(Long.MAX_VALUE);
          }
          try {
            return OptionalLong.of(Long.parseLong(fields[0]));
          } catch (NumberFormatException e) {
            return OptionalLong.empty();
          }
        }
      }
    }
    return OptionalLong.empty();
  }

  /**
   * Checks that {@code needed} sockets (plus a reserve for the JVM) fit under the limit.
   *
   * @param what what needs them, for the message (e.g. "--clients 1000 and --max-connections 4000")
   * @throws IllegalStateException naming the limit, the need and how to fix it
   */
  public static void require(long needed, String what) {
    OptionalLong limit = limit();
    if (limit.isPresent() && needed + RESERVED > limit.getAsLong()) {
      throw new IllegalStateException("ulimit -n is " + limit.getAsLong() + " but " + what + " need about "
          + (needed + RESERVED) + " file descriptors; raise it (e.g. ulimit -n " + roundUp(needed + RESERVED)
          + ") or ask for fewer");
    }
  }

  private static long roundUp(long value) {
    long power = 1024;
    while (power < value) {
      power *= 2;
    }
    return power;
  }
}
