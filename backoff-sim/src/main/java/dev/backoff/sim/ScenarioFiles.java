package dev.backoff.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Reads scenario files: YAML or JSON (JSON is YAML too), with the same keys as {@link Scenario}. Stateless. */
public final class ScenarioFiles {
  // A key given twice is an error, not "the last one wins": which one the author meant is unknowable.
  private static final ObjectMapper YAML = new ObjectMapper(
      YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

  private ScenarioFiles() {}

  /**
   * Reads a scenario file over the defaults.
   *
   * @throws ScenarioException if the file is not a mapping, or has an unknown key or a bad value
   * @throws IOException if the file cannot be read
   */
  public static Scenario read(Path file) throws IOException {
    return Scenario.of(readMap(file));
  }

  /**
   * Reads a file's keys without applying them (so that command-line flags can override them). The file is
   * read whole, as UTF-8; the command line reads it with its own checks (a regular file, a size limit) and
   * calls {@link #parseMap(String, String)}.
   *
   * @throws ScenarioException if the file is not a mapping of keys to values, or repeats a key
   * @throws IOException if the file cannot be read, or is not UTF-8
   */
  public static Map<String, Object> readMap(Path file) throws IOException {
    return parseMap(Files.readString(file), file.toString());
  }

  /**
   * Parses a scenario's text (YAML or JSON) into its keys, without applying them.
   *
   * @param source what the text came from (a file name), for messages
   * @throws ScenarioException if the text is not YAML or JSON, not a mapping of keys to values, or repeats
   *     a key (at any level), naming the source
   */
  public static Map<String, Object> parseMap(String text, String source) {
    Object parsed;
    try {
      parsed = YAML.readValue(text, Object.class);
    } catch (JsonProcessingException e) {
      String message = e.getOriginalMessage();
      if (message != null && message.startsWith("Duplicate field")) {
        // Jackson says "Duplicate field 'clients'"; say it in the scenario's words, with the line.
        message = "key " + message.substring("Duplicate field ".length()) + " appears twice"
            + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")");
        throw new ScenarioException(null, source + ": " + message + "; give each key once");
      }
      throw new ScenarioException(null, source + ": not valid YAML or JSON: " + firstLine(message));
    }
    if (parsed == null) {
      return Map.of();
    }
    if (!(parsed instanceof Map)) {
      throw new ScenarioException(null, source + ": a scenario file must be a mapping of keys to values");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) parsed;
    return map;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
