package dev.backoff.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code --report DIR} of {@code simulate} and {@code contention}, checked before the run starts (a
 * run may take minutes; a typo in the path should not cost them): DIR is created if missing, but its parent
 * must exist, and DIR must be a directory we can write to. Each problem is a usage error (exit 2) that says
 * which: the parent is missing, the path is a file, the directory cannot be created, or it is not writable
 * ({@code /proc}, a read-only mount, no permission).
 *
 * <p>Stateless and thread-safe.
 */
final class ReportDirectory {
  private ReportDirectory() {}

  /**
   * Makes sure {@code directory} exists and is writable, and that none of the {@code files} to be written
   * into it is a directory or a file that cannot be overwritten.
   *
   * @throws Errors.UsageException naming the flag, the path and what is wrong with it
   */
  static void prepare(String flag, Path directory, String... files) {
    Path absolute = directory.toAbsolutePath().normalize();
    if (Files.exists(absolute)) {
      if (!Files.isDirectory(absolute)) {
        throw refused(flag, directory, "exists and is not a directory");
      }
    } else {
      Path parent = absolute.getParent();
      if (parent == null || !Files.exists(parent)) {
        throw refused(flag, directory, "its parent directory " + parent + " does not exist");
      }
      if (!Files.isDirectory(parent)) {
        throw refused(flag, directory, "its parent " + parent + " is not a directory");
      }
      try {
        Files.createDirectory(absolute);
      } catch (IOException e) {
        throw refused(flag, directory, "cannot create the directory in " + parent + ": " + reason(e));
      }
    }
    try {
      // Only writing tells for sure (root passes permission checks; /proc and read-only mounts do not).
      Files.delete(Files.createTempFile(absolute, ".backoff-", ".probe"));
    } catch (IOException e) {
      throw refused(flag, directory, "cannot write into the directory: " + reason(e));
    }
    for (String name : files) {
      Path file = absolute.resolve(name);
      if (Files.isDirectory(file)) {
        throw refused(flag, directory, name + " in it is a directory, so the report cannot be written there");
      }
      if (Files.exists(file) && !Files.isWritable(file)) {
        throw refused(flag, directory, name + " in it cannot be overwritten (permission denied)");
      }
    }
  }

  private static String reason(IOException e) {
    // The directory (or its parent) exists, so "no such file" means a file system that takes no new
    // entries, like /proc.
    return e instanceof java.nio.file.NoSuchFileException ? "refused by the file system" : InputFiles.reason(e);
  }

  private static Errors.UsageException refused(String flag, Path directory, String reason) {
    return new Errors.UsageException(flag + " " + directory + ": " + reason);
  }
}
