package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A fault injected into the server for a time window. Immutable. */
final class Fault {
  enum Type {
    /** SIGSTOP: nothing is answered; new connections wait in the accept backlog. */
    PAUSE,
    /** The process is gone: in-flight requests fail, new connections are refused at once. */
    CRASH,
    /** The server keeps only {@code value} (a fraction) of its capacity. */
    CAPACITY,
    /** Every request takes {@code value} nanoseconds longer. */
    LATENCY
  }

  private static final Pattern SYNTAX = Pattern.compile("([a-z]+)@([^+]+)\\+([^:]+)(?::(.+))?");

  final Type type;
  final long atNanos;
  final long lengthNanos;
  final double value; // CAPACITY: fraction kept; LATENCY: added nanoseconds
  private final String text; // as the user wrote it, in the TYPE@START+LENGTH[:VALUE] syntax; null: built here

  Fault(Type type, long atNanos, long lengthNanos, double value) {
    this(type, atNanos, lengthNanos, value, null);
  }

  private Fault(Type type, long atNanos, long lengthNanos, double value, String text) {
    this.type = type;
    this.atNanos = atNanos;
    this.lengthNanos = lengthNanos;
    this.value = value;
    this.text = text;
  }

  long endNanos() {
    return atNanos + lengthNanos;
  }

  /** The faults of a scenario; {@code durationText}: the run's duration as the user wrote it, for messages. */
  static List<Fault> parseAll(Object value, long durationNanos, String durationText) {
    List<Fault> faults = new ArrayList<>();
    List<?> items = value instanceof List ? (List<?>) value : Scenario.asStrings(value);
    for (Object item : items) {
      if (item instanceof String && (((String) item).isBlank() || ((String) item).trim().equalsIgnoreCase("none"))) {
        continue;
      }
      Fault fault = item instanceof Map ? fromMap((Map<?, ?>) item) : parse(String.valueOf(item).trim());
      if (fault.atNanos >= durationNanos || fault.endNanos() > durationNanos) {
        throw new ScenarioException("faults", "'" + describe(item) + "' lies outside the run of "
            + durationText);
      }
      for (Fault other : faults) {
        boolean overlap = fault.atNanos < other.endNanos() && other.atNanos < fault.endNanos();
        boolean exclusive = fault.type == other.type || isOutage(fault) && isOutage(other);
        if (overlap && exclusive) {
          throw new ScenarioException("faults", "'" + describe(item) + "' overlaps another "
              + other.type.name().toLowerCase(Locale.ROOT) + " fault; a server cannot be in both at once");
        }
      }
      faults.add(fault);
    }
    return List.copyOf(faults);
  }

  private static boolean isOutage(Fault fault) {
    return fault.type == Type.PAUSE || fault.type == Type.CRASH;
  }

  private static String describe(Object item) {
    return String.valueOf(item);
  }

  static Fault parse(String text) {
    Matcher m = SYNTAX.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ScenarioException("faults", "cannot read fault '" + text
          + "'; write TYPE@START+LENGTH[:VALUE], e.g. pause@60s+30s, capacity@60s+30s:0.5, latency@60s+30s:200ms");
    }
    return create(m.group(1), m.group(2), m.group(3), m.group(4), text);
  }

  private static Fault fromMap(Map<?, ?> map) {
    for (Object key : map.keySet()) {
      String name = String.valueOf(key);
      if (!List.of("type", "at", "length", "value").contains(name)) {
        throw new ScenarioException("faults", "unknown fault key '" + name + "' in " + map + "; use type, at, length, value");
      }
    }
    Object type = map.get("type");
    Object at = map.get("at");
    Object length = map.get("length");
    if (type == null || at == null || length == null) {
      throw new ScenarioException("faults", "a fault needs type, at and length: " + map);
    }
    Object value = map.get("value");
    return create(String.valueOf(type), at, length, value == null ? null : String.valueOf(value), map.toString());
  }

  private static Fault create(String typeName, Object at, Object length, String value, String text) {
    Type type;
    try {
      type = Type.valueOf(typeName.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("faults", "unknown fault type '" + typeName + "' in '" + text
          + "'; use pause, crash, capacity or latency");
    }
    long atNanos = Values.durationNanos("faults", at);
    long lengthNanos = Values.durationNanos("faults", length);
    if (lengthNanos == 0) {
      throw new ScenarioException("faults", "fault '" + text + "' has zero length");
    }
    double amount = 0;
    switch (type) {
      case CAPACITY:
        if (value == null) {
          throw new ScenarioException("faults", "capacity fault '" + text + "' needs the fraction kept, e.g. :0.5");
        }
        amount = Values.doubleValue("faults", value);
        if (!(amount > 0 && amount <= 1)) {
          throw new ScenarioException("faults", "capacity fraction must be in (0, 1], was " + value + " in '" + text + "'");
        }
        break;
      case LATENCY:
        if (value == null) {
          throw new ScenarioException("faults", "latency fault '" + text + "' needs the added latency, e.g. :200ms");
        }
        amount = Values.durationNanos("faults", value);
        break;
      default:
        if (value != null) {
          throw new ScenarioException("faults", "a " + typeName + " fault takes no value: '" + text + "'");
        }
    }
    String written = text.startsWith("{") // a file's map: its parts in the one-line syntax
        ? type.name().toLowerCase(Locale.ROOT) + "@" + String.valueOf(at).trim() + "+" + String.valueOf(length).trim()
            + (value == null ? "" : ":" + value.trim())
        : text.trim();
    return new Fault(type, atNanos, lengthNanos, amount, written);
  }

  /** This fault in the scenario syntax, exactly (nanoseconds). */
  String spec() {
    return type.name().toLowerCase(Locale.ROOT) + "@" + atNanos + "ns+" + lengthNanos + "ns"
        + (type == Type.CAPACITY ? ":" + value : type == Type.LATENCY ? ":" + (long) value + "ns" : "");
  }

  /** The fault as the user wrote it ({@code pause@1m+30s}), or, for one built here, in seconds. */
  @Override
  public String toString() {
    if (text != null) {
      return text;
    }
    return type.name().toLowerCase(Locale.ROOT) + "@" + Values.human(atNanos) + "+" + Values.human(lengthNanos)
        + (type == Type.CAPACITY ? ":" + Values.format(value, 3) : type == Type.LATENCY ? ":" + Values.human((long) value) : "");
  }
}
