package dev.backoff.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads the files the commands take as input ({@code --scenario FILE}, {@code http --data @FILE}) so that a
 * hostile or mistaken path is a usage error with its reason, never a hang, an OutOfMemoryError or a bare
 * exception message: the path must be a regular file (a directory, FIFO, device or socket is refused
 * before it is opened, so {@code /dev/zero} and a FIFO cannot hang or flood the command), no larger than a
 * limit (checked again while reading, for files like {@code /proc/*} whose size reads 0), and for text, strict
 * UTF-8. Every problem raises {@link Errors.UsageException} (exit 2) naming the flag, the path and the reason.
 *
 * <p>Stateless and thread-safe.
 */
final class InputFiles {
  /** Largest scenario file: a scenario is a few dozen keys; a megabyte is already absurd. */
  static final int SCENARIO_LIMIT = 1 << 20;
  /** Largest request body from {@code --data @FILE}: it is held in memory and sent whole on every attempt. */
  static final int BODY_LIMIT = 16 << 20;

  private InputFiles() {}

  /**
   * The file's bytes.
   *
   * @param flag the flag that named the file, for messages ({@code --scenario})
   * @throws Errors.UsageException if the path is missing, not a regular file, unreadable or larger than
   *     {@code limit} bytes
   */
  static byte[] readBytes(String flag, Path file, int limit) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class); // follows symbolic links
    } catch (IOException e) {
      throw refused(flag, file, reason(e));
    }
    if (attributes.isDirectory()) {
      throw refused(flag, file, "is a directory, not a file");
    }
    if (!attributes.isRegularFile()) {
      // Opening a FIFO blocks until a writer appears; a device like /dev/zero never ends.
      throw refused(flag, file, "is not a regular file (a FIFO, device or socket)");
    }
    if (attributes.size() > limit) {
      throw refused(flag, file, "is " + attributes.size() + " bytes, more than the limit of " + size(limit));
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(limit + 1); // the size read above may be 0 (/proc) or stale
    } catch (IOException e) {
      throw refused(flag, file, reason(e));
    }
    if (bytes.length > limit) {
      throw refused(flag, file, "is more than the limit of " + size(limit));
    }
    return bytes;
  }

  /**
   * The file's text, decoded as strict UTF-8 (a leading byte-order mark is dropped).
   *
   * @throws Errors.UsageException as {@link #readBytes}, or if the bytes are not UTF-8, naming the first bad
   *     byte and its offset
   */
  static String readText(String flag, Path file, int limit) {
    byte[] bytes = readBytes(flag, file, limit);
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length); // UTF-8 never decodes to more chars than bytes
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      int offset = in.position();
      throw refused(flag, file, String.format(java.util.Locale.ROOT, "is not UTF-8 text (byte 0x%02X at offset %d)",
          bytes[offset] & 0xff, offset));
    }
    out.flip();
    String text = out.toString();
    return text.startsWith("\uFEFF") ? text.substring(1) : text;
  }

  private static Errors.UsageException refused(String flag, Path file, String reason) {
    return new Errors.UsageException(flag + " " + file + ": " + reason);
  }

  /** Why an I/O operation failed, in a few words (the JDK's exceptions often carry only the path). */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    String message = e.getMessage();
    return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
  }

  private static String size(int bytes) {
    return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
  }
}
