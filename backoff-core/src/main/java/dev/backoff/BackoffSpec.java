package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A backoff strategy described by name and parameters, as written on a command line or in a scenario
 * file: {@code exponential} with {@code initial 1s, multiplier 1.1}, {@code full-jitter}, or a
 * {@linkplain Preset preset} id such as {@code google-cloud}. Immutable and thread-safe; the withers return
 * copies.
 *
 * <p>Names: {@code none, fixed, linear, exponential, full-jitter, equal-jitter, proportional, gaussian,
 * decorrelated, decorrelated-v2} and every preset id (such as {@code google-cloud}). Unset parameters take per-strategy
 * defaults: initial 100 ms, multiplier 2, no cap (unbounded) except where the strategy needs one
 * (decorrelated: 20 s, decorrelated-v2: 20 s), increment = initial, jitter factor 0.5
 * (proportional) or 0.1 (gaussian).
 */
public final class BackoffSpec {
  private static final Map<String, String> STRATEGIES = new LinkedHashMap<>();

  static {
    STRATEGIES.put("none", "no delay: retry at once");
    STRATEGIES.put("fixed", "initial before every retry");
    STRATEGIES.put("linear", "initial + increment·(n−1), capped");
    STRATEGIES.put("exponential", "initial·multiplier^(n−1), capped, no jitter");
    STRATEGIES.put("full-jitter", "U(0, exponential) (AWS full jitter)");
    STRATEGIES.put("equal-jitter", "exponential/2 + U(0, exponential/2) (AWS equal jitter)");
    STRATEGIES.put("proportional", "exponential ± jitter factor (google-http-client style), under the cap");
    STRATEGIES.put("gaussian", "exponential with gaussian noise of jitter × delay (seed 003), under the cap");
    STRATEGIES.put("decorrelated", "U(initial, 3·previous), capped (AWS decorrelated jitter)");
    STRATEGIES.put("decorrelated-v2", "Polly's decorrelated jitter V2, median first delay = initial");
  }

  private final String name;
  private final Duration initial;
  private final Double multiplier;
  private final Duration cap;
  private final Duration increment;
  private final Double jitter;

  private BackoffSpec(String name, Duration initial, Double multiplier, Duration cap, Duration increment,
      Double jitter) {
    this.name = name;
    this.initial = initial;
    this.multiplier = multiplier;
    this.cap = cap;
    this.increment = increment;
    this.jitter = jitter;
  }

  /**
   * A spec for the strategy or preset with this name (case-insensitive).
   *
   * @throws IllegalArgumentException if the name is unknown (the message lists the known names)
   */
  public static BackoffSpec of(String name) {
    Nanos.requireNonNull("strategy name", name);
    String key = name.trim().toLowerCase(Locale.ROOT);
    if (!STRATEGIES.containsKey(key)) {
      try {
        Preset preset = Preset.byName(key);
        key = presetName(preset);
      } catch (IllegalArgumentException unknown) {
        throw new IllegalArgumentException("unknown strategy '" + name + "'; known: " + String.join(", ", names()));
      }
    }
    return new BackoffSpec(key, null, null, null, null, null);
  }

  /** Every strategy and preset name, strategies first. */
  public static List<String> names() {
    List<String> names = new ArrayList<>(STRATEGIES.keySet());
    for (Preset preset : Preset.values()) {
      names.add(presetName(preset));
    }
    return Collections.unmodifiableList(names);
  }

  /** The preset's id, or its enum name in kebab case where the id is also a strategy's name (seed 003's). */
  private static String presetName(Preset preset) {
    return STRATEGIES.containsKey(preset.id())
        ? preset.name().toLowerCase(Locale.ROOT).replace('_', '-')
        : preset.id();
  }

  /** A one-line description of a strategy or preset name, for help texts. */
  public static String describe(String name) {
    String description = STRATEGIES.get(name);
    return description != null ? description : "preset: " + Preset.byName(name).backoff();
  }

  /** The strategy's name. */
  public String name() {
    return name;
  }

  /** True if the name is a preset (whose parameters are fixed). */
  public boolean isPreset() {
    return !STRATEGIES.containsKey(name);
  }

  /** The preset this spec names, or null. */
  public Preset preset() {
    return isPreset() ? Preset.byName(name) : null;
  }

  /** With the first delay (the median first delay for decorrelated-v2, the base for decorrelated). */
  public BackoffSpec initial(Duration initial) {
    Nanos.positive("initial", initial);
    return new BackoffSpec(name, initial, multiplier, cap, increment, jitter);
  }

  /** With the growth factor of an exponential strategy. */
  public BackoffSpec multiplier(double multiplier) {
    Strategies.checkMultiplier(multiplier);
    return new BackoffSpec(name, initial, multiplier, cap, increment, jitter);
  }

  /** With the cap (the maximum backoff). */
  public BackoffSpec cap(Duration cap) {
    Nanos.positive("cap", cap);
    return new BackoffSpec(name, initial, multiplier, cap, increment, jitter);
  }

  /** With the increment of a linear strategy. */
  public BackoffSpec increment(Duration increment) {
    Nanos.nonNegative("increment", increment);
    return new BackoffSpec(name, initial, multiplier, cap, increment, jitter);
  }

  /** With the jitter factor of proportional (half-width) or gaussian (relative deviation) jitter. */
  public BackoffSpec jitter(double factor) {
    Jitters.checkFactor("jitter", factor);
    return new BackoffSpec(name, initial, multiplier, cap, increment, factor);
  }

  /**
   * Builds the strategy.
   *
   * @throws IllegalArgumentException if a parameter does not apply to this strategy (naming it), or the
   *     parameters contradict each other (e.g. cap below initial)
   */
  public Backoff toBackoff() {
    if (isPreset()) {
      rejectParameters("a preset's parameters are fixed", true, true, true, true, true);
      return Preset.byName(name).backoff();
    }
    Duration first = initial != null ? initial : Duration.ofMillis(100);
    double growth = multiplier != null ? multiplier : 2;
    Duration unbounded = Duration.ofSeconds(Long.MAX_VALUE);
    Duration top = cap != null ? cap : unbounded;
    switch (name) {
      case "none":
        rejectParameters("none has no parameters", true, true, true, true, true);
        return Backoff.none();
      case "fixed":
        rejectParameters("fixed takes only initial", false, true, true, true, true);
        return Backoff.fixed(first);
      case "linear":
        rejectParameters("linear takes initial, increment and cap", false, true, false, false, true);
        return Backoff.linear(first, increment != null ? increment : first, top);
      case "exponential":
        rejectParameters("exponential takes no jitter (use full-jitter, proportional, ...)", false, false, false,
            true, true);
        return Backoff.exponential(first, growth, top);
      case "full-jitter":
        rejectParameters("full-jitter takes no jitter factor", false, false, false, true, true);
        return Backoff.exponential(first, growth, top, Jitter.full());
      case "equal-jitter":
        rejectParameters("equal-jitter takes no jitter factor", false, false, false, true, true);
        return Backoff.exponential(first, growth, top, Jitter.equal());
      case "proportional":
        rejectParameters("proportional takes no increment", false, false, false, true, false);
        return Backoff.exponential(first, growth, top, Jitter.proportional(jitter != null ? jitter : 0.5));
      case "gaussian":
        rejectParameters("gaussian takes no increment", false, false, false, true, false);
        return Backoff.exponential(first, growth, top, Jitter.gaussian(jitter != null ? jitter : 0.1));
      case "decorrelated":
        rejectParameters("decorrelated takes initial (base) and cap", false, true, false, true, true);
        return Backoff.decorrelated(first, cap != null ? cap : Duration.ofSeconds(20));
      case "decorrelated-v2":
        rejectParameters("decorrelated-v2 takes initial (median first delay) and cap", false, true, false, true,
            true);
        return Backoff.decorrelatedV2(first, cap != null ? cap : Duration.ofSeconds(20));
      default:
        throw new AssertionError(name);
    }
  }

  private void rejectParameters(String why, boolean noInitial, boolean noMultiplier, boolean noCap,
      boolean noIncrement, boolean noJitter) {
    String offending = noInitial && initial != null ? "initial"
        : noMultiplier && multiplier != null ? "multiplier"
        : noCap && cap != null ? "cap"
        : noIncrement && increment != null ? "increment"
        : noJitter && jitter != null ? "jitter"
        : null;
    if (offending != null) {
      throw new IllegalArgumentException(offending + " does not apply to strategy '" + name + "': " + why);
    }
  }

  @Override
  public String toString() {
    return name + (initial == null ? "" : " initial=" + initial) + (multiplier == null ? "" : " multiplier=" + multiplier)
        + (cap == null ? "" : " cap=" + cap) + (increment == null ? "" : " increment=" + increment)
        + (jitter == null ? "" : " jitter=" + jitter);
  }
}
