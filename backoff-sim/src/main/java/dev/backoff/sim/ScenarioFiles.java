package dev.backoff.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads scenario files: YAML, or JSON when the file's name ends in {@code .json} (read as strict JSON, so a
 * stray comma is an error at its place rather than YAML's reading of it), with the same keys as
 * {@link Scenario}. Stateless.
 */
public final class ScenarioFiles {
  // A key given twice is an error, not "the last one wins": which one the author meant is unknowable.
  private static final ObjectMapper YAML = new ObjectMapper(
      YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());
  private static final ObjectMapper JSON = new ObjectMapper(
      JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());
  /** A position line in SnakeYAML's messages: {@code  in 'reader', line 2, column 11:}. */
  private static final Pattern YAML_MARK = Pattern.compile("^ in '[^']*', line (\\d+), column (\\d+):?$");

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
   * Parses a scenario's text into its keys, without applying them: as JSON if {@code source} ends in
   * {@code .json}, otherwise as YAML (which also reads JSON).
   *
   * @param source what the text came from (a file name), for messages
   * @throws ScenarioException if the text is not YAML or JSON, not a mapping of keys to values, or repeats
   *     a key (at any level), naming the source, and for a syntax error its line and column
   *     ({@code file:line:column: ...}, as compilers write it)
   */
  public static Map<String, Object> parseMap(String text, String source) {
    boolean json = source.toLowerCase(Locale.ROOT).endsWith(".json");
    Object parsed;
    try {
      parsed = (json ? JSON : YAML).readValue(text, Object.class);
    } catch (JsonProcessingException e) {
      String message = e.getOriginalMessage();
      if (message != null && message.startsWith("Duplicate field")) {
        // Jackson says "Duplicate field 'clients'"; say it in the scenario's words, with the line.
        message = "key " + message.substring("Duplicate field ".length()) + " appears twice"
            + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")");
        throw new ScenarioException(null, source + ": " + message + "; give each key once");
      }
      throw new ScenarioException(null, syntaxError(source, json, e));
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

  /**
   * {@code file:line:column: not valid YAML: problem (context)}. SnakeYAML's message holds the context
   * ("while parsing a flow sequence") and the problem, each followed by its position and a snippet of the
   * text; the problem's position is where the text went wrong, which Jackson's own location is not always.
   */
  static String syntaxError(String source, boolean json, JsonProcessingException e) {
    String message = e.getOriginalMessage() == null ? "unreadable" : e.getOriginalMessage();
    String kind = json ? "not valid JSON: " : "not valid YAML: ";
    List<String> texts = new ArrayList<>();
    List<Matcher> marks = new ArrayList<>();
    for (String line : message.split("\\R")) {
      Matcher mark = YAML_MARK.matcher(line);
      if (mark.matches()) {
        marks.add(mark);
      } else if (!line.isBlank() && !line.startsWith("    ")) { // indented lines are the snippet and its caret
        texts.add(line.strip());
      }
    }
    if (!json && !marks.isEmpty() && !texts.isEmpty()) {
      Matcher at = marks.get(marks.size() - 1);
      String problem = texts.get(texts.size() - 1);
      String context = "";
      if (texts.size() > 1) {
        Matcher from = marks.get(0);
        context = " (" + texts.get(0)
            + (marks.size() > 1 ? " from line " + from.group(1) + ", column " + from.group(2) : "") + ")";
      }
      return source + ":" + at.group(1) + ":" + at.group(2) + ": " + kind + problem + context;
    }
    JsonLocation location = e.getLocation();
    String where = location == null || location.getLineNr() < 1 ? ""
        : ":" + location.getLineNr() + (location.getColumnNr() > 0 ? ":" + location.getColumnNr() : "");
    return source + where + ": " + kind + firstLine(message);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
