package dev.backoff;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A class of failure, such as "throttled" or "timeout": a policy can give each class its own backoff and a
 * budget can charge each its own cost (as AWS's retry rules do). Drivers classify what they see; the HTTP
 * client, for example, calls 429 and 503 {@link #THROTTLED}.
 *
 * <p>Instances are interned by name, so they compare by identity; immutable and thread-safe.
 */
public final class FailureClass {
  private static final ConcurrentMap<String, FailureClass> BY_NAME = new ConcurrentHashMap<>();

  /** A failure that may well succeed on a retry: the default class. */
  public static final FailureClass TRANSIENT = of("transient");
  /** The server asked the client to slow down (HTTP 429, 503, gRPC RESOURCE_EXHAUSTED). */
  public static final FailureClass THROTTLED = of("throttled");
  /** The attempt timed out: the server may still be working on it. */
  public static final FailureClass TIMEOUT = of("timeout");

  private final String name;

  private FailureClass(String name) {
    this.name = name;
  }

  /**
   * Returns the failure class with this name, creating it on first use.
   *
   * @throws IllegalArgumentException if {@code name} is blank
   * @throws NullPointerException if {@code name} is null
   */
  public static FailureClass of(String name) {
    Objects.requireNonNull(name, "failure class name must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("failure class name must not be blank, was '" + name + "'");
    }
    return BY_NAME.computeIfAbsent(name, FailureClass::new);
  }

  /** The class's name. */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return name;
  }
}
