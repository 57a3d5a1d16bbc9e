package dev.backoff.lab;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses {@link LabServer.Stats#toJson()}, as a remote {@link ServerProbe} reads it. Stateless. */
final class RemoteStats {
  private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(true|false|-?[0-9.eE+-]+)");

  private RemoteStats() {}

  static LabServer.Stats parse(String json) {
    Matcher matcher = FIELD.matcher(json);
    Map<String, String> fields = new HashMap<>();
    while (matcher.find()) {
      fields.put(matcher.group(1), matcher.group(2));
    }
    if (!fields.containsKey("concurrency") || !fields.containsKey("lastDelaySeconds")) {
      return null; // not a lab server
    }
    try {
      return new LabServer.Stats(Integer.parseInt(fields.get("concurrency")),
          Integer.parseInt(fields.getOrDefault("peakConcurrency", fields.get("concurrency"))),
          Integer.parseInt(fields.getOrDefault("waiting", "0")),
          (long) (Double.parseDouble(fields.get("lastDelaySeconds")) * 1e9),
          Boolean.parseBoolean(fields.getOrDefault("paused", "false")),
          Long.parseLong(fields.getOrDefault("answered", "0")), Long.parseLong(fields.getOrDefault("dropped", "0")),
          Long.parseLong(fields.getOrDefault("refused", "0")), Integer.parseInt(fields.getOrDefault("abandoned", "0")),
          Long.parseLong(fields.getOrDefault("forgotten", "0")), Long.parseLong(fields.getOrDefault("received", "-1")),
          Long.parseLong(fields.getOrDefault("hungUp", "-1")));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
