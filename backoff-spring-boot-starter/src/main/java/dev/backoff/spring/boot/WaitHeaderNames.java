package dev.backoff.spring.boot;

import dev.backoff.http.rules.WaitHeader;
import dev.backoff.spec.Suggestions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Reads a policy's {@code wait-headers} property; loaded only when backoff-http-rules is present. */
final class WaitHeaderNames {
  private WaitHeaderNames() {}

  /** {@code Retry-After} and the named headers (header names, any case, or {@code all}). */
  static WaitHeader[] parse(String property, List<String> names) {
    EnumSet<WaitHeader> read = EnumSet.of(WaitHeader.RETRY_AFTER);
    Map<String, WaitHeader> byName = new LinkedHashMap<>();
    for (WaitHeader header : WaitHeader.values()) {
      byName.put(header.headerName().toLowerCase(Locale.ROOT), header);
    }
    for (String name : names) {
      String key = name.trim().toLowerCase(Locale.ROOT);
      if (key.equals("all")) {
        read.addAll(byName.values());
      } else if (byName.containsKey(key)) {
        read.add(byName.get(key));
      } else {
        List<String> known = new ArrayList<>(byName.keySet());
        known.add("all");
        String closest = Suggestions.closest(key, known);
        throw new BackoffConfigurationException(property, name, "not a wait header"
            + (closest == null ? "" : "; did you mean '" + closest + "'?") + " Known: " + String.join(", ", known));
      }
    }
    return read.toArray(WaitHeader[]::new);
  }
}
