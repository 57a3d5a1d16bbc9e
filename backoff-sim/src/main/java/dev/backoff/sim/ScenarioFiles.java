package dev.backoff.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Reads scenario files: YAML or JSON (JSON is YAML too), with the same keys as {@link Scenario}. Stateless. */
public final class ScenarioFiles {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

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
   * Reads a file's keys without applying them (so that command-line flags can override them).
   *
   * @throws ScenarioException if the file is not a mapping of keys to values
   * @throws IOException if the file cannot be read
   */
  public static Map<String, Object> readMap(Path file) throws IOException {
    String text = Files.readString(file);
    Object parsed;
    try {
      parsed = YAML.readValue(text, Object.class);
    } catch (JsonProcessingException e) {
      throw new ScenarioException(null, file + ": not valid YAML or JSON: " + e.getOriginalMessage());
    }
    if (parsed == null) {
      return Map.of();
    }
    if (!(parsed instanceof Map)) {
      throw new ScenarioException(null, file + ": a scenario file must be a mapping of keys to values");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) parsed;
    return map;
  }
}
