package dev.backoff.spec;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.Preset;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A backoff strategy by name and parameters, the one grammar every command, scenario file and the lab
 * accept: {@code name[:param...]}, such as {@code full-jitter}, {@code exponential:100ms:2:20s:full} or the
 * {@linkplain Preset preset} id {@code google-cloud}. Parameters are positional (see {@link #usage(String)});
 * a trailing one may be left out and an empty one ({@code exponential:100ms::20s}) takes its default. The
 * same parameters can be set by the withers (the command line's {@code --initial}, {@code --cap}, ...).
 *
 * <p>Defaults, the same everywhere: initial 100 ms, multiplier 2, increment = initial; a jittered strategy
 * ({@code full-jitter, equal-jitter, proportional, gaussian, decorrelated, decorrelated-v2}) is capped at
 * 20 s, as the library's default policy (AWS's standard mode), while the deterministic {@code linear} and
 * {@code exponential} are not capped (the textbook formulas); jitter factor 0.5 (proportional) or 0.1
 * (gaussian). Named jitter of {@code exponential}: {@code none}, {@code full}, {@code equal},
 * {@code proportional=F}, {@code gaussian=F}.
 *
 * <p>Immutable and thread-safe; the withers return copies.
 */
public final class BackoffSpec {
  /** The default cap of jittered strategies: the library's default policy's (AWS standard mode). */
  public static final Duration JITTERED_DEFAULT_CAP = Duration.ofSeconds(20);
  /** The default first delay. */
  public static final Duration DEFAULT_INITIAL = Duration.ofMillis(100);
  /** The default growth factor. */
  public static final double DEFAULT_MULTIPLIER = 2;

  private record Strategy(String usage, String description, List<Parameter> parameters) {}

  private enum Parameter { INITIAL, INCREMENT, MULTIPLIER, CAP, JITTER, FACTOR }

  private static final Map<String, Strategy> STRATEGIES = new LinkedHashMap<>();

  private static void strategy(String name, String usage, String description, Parameter... parameters) {
    STRATEGIES.put(name, new Strategy(usage, description, List.of(parameters)));
  }

  static {
    strategy("none", "none", "no delay: retry at once");
    strategy("fixed", "fixed[:DELAY]", "DELAY (default 100ms) before every retry", Parameter.INITIAL);
    strategy("linear", "linear[:INITIAL:INCREMENT:CAP]", "initial + increment·(n−1); no cap unless given",
        Parameter.INITIAL, Parameter.INCREMENT, Parameter.CAP);
    strategy("exponential", "exponential[:INITIAL:MULTIPLIER:CAP:JITTER]",
        "initial·multiplier^(n−1) (100ms × 2); no cap and no jitter unless given (JITTER: none, full, equal, "
            + "proportional=F, gaussian=F)",
        Parameter.INITIAL, Parameter.MULTIPLIER, Parameter.CAP, Parameter.JITTER);
    strategy("full-jitter", "full-jitter[:INITIAL:CAP]", "U(0, exponential), 100ms × 2, cap 20s (AWS full jitter)",
        Parameter.INITIAL, Parameter.CAP);
    strategy("equal-jitter", "equal-jitter[:INITIAL:CAP]",
        "exponential/2 + U(0, exponential/2), 100ms × 2, cap 20s (AWS equal jitter)", Parameter.INITIAL,
        Parameter.CAP);
    strategy("proportional", "proportional[:INITIAL:MULTIPLIER:CAP:FACTOR]",
        "exponential ± FACTOR (default 0.5, google-http-client style), cap 20s", Parameter.INITIAL,
        Parameter.MULTIPLIER, Parameter.CAP, Parameter.FACTOR);
    strategy("gaussian", "gaussian[:INITIAL:MULTIPLIER:CAP:FACTOR]",
        "exponential with gaussian noise of FACTOR × delay (default 0.1), cap 20s", Parameter.INITIAL,
        Parameter.MULTIPLIER, Parameter.CAP, Parameter.FACTOR);
    strategy("decorrelated", "decorrelated[:BASE:CAP]", "U(base, 3·previous), cap 20s (AWS decorrelated jitter)",
        Parameter.INITIAL, Parameter.CAP);
    strategy("decorrelated-v2", "decorrelated-v2[:MEDIAN:CAP]",
        "Polly's decorrelated jitter V2, median first delay 100ms, cap 20s", Parameter.INITIAL, Parameter.CAP);
  }

  private static final Strategy GOOGLE_CLOUD_CAP = new Strategy("google-cloud:CAP",
      "Google Cloud's algorithm with this maximum, without the preset's attempt limit", List.of(Parameter.CAP));

  private final String name;
  private final String text;
  private final Duration initial;
  private final Double multiplier;
  private final Duration cap;
  private final Duration increment;
  private final String jitter; // exponential's named jitter: none, full, equal, proportional, gaussian
  private final Double factor;
  private final boolean googleCloudWithCap;

  private BackoffSpec(String name, String text, Duration initial, Double multiplier, Duration cap,
      Duration increment, String jitter, Double factor, boolean googleCloudWithCap) {
    this.name = name;
    this.text = text;
    this.initial = initial;
    this.multiplier = multiplier;
    this.cap = cap;
    this.increment = increment;
    this.jitter = jitter;
    this.factor = factor;
    this.googleCloudWithCap = googleCloudWithCap;
  }

  /**
   * A spec for the strategy or preset with this name (case-insensitive), no parameters.
   *
   * @throws IllegalArgumentException if the name is unknown (the message lists the known names)
   * @throws NullPointerException if {@code name} is null
   */
  public static BackoffSpec of(String name) {
    if (name == null) {
      throw new NullPointerException("strategy name must not be null");
    }
    String key = name.trim().toLowerCase(Locale.ROOT);
    if (!STRATEGIES.containsKey(key)) {
      Preset preset = presetOrNull(key);
      if (preset == null) {
        String closest = Suggestions.closest(name.trim(), names());
        throw new IllegalArgumentException("unknown strategy '" + show(name) + "'"
            + (closest == null ? "" : "; did you mean '" + closest + "'?") + "; known: " + String.join(", ", names()));
      }
      key = preset.id();
    }
    return new BackoffSpec(key, name.trim(), null, null, null, null, null, null, false);
  }

  /**
   * Parses {@code name[:param...]}.
   *
   * @throws IllegalArgumentException naming the whole spec and the bad part: an unknown name, too many
   *     parameters, a parameter that is not a duration or number, or a value out of range
   * @throws NullPointerException if {@code text} is null
   */
  public static BackoffSpec parse(String text) {
    if (text == null) {
      throw new NullPointerException("strategy must not be null");
    }
    String trimmed = text.trim();
    String[] parts = trimmed.split(":", -1);
    BackoffSpec spec = of(parts[0]);
    if (parts.length == 1) {
      return spec;
    }
    Strategy strategy = STRATEGIES.get(spec.name);
    boolean googleCloud = false;
    if (strategy == null) {
      if (!spec.name.equals(Preset.GOOGLE_CLOUD.id())) {
        throw new IllegalArgumentException("bad strategy '" + show(text) + "': the preset '" + spec.name
            + "' takes no parameters (its values are fixed)");
      }
      strategy = GOOGLE_CLOUD_CAP;
      googleCloud = true;
    }
    List<Parameter> parameters = strategy.parameters();
    if (parts.length - 1 > parameters.size()) {
      throw new IllegalArgumentException("bad strategy '" + show(text) + "': " + spec.name + " takes at most "
          + parameters.size() + " parameter" + (parameters.size() == 1 ? "" : "s") + " (" + strategy.usage() + ")");
    }
    spec = new BackoffSpec(spec.name, trimmed, null, null, null, null, null, null, googleCloud);
    for (int i = 1; i < parts.length; i++) {
      String value = parts[i].trim();
      if (value.isEmpty()) {
        continue;
      }
      Parameter parameter = parameters.get(i - 1);
      String label = parameterName(spec.name, parameter);
      try {
        spec = switch (parameter) {
          case INITIAL -> spec.initial(Durations.parse(value));
          case INCREMENT -> spec.increment(Durations.parse(value));
          case CAP -> spec.cap(Durations.parse(value));
          case MULTIPLIER -> spec.multiplier(number(value));
          case FACTOR -> spec.jitter(number(value));
          case JITTER -> spec.namedJitter(value);
        };
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("bad strategy '" + show(text) + "': " + label + " '" + show(value)
            + "': " + e.getMessage());
      }
    }
    spec.check();
    return spec;
  }

  private static String parameterName(String strategy, Parameter parameter) {
    if (parameter == Parameter.INITIAL) {
      return strategy.equals("fixed") ? "delay" : strategy.equals("decorrelated") ? "base"
          : strategy.equals("decorrelated-v2") ? "median" : "initial";
    }
    return parameter == Parameter.FACTOR ? "jitter factor" : parameter.name().toLowerCase(Locale.ROOT);
  }

  private static double number(String value) {
    double result;
    try {
      result = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number");
    }
    if (Double.isNaN(result) || Double.isInfinite(result)) {
      throw new IllegalArgumentException("not a finite number");
    }
    return result;
  }

  private BackoffSpec namedJitter(String value) {
    String lower = value.toLowerCase(Locale.ROOT);
    int equals = lower.indexOf('=');
    String kind = equals < 0 ? lower : lower.substring(0, equals);
    switch (kind) {
      case "none", "full", "equal" -> {
        if (equals >= 0) {
          throw new IllegalArgumentException(kind + " jitter takes no factor");
        }
        return new BackoffSpec(name, text, initial, multiplier, cap, increment, kind, factor, googleCloudWithCap);
      }
      case "proportional", "gaussian" -> {
        if (equals < 0) {
          throw new IllegalArgumentException(kind + " jitter needs a factor: " + kind + "=F");
        }
        double f = number(value.substring(equals + 1));
        checkFactor(f);
        return new BackoffSpec(name, text, initial, multiplier, cap, increment, kind, f, googleCloudWithCap);
      }
      default -> throw new IllegalArgumentException("unknown jitter; use none, full, equal, proportional=F or gaussian=F");
    }
  }

  private static void checkFactor(double factor) {
    if (!(factor > 0 && factor <= 1)) {
      throw new IllegalArgumentException("jitter factor must be in (0, 1], was " + factor);
    }
  }

  private static Preset presetOrNull(String key) {
    for (Preset preset : Preset.values()) {
      if (preset.id().equals(key)) {
        return preset;
      }
    }
    return null;
  }

  /** Every strategy and preset name, strategies first: exactly what {@link #of} and {@link #parse} accept. */
  public static List<String> names() {
    List<String> names = new ArrayList<>(STRATEGIES.keySet());
    for (Preset preset : Preset.values()) {
      names.add(preset.id());
    }
    return Collections.unmodifiableList(names);
  }

  /** The strategy names alone (no presets). */
  public static List<String> strategyNames() {
    return List.copyOf(STRATEGIES.keySet());
  }

  /**
   * A one-line description of a strategy or preset name, for help texts.
   *
   * @throws IllegalArgumentException if the name is unknown
   */
  public static String describe(String name) {
    Strategy strategy = STRATEGIES.get(name);
    if (strategy != null) {
      return strategy.description();
    }
    BackoffSpec spec = of(name);
    Preset preset = Preset.byName(spec.name);
    String description = "preset: " + preset.backoff() + ", "
        + (preset.maxAttempts() == Integer.MAX_VALUE ? "no attempt limit" : preset.maxAttempts() + " attempts")
        + (preset.maxElapsed() == null ? "" : ", deadline " + Durations.format(preset.maxElapsed()));
    return preset == Preset.GOOGLE_CLOUD ? description + " (google-cloud:CAP: another maximum, no limit)" : description;
  }

  /**
   * The grammar of a strategy name, such as {@code exponential[:INITIAL:MULTIPLIER:CAP:JITTER]}.
   *
   * @throws IllegalArgumentException if the name is unknown
   */
  public static String usage(String name) {
    Strategy strategy = STRATEGIES.get(name);
    return strategy != null ? strategy.usage() : of(name).name;
  }

  /**
   * The keys of the parameters this spec's strategy takes, in the grammar's order: {@code initial} (also the
   * delay of {@code fixed}, the base of {@code decorrelated}, the median of {@code decorrelated-v2}),
   * {@code increment}, {@code multiplier}, {@code cap}, {@code jitter} (exponential's named jitter) and
   * {@code jitter-factor}. Empty for {@code none}, a preset and {@code google-cloud:CAP}, whose values are fixed.
   */
  public List<String> parameterKeys() {
    Strategy strategy = STRATEGIES.get(name);
    if (strategy == null || googleCloudWithCap) {
      return List.of();
    }
    List<String> keys = new ArrayList<>();
    for (Parameter parameter : strategy.parameters()) {
      keys.add(parameter == Parameter.FACTOR ? "jitter-factor" : parameter.name().toLowerCase(Locale.ROOT));
    }
    return keys;
  }

  /**
   * This spec with one parameter set and the others as written, the edit a sweep makes: the text is rewritten
   * at the parameter's position ({@code full-jitter} with cap {@code 5s} is {@code full-jitter::5s}), so that
   * reports name the policy as a user would write it.
   *
   * @param key one of {@link #parameterKeys()}
   * @param value the value as the grammar writes it ({@code 5s}, {@code 1.5})
   * @throws IllegalArgumentException if the strategy has no such parameter (naming its usage), or the value is
   *     bad (as {@link #parse})
   */
  public BackoffSpec withParameter(String key, String value) {
    int position = parameterKeys().indexOf(key);
    if (position < 0) {
      throw new IllegalArgumentException("strategy '" + show(text) + "' has no " + key + " (" + usage(name) + ")");
    }
    List<String> parts = new ArrayList<>(List.of(text.split(":", -1)));
    while (parts.size() < position + 2) {
      parts.add("");
    }
    parts.set(position + 1, value);
    while (parts.size() > 1 && parts.get(parts.size() - 1).isEmpty()) {
      parts.remove(parts.size() - 1);
    }
    return parse(String.join(":", parts));
  }

  /**
   * This spec with the parameter set if its strategy takes it and the spec does not give it: a scenario's
   * default for every strategy it runs (the contention scenario's {@code base} and {@code cap}).
   *
   * @throws IllegalArgumentException if the value is bad (as {@link #parse})
   */
  public BackoffSpec withDefault(String key, String value) {
    int position = parameterKeys().indexOf(key);
    String[] parts = text.split(":", -1);
    boolean given = position >= 0 && position + 1 < parts.length && !parts[position + 1].trim().isEmpty();
    return position < 0 || given ? this : withParameter(key, value);
  }

  /**
   * The policy this spec names as the library ships it: a preset's own ({@link Preset#policy()}, its limits
   * included), else {@link RetryPolicy#builder()}'s defaults (3 attempts, no deadline) with this strategy. Not
   * yet named.
   *
   * @throws IllegalArgumentException as {@link #toBackoff()}
   */
  public <R> RetryPolicy.Builder<R> policy() {
    Backoff backoff = toBackoff();
    return isPreset() ? Preset.byName(name).policy() : RetryPolicy.<R>builder().backoff(backoff);
  }

  /** The strategy's or preset's canonical name. */
  public String name() {
    return name;
  }

  /** The spec as written (for messages), or the name if it was built by name and withers. */
  public String text() {
    return text;
  }

  /** True if this names a preset, whose parameters and limits are fixed. */
  public boolean isPreset() {
    return !STRATEGIES.containsKey(name) && !googleCloudWithCap;
  }

  /** The preset this spec names, or null. */
  public Preset preset() {
    return isPreset() ? Preset.byName(name) : null;
  }

  /**
   * With the first delay (the median first delay for decorrelated-v2, the base for decorrelated). Zero is
   * only for {@code fixed} ({@link #toBackoff()} refuses it for the others).
   *
   * @throws IllegalArgumentException if it is negative
   */
  public BackoffSpec initial(Duration initial) {
    if (initial.isNegative()) {
      throw new IllegalArgumentException("initial must not be negative, was " + initial);
    }
    return new BackoffSpec(name, text, initial, multiplier, cap, increment, jitter, factor, googleCloudWithCap);
  }

  /**
   * With the growth factor of an exponential strategy.
   *
   * @throws IllegalArgumentException if it is below 1 or not finite
   */
  public BackoffSpec multiplier(double multiplier) {
    if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("multiplier must be a finite number >= 1, was " + multiplier);
    }
    return new BackoffSpec(name, text, initial, multiplier, cap, increment, jitter, factor, googleCloudWithCap);
  }

  /**
   * With the cap (the maximum backoff).
   *
   * @throws IllegalArgumentException if it is not positive
   */
  public BackoffSpec cap(Duration cap) {
    positive("cap", cap);
    return new BackoffSpec(name, text, initial, multiplier, cap, increment, jitter, factor, googleCloudWithCap);
  }

  /**
   * With the increment of a linear strategy.
   *
   * @throws IllegalArgumentException if it is negative
   */
  public BackoffSpec increment(Duration increment) {
    if (increment.isNegative()) {
      throw new IllegalArgumentException("increment must not be negative, was " + increment);
    }
    return new BackoffSpec(name, text, initial, multiplier, cap, increment, jitter, factor, googleCloudWithCap);
  }

  /**
   * With the jitter factor of proportional (half-width) or gaussian (relative deviation) jitter.
   *
   * @throws IllegalArgumentException if it is outside (0, 1]
   */
  public BackoffSpec jitter(double factor) {
    checkFactor(factor);
    return new BackoffSpec(name, text, initial, multiplier, cap, increment, jitter, factor, googleCloudWithCap);
  }

  private static void positive(String what, Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(what + " must be positive, was "
          + (value.isNegative() ? value.toString() : Durations.format(value)));
    }
  }

  private boolean jittered() {
    return switch (name) {
      case "full-jitter", "equal-jitter", "proportional", "gaussian", "decorrelated", "decorrelated-v2" -> true;
      default -> false;
    };
  }

  /** The cap that applies: the one given, else 20 s for jittered strategies, else none (null). */
  public Duration effectiveCap() {
    return cap != null ? cap : jittered() ? JITTERED_DEFAULT_CAP : null;
  }

  private void check() {
    toBackoff();
  }

  /**
   * Builds the strategy.
   *
   * @throws IllegalArgumentException if a parameter does not apply to this strategy (naming it), or the
   *     parameters contradict each other (cap below initial, naming both as written)
   */
  public Backoff toBackoff() {
    if (googleCloudWithCap) {
      reject("google-cloud:CAP takes only the cap", true, true, false, true, true);
      return Backoff.googleCloud(cap);
    }
    if (isPreset()) {
      reject("a preset's parameters are fixed", true, true, true, true, true);
      return Preset.byName(name).backoff();
    }
    Duration first = initial != null ? initial : DEFAULT_INITIAL;
    if (first.isZero() && !name.equals("fixed")) {
      throw new IllegalArgumentException("bad strategy '" + show(text) + "': " + parameterName(name, Parameter.INITIAL)
          + " must be positive for " + name + ", was 0s (fixed:0s or none retry at once)");
    }
    double growth = multiplier != null ? multiplier : DEFAULT_MULTIPLIER;
    Duration top = effectiveCap();
    if (top != null && top.compareTo(first) < 0 && !name.equals("fixed") && !name.equals("none")) {
      throw new IllegalArgumentException("bad strategy '" + show(text) + "': cap " + Durations.format(top)
          + " is below " + parameterName(name, Parameter.INITIAL) + " " + Durations.format(first));
    }
    Duration unbounded = Duration.ofSeconds(Long.MAX_VALUE);
    Duration capOrNone = top != null ? top : unbounded;
    switch (name) {
      case "none":
        reject("none has no parameters", true, true, true, true, true);
        return Backoff.none();
      case "fixed":
        reject("fixed takes only the delay (initial)", false, true, true, true, true);
        return Backoff.fixed(first);
      case "linear":
        reject("linear takes initial, increment and cap", false, true, false, false, true);
        return Backoff.linear(first, increment != null ? increment : first, capOrNone);
      case "exponential":
        reject("exponential takes no jitter factor; name its jitter: exponential:100ms:2:20s:gaussian=0.1",
            false, false, false, true, jitter == null || !(jitter.equals("proportional") || jitter.equals("gaussian")));
        return Backoff.exponential(first, growth, capOrNone, namedJitter());
      case "full-jitter":
        reject("full-jitter takes initial, multiplier and cap", false, false, false, true, true);
        return Backoff.exponential(first, growth, capOrNone, Jitter.full());
      case "equal-jitter":
        reject("equal-jitter takes initial, multiplier and cap", false, false, false, true, true);
        return Backoff.exponential(first, growth, capOrNone, Jitter.equal());
      case "proportional":
        reject("proportional takes no increment", false, false, false, true, false);
        return Backoff.exponential(first, growth, capOrNone, Jitter.proportional(factor != null ? factor : 0.5));
      case "gaussian":
        reject("gaussian takes no increment", false, false, false, true, false);
        return Backoff.exponential(first, growth, capOrNone, Jitter.gaussian(factor != null ? factor : 0.1));
      case "decorrelated":
        reject("decorrelated takes the base (initial) and cap", false, true, false, true, true);
        return Backoff.decorrelated(first, capOrNone);
      case "decorrelated-v2":
        reject("decorrelated-v2 takes the median first delay (initial) and cap", false, true, false, true, true);
        return Backoff.decorrelatedV2(first, capOrNone);
      default:
        throw new AssertionError(name);
    }
  }

  private Jitter namedJitter() {
    if (jitter == null) {
      return Jitter.none();
    }
    return switch (jitter) {
      case "full" -> Jitter.full();
      case "equal" -> Jitter.equal();
      case "proportional" -> Jitter.proportional(factor);
      case "gaussian" -> Jitter.gaussian(factor);
      default -> Jitter.none();
    };
  }

  private void reject(String why, boolean noInitial, boolean noMultiplier, boolean noCap, boolean noIncrement,
      boolean noFactor) {
    String offending = noInitial && initial != null ? "initial"
        : noMultiplier && multiplier != null ? "multiplier"
        : noCap && cap != null ? "cap"
        : noIncrement && increment != null ? "increment"
        : noFactor && factor != null ? "jitter"
        : null;
    if (offending != null) {
      throw new IllegalArgumentException(offending + " does not apply to strategy '" + name + "': " + why);
    }
  }

  static String show(String text) {
    return Durations.show(text);
  }

  /** The spec as written, or its name and the parameters set by withers, durations as a user writes them. */
  @Override
  public String toString() {
    if (!text.equals(name) || (initial == null && multiplier == null && cap == null && increment == null
        && factor == null)) {
      return text;
    }
    return name + (initial == null ? "" : " initial=" + Durations.format(initial))
        + (multiplier == null ? "" : " multiplier=" + multiplier)
        + (cap == null ? "" : " cap=" + Durations.format(cap))
        + (increment == null ? "" : " increment=" + Durations.format(increment))
        + (factor == null ? "" : " jitter=" + factor);
  }
}
