package dev.backoff.spring.boot;

import dev.backoff.http.rules.WaitHeader;
import java.util.List;

/** Reads a policy's {@code wait-headers} property; loaded only when backoff-http-rules is present. */
final class WaitHeaderNames {
  private WaitHeaderNames() {}

  /** {@code Retry-After} and the named headers (header names, any case, or {@code all}). */
  static WaitHeader[] parse(String property, List<String> names) {
    try {
      return WaitHeader.fromNames(names);
    } catch (IllegalArgumentException e) {
      throw new BackoffConfigurationException(property, String.join(",", names), e.getMessage());
    }
  }
}
