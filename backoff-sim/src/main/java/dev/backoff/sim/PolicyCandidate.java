package dev.backoff.sim;

import dev.backoff.Preset;
import dev.backoff.spec.BackoffSpec;
import dev.backoff.spec.BudgetSpec;
import dev.backoff.spec.Durations;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A policy the {@linkplain Advisor advisor} considers: a strategy family with its parameters, an attempt limit,
 * an optional retry budget, an optional admission control ({@link Protection}: the adaptive rate limiter or
 * an adaptive concurrency limit) and optional hedging ({@link Hedge}: a fixed delay or a live quantile), written
 * in the one policy grammar ({@link #policySpec()}, {@link #budgetSpec()}) and, for the recommendation, as Java builder code, {@code simulate} arguments and Spring
 * properties. Immutable and thread-safe.
 *
 * @param family the strategy family
 * @param preset the preset's id for {@link Family#PRESET} (its parameters are fixed), else null
 * @param initial the first delay (the delay of {@code fixed}, the base of {@code decorrelated}); null for a
 *     preset
 * @param multiplier the growth factor of the exponential families; 0 for the others
 * @param cap the longest delay of the exponential families and {@code decorrelated}; null for the others
 * @param maxAttempts the attempt limit, the first attempt included; null keeps a preset's own limit
 * @param budget the retry budget in the budget grammar ({@code token-bucket:500:5:10}), or null for none
 * @param protection the admission control in front of the attempts ({@link Protection#NONE} for none)
 * @param hedge the hedging ({@link Hedge#NONE} for none); a hedged call does not use the backoff (a failed
 *     attempt starts the next one at once), so only the attempt limit, budget and protection matter beside it
 */
public record PolicyCandidate(Family family, String preset, Duration initial, double multiplier, Duration cap,
    Integer maxAttempts, String budget, Protection protection, Hedge hedge) {

  /**
   * The admission control the advisor searches, as the policy grammar's suffixes: none, the adaptive rate limiter
   * ({@code +adaptive}, waiting for its token) or an adaptive concurrency limit ({@code +concurrency}, the latency
   * gradient, or {@code +concurrency:aimd}), each with its defaults.
   */
  public enum Protection {
    /** No admission control: the strategy, attempt limit and budget alone. */
    NONE("none"),
    /** The adaptive rate limiter, AWS's adaptive retry mode: {@code +adaptive}. */
    ADAPTIVE("adaptive"),
    /** The latency-gradient concurrency limit: {@code +concurrency}. */
    CONCURRENCY("concurrency"),
    /** The AIMD concurrency limit: {@code +concurrency:aimd}. */
    CONCURRENCY_AIMD("concurrency:aimd");

    private final String id;

    Protection(String id) {
      this.id = id;
    }

    /**
     * The name {@code advise --protection} takes, which is also the policy suffix without its {@code +}:
     * {@code none}, {@code adaptive}, {@code concurrency}, {@code concurrency:aimd}.
     */
    public String id() {
      return id;
    }

    /** The policy grammar's suffix ({@code +adaptive}, ...), empty for {@link #NONE}. */
    public String suffix() {
      return this == NONE ? "" : "+" + id;
    }

    /**
     * Parses a comma-separated list of ids ({@code none,adaptive,concurrency}; {@code all} for every one), in the
     * order of this enum, each once.
     *
     * @throws IllegalArgumentException naming the unknown id, with the known ones, or for an empty list
     * @throws NullPointerException if {@code text} is null
     */
    public static List<Protection> parseAll(String text) {
      java.util.EnumSet<Protection> chosen = java.util.EnumSet.noneOf(Protection.class);
      for (String part : text.split(",", -1)) {
        String id = part.trim().toLowerCase(java.util.Locale.ROOT);
        if (id.equals("all")) {
          chosen.addAll(List.of(values()));
          continue;
        }
        Protection found = null;
        for (Protection p : values()) {
          found = p.id.equals(id) ? p : found;
        }
        if (found == null) {
          throw new IllegalArgumentException("unknown protection '" + Values.show(part.trim()) + "'; use "
              + String.join(", ", ids()) + " or all");
        }
        chosen.add(found);
      }
      return List.copyOf(chosen);
    }

    /** Every id, in order. */
    public static List<String> ids() {
      List<String> ids = new ArrayList<>();
      for (Protection p : values()) {
        ids.add(p.id);
      }
      return ids;
    }
  }

  /**
   * The hedging the advisor searches ({@code advise --hedging}): none, or the policy grammar's {@code +hedge}
   * suffix, a fixed delay ({@code +hedge:150ms}) or the delay taken from a live latency quantile with a cap on
   * the extra load ({@code +hedge:p95}, {@code +hedge:p99:max-extra-load=0.1}). Immutable and thread-safe.
   *
   * @param delay the suffix's parameters in their shortest form ({@code p95}, {@code 150ms}, {@code 100ms:2}),
   *     or null for no hedging
   */
  public record Hedge(String delay) {
    /** No hedging. */
    public static final Hedge NONE = new Hedge(null);

    /** What {@link #parse} suggests for a mistyped name. */
    private static final List<String> NAMES = List.of("none", "p95", "p99");

    /**
     * Checks the delay and writes it in its shortest form.
     *
     * @throws IllegalArgumentException if {@code delay} is not what {@code +hedge:} takes, naming what is wrong
     */
    public Hedge {
      if (delay != null && delay.contains("+")) {
        throw new IllegalArgumentException("'" + Values.show(delay) + "' is more than a hedging delay: give what "
            + "+hedge: takes, without other suffixes");
      }
      if (delay != null) {
        delay = settings(delay).canonical().substring("+hedge:".length());
      }
    }

    private static dev.backoff.spec.PolicySpec.Hedge settings(String delay) {
      String policy = "fixed:1s+hedge:" + delay;
      try {
        return dev.backoff.spec.PolicySpec.parse(policy).hedge();
      } catch (IllegalArgumentException e) {
        // The spec's message names the whole policy; here the value alone was given.
        String message = e.getMessage();
        String lead = "bad policy '" + policy + "': ";
        throw new IllegalArgumentException(message.startsWith(lead) ? message.substring(lead.length()) : message, e);
      }
    }

    /** The suffix's settings, null for none. */
    dev.backoff.spec.PolicySpec.Hedge settings() {
      return delay == null ? null : settings(delay);
    }

    /** The name {@code advise --hedging} takes: {@code none}, or the delay ({@code p95}, {@code 150ms}). */
    public String id() {
      return delay == null ? "none" : delay;
    }

    /** The policy grammar's suffix ({@code +hedge:p95}, ...), empty for {@link #NONE}. */
    public String suffix() {
      return delay == null ? "" : "+hedge:" + delay;
    }

    /** The attempts a hedged call needs room for (MAX hedges besides the first attempt); 1 without hedging. */
    int attemptsNeeded() {
      return delay == null ? 1 : settings().maxHedges() + 1;
    }

    /**
     * Parses one value: {@code none}, or what {@code +hedge:} takes ({@code p95}, {@code p99.9:2},
     * {@code p95:max-extra-load=0.1}, {@code 150ms}).
     *
     * @throws IllegalArgumentException naming the value and what is wrong with it (with the closest name when a
     *     name was mistyped)
     * @throws NullPointerException if {@code text} is null
     */
    public static Hedge parse(String text) {
      String value = text.trim().toLowerCase(java.util.Locale.ROOT);
      if (value.equals("none")) {
        return NONE;
      }
      if (value.isEmpty()) {
        throw new IllegalArgumentException("empty hedging value (a stray comma?); use none, a quantile such as p95 "
            + "or a delay such as 150ms");
      }
      if (!value.matches("(p[0-9.]|[0-9.]).*")) {
        String closest = dev.backoff.spec.Suggestions.closest(value.split(":", 2)[0], NAMES);
        throw new IllegalArgumentException("unknown hedging '" + Values.show(text.trim()) + "'"
            + (closest == null ? "" : "; did you mean '" + closest + "'?")
            + "; use none, a quantile such as p95 (the adaptive delay) or a delay such as 150ms");
      }
      try {
        return new Hedge(value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("hedging '" + Values.show(text.trim()) + "': " + e.getMessage(), e);
      }
    }

    /**
     * Parses a comma-separated list of values ({@code none,p95,150ms}), each once (a value repeated, in any
     * spelling of the same hedging, counts once); {@code none} first if given, the others in the order given.
     *
     * @throws IllegalArgumentException as {@link #parse}
     * @throws NullPointerException if {@code text} is null
     */
    public static List<Hedge> parseAll(String text) {
      List<Hedge> chosen = new ArrayList<>();
      for (String part : text.split(",", -1)) {
        Hedge hedge = parse(part);
        if (!chosen.contains(hedge)) {
          chosen.add(hedge);
        }
      }
      chosen.sort(java.util.Comparator.comparing((Hedge h) -> h.delay != null)); // stable: none first
      return List.copyOf(chosen);
    }
  }

  /**
   * A candidate without admission control ({@link Protection#NONE}).
   *
   * @throws NullPointerException as the canonical constructor
   * @throws IllegalArgumentException as the canonical constructor
   */
  public PolicyCandidate(Family family, String preset, Duration initial, double multiplier, Duration cap,
      Integer maxAttempts, String budget) {
    this(family, preset, initial, multiplier, cap, maxAttempts, budget, Protection.NONE);
  }

  /**
   * A candidate without hedging ({@link Hedge#NONE}).
   *
   * @throws NullPointerException as the canonical constructor
   * @throws IllegalArgumentException as the canonical constructor
   */
  public PolicyCandidate(Family family, String preset, Duration initial, double multiplier, Duration cap,
      Integer maxAttempts, String budget, Protection protection) {
    this(family, preset, initial, multiplier, cap, maxAttempts, budget, protection, Hedge.NONE);
  }

  /** The strategy families the advisor searches. */
  public enum Family {
    /** Exponential backoff with full jitter: {@code exponential:I:M:C:full}. */
    FULL_JITTER("full"),
    /** Exponential backoff with equal jitter: {@code exponential:I:M:C:equal}. */
    EQUAL_JITTER("equal"),
    /** AWS's decorrelated jitter: {@code decorrelated:BASE:CAP}. */
    DECORRELATED(null),
    /** Exponential backoff without jitter: {@code exponential:I:M:C:none}. */
    NO_JITTER("none"),
    /** The same delay before every retry: {@code fixed:D}. */
    FIXED(null),
    /** A preset with its own, fixed parameters, such as {@code aws-standard}. */
    PRESET(null);

    private final String jitter;

    Family(String jitter) {
      this.jitter = jitter;
    }

    boolean exponential() {
      return jitter != null;
    }
  }

  /**
   * Checks that the parameters make a valid policy in the one grammar.
   *
   * @throws NullPointerException if {@code family}, {@code protection} or {@code hedge} is null, or a parameter
   *     the family needs is null
   * @throws IllegalArgumentException if the spec or the budget does not parse (naming the bad part),
   *     {@code maxAttempts} is below 1, the attempt limit leaves no room for the hedges, or the candidate hedges
   *     with the adaptive rate limiter (which the simulator does not run: see {@link #fits})
   */
  public PolicyCandidate {
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(protection, "protection");
    Objects.requireNonNull(hedge, "hedge");
    if (family == Family.PRESET) {
      Objects.requireNonNull(preset, "preset");
    } else {
      Objects.requireNonNull(initial, "initial");
      if (family.exponential() || family == Family.DECORRELATED) {
        Objects.requireNonNull(cap, "cap");
      }
    }
    if (maxAttempts != null && maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    if (maxAttempts == null && family != Family.PRESET) {
      throw new IllegalArgumentException("maxAttempts must be set for " + family + " (only a preset has its own)");
    }
    budget = budget == null ? null : canonicalBudget(budget);
    BackoffSpec.parse(strategySpec(family, preset, initial, multiplier, cap)).toBackoff();
    int attempts = maxAttempts != null ? maxAttempts : Preset.byName(preset).maxAttempts();
    if (!fits(protection, hedge, attempts)) {
      throw new IllegalArgumentException(protection == Protection.ADAPTIVE && hedge.delay() != null
          ? "the simulator does not run +adaptive with +hedge (a hedge waiting for the limiter's token is not modelled)"
          : "maxAttempts " + attempts + " leaves no room for " + hedge.suffix() + " (it needs "
              + hedge.attemptsNeeded() + ")");
    }
  }

  /**
   * True if a candidate can have this protection, hedging and attempt limit: the attempt limit leaves room for
   * the hedges, and the adaptive rate limiter does not come with hedging (the simulator does not model a hedge
   * waiting for the limiter's token).
   */
  static boolean fits(Protection protection, Hedge hedge, int maxAttempts) {
    return maxAttempts >= hedge.attemptsNeeded() && (protection != Protection.ADAPTIVE || hedge.delay() == null);
  }

  /** The attempt limit this candidate runs with: its own, or its preset's. */
  int attemptLimit() {
    return maxAttempts != null ? maxAttempts : Preset.byName(preset).maxAttempts();
  }

  /**
   * The budget with every parameter written out ({@code token-bucket} is {@code token-bucket:500:5:10}), so
   * that the Java code, the properties and the simulator say the same thing.
   */
  private static String canonicalBudget(String text) {
    return BudgetSpec.parse(text).canonical();
  }

  /** A preset as it is, its own attempt limit kept. */
  static PolicyCandidate preset(Preset preset, String budget) {
    return new PolicyCandidate(Family.PRESET, preset.id(), null, 0, null, null, budget);
  }

  /** This candidate with another budget (null: none). */
  PolicyCandidate withBudget(String other) {
    return new PolicyCandidate(family, preset, initial, multiplier, cap, maxAttempts, other, protection, hedge);
  }

  /** This candidate with another admission control. */
  PolicyCandidate withProtection(Protection other) {
    return new PolicyCandidate(family, preset, initial, multiplier, cap, maxAttempts, budget, other, hedge);
  }

  /** This candidate with other hedging. */
  PolicyCandidate withHedge(Hedge other) {
    return new PolicyCandidate(family, preset, initial, multiplier, cap, maxAttempts, budget, protection, other);
  }

  /**
   * How many mechanisms besides the strategy and its attempt limit it has: a budget, an admission control and
   * hedging count one each. Among equally robust candidates the advisor prefers the simpler (see
   * {@link Robustness}).
   */
  public int mechanisms() {
    return (budget == null ? 0 : 1) + (protection == Protection.NONE ? 0 : 1) + (hedge.delay() == null ? 0 : 1);
  }

  /** The strategy (or preset) in the one grammar, without the budget: {@code exponential:100ms:2:20s:full}. */
  public String strategySpec() {
    return strategySpec(family, preset, initial, multiplier, cap);
  }

  private static String strategySpec(Family family, String preset, Duration initial, double multiplier,
      Duration cap) {
    return switch (family) {
      case PRESET -> preset;
      case FIXED -> "fixed:" + Durations.format(initial);
      case DECORRELATED -> "decorrelated:" + Durations.format(initial) + ":" + Durations.format(cap);
      default -> "exponential:" + Durations.format(initial) + ":" + number(multiplier) + ":"
          + Durations.format(cap) + ":" + family.jitter;
    };
  }

  /**
   * The policy as {@code simulate --policies} takes it: the strategy, with {@code +budget} if it has one, the
   * admission control's suffix ({@code +adaptive}, {@code +concurrency}, ...) if it has one and the hedging's
   * ({@code +hedge:p95}, ...) if it hedges.
   */
  public String policySpec() {
    return strategySpec() + (budget == null ? "" : dev.backoff.spec.PolicySpec.BUDGET_SUFFIX) + protection.suffix()
        + hedge.suffix();
  }

  /** The budget in the budget grammar, or null for none. */
  public String budgetSpec() {
    return budget;
  }

  /** A one-line name for tables: the policy spec, the attempt limit and the budget. */
  public String label() {
    return policySpec() + (maxAttempts == null ? "" : " x" + maxAttempts) + (budget == null ? "" : " " + budget);
  }

  /**
   * The scenario keys that make a scenario run exactly this policy: {@code policies}, {@code max-attempts}
   * (absent for a preset keeping its own limit) and {@code budget} (absent without one).
   */
  Map<String, Object> scenarioKeys() {
    Map<String, Object> keys = new LinkedHashMap<>();
    keys.put("policies", List.of(policySpec()));
    if (maxAttempts != null) {
      keys.put("max-attempts", (long) maxAttempts);
    }
    if (budget != null) {
      keys.put("budget", budget);
    }
    return keys;
  }

  /**
   * The {@code backoff simulate} arguments that run this policy in a scenario:
   * {@code --policies SPEC [--max-attempts N] [--budget BUDGET]}.
   */
  public List<String> simulateArguments() {
    List<String> arguments = new ArrayList<>();
    for (Map.Entry<String, Object> key : scenarioKeys().entrySet()) {
      arguments.add("--" + key.getKey());
      arguments.add(key.getValue() instanceof List<?> list ? String.valueOf(list.get(0)) : String.valueOf(key.getValue()));
    }
    return arguments;
  }

  /**
   * Ready-to-paste Java: the import lines, a blank line, then the statements that build the policy into a
   * local variable {@code policy} of type {@code RetryPolicy<Object>} (and, with a budget, first the budget
   * into {@code budget}, to be shared by every call to the same service). Compiles against backoff-core alone.
   */
  public String javaCode() {
    List<String> imports = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    imports.add("dev.backoff.RetryPolicy");
    if (budget != null) {
      imports.add("dev.backoff.RetryBudget");
      imports.add("dev.backoff.RetryBudgets");
      lines.add("// One budget per downstream service, shared by every call to it (not one per call).");
      lines.add("RetryBudget budget = " + budgetJava(BudgetSpec.parse(budget), imports) + ";");
    }
    switch (protection) {
      case ADAPTIVE -> {
        imports.add("dev.backoff.AdaptiveRateLimiter");
        lines.add("// One limiter per downstream service, shared by every call to it (not one per call).");
        lines.add("AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().build();");
      }
      case CONCURRENCY, CONCURRENCY_AIMD -> {
        imports.add("dev.backoff.ConcurrencyLimiter");
        lines.add("// One limiter per downstream service, shared by every call to it (not one per call).");
        lines.add("ConcurrencyLimiter limiter = ConcurrencyLimiter."
            + (protection == Protection.CONCURRENCY ? "gradient" : "aimd") + "().build();");
      }
      default -> { }
    }
    StringBuilder policy = new StringBuilder("RetryPolicy<Object> policy = ");
    if (family == Family.PRESET) {
      imports.add("dev.backoff.Preset");
      policy.append("Preset.").append(Preset.byName(preset).name()).append(".<Object>policy()");
    } else {
      policy.append("RetryPolicy.<Object>builder()");
      imports.add("dev.backoff.Backoff");
      imports.add("java.time.Duration");
      policy.append("\n    .backoff(").append(backoffJava(imports)).append(")");
    }
    if (maxAttempts != null) {
      policy.append("\n    .maxAttempts(").append(maxAttempts).append(")");
    }
    if (budget != null) {
      policy.append("\n    .budget(budget)");
    }
    if (protection == Protection.ADAPTIVE) {
      policy.append("\n    .rateLimiter(limiter)");
    } else if (protection != Protection.NONE) {
      policy.append("\n    .concurrencyLimiter(limiter)");
    }
    if (hedge.delay() != null) {
      lines.add(0, "// A hedged policy runs asynchronously (AsyncRetryExecutor or an async client driver).");
      policy.append("\n    .hedging(").append(hedgingJava(hedge.settings(), imports)).append(")");
    }
    policy.append("\n    .build();");
    lines.add(policy.toString());
    StringBuilder out = new StringBuilder();
    imports.stream().distinct().sorted().forEach(name -> out.append("import ").append(name).append(";\n"));
    out.append('\n');
    for (String line : lines) {
      out.append(line).append('\n');
    }
    return out.toString();
  }

  private static String hedgingJava(dev.backoff.spec.PolicySpec.Hedge settings, List<String> imports) {
    imports.add("dev.backoff.Hedging");
    dev.backoff.spec.PolicySpec.AdaptiveHedge adaptive = settings.adaptive();
    String hedging;
    if (adaptive == null) {
      imports.add("java.time.Duration");
      hedging = "Hedging.after(" + durationJava(Duration.ofNanos(settings.delayNanos())) + ")";
    } else if (settings.canonical().indexOf('=') < 0) { // every key at its default
      hedging = "Hedging.atQuantile(" + number(adaptive.quantile()) + ")";
    } else {
      imports.add("dev.backoff.AdaptiveHedgeDelay");
      imports.add("java.time.Duration");
      hedging = "Hedging.adaptive(AdaptiveHedgeDelay.builder().quantile(" + number(adaptive.quantile()) + ")"
          + "\n        .bounds(" + durationJava(Duration.ofNanos(adaptive.minDelayNanos())) + ", "
          + durationJava(Duration.ofNanos(adaptive.maxDelayNanos())) + ")"
          + ".initialDelay(" + durationJava(Duration.ofNanos(adaptive.initialDelayNanos())) + ")"
          + "\n        .maxExtraLoad(" + number(adaptive.maxExtraLoad()) + ").window(" + adaptive.window()
          + ").warmUp(" + adaptive.warmUp() + ").build())";
    }
    return hedging + ".maxHedges(" + settings.maxHedges() + ")"; // without it, maxAttempts alone bounds them
  }

  private String backoffJava(List<String> imports) {
    String first = durationJava(initial);
    return switch (family) {
      case FIXED -> "Backoff.fixed(" + first + ")";
      case DECORRELATED -> "Backoff.decorrelated(" + first + ", " + durationJava(cap) + ")";
      default -> {
        imports.add("dev.backoff.Jitter");
        yield "Backoff.exponential(" + first + ", " + BigDecimal.valueOf(multiplier).toPlainString() + ", "
            + durationJava(cap) + ", Jitter." + family.jitter + "())";
      }
    };
  }

  private static String budgetJava(BudgetSpec spec, List<String> imports) {
    List<String> parts = spec.parameters();
    return switch (spec.kind()) {
      case "token-bucket" -> {
        imports.add("dev.backoff.FailureClass");
        yield "RetryBudgets.tokenBucket().capacity(" + parts.get(0) + ").retryCost(" + parts.get(1)
            + ")\n    .retryCost(FailureClass.TIMEOUT, " + parts.get(2) + ").build()";
      }
      case "grpc" -> "RetryBudgets.grpcThrottling(" + parts.get(0) + ", " + parts.get(1) + ")";
      case "ratio" -> {
        imports.add("dev.backoff.NanoClock");
        imports.add("java.time.Duration");
        yield "RetryBudgets.ratio(" + parts.get(0) + ", " + parts.get(1) + ", "
            + durationJava(Durations.parse(parts.get(2))) + ", NanoClock.system())";
      }
      default -> throw new AssertionError(spec.kind());
    };
  }

  private static String durationJava(Duration duration) {
    long nanos = duration.toNanos();
    if (nanos % 1_000_000_000L == 0) {
      return "Duration.ofSeconds(" + nanos / 1_000_000_000L + ")";
    }
    if (nanos % 1_000_000L == 0) {
      return "Duration.ofMillis(" + nanos / 1_000_000L + ")";
    }
    return "Duration.ofNanos(" + nanos + ")";
  }

  /**
   * The properties of backoff-spring-boot-starter that configure this policy under {@code name}, in order:
   * {@code backoff.policies.NAME.strategy}, {@code .max-attempts} and {@code .budget}, the admission control
   * ({@code .rate-limiter.max-wait=wait} or {@code .concurrency-limiter.algorithm=gradient|aimd}, each at its
   * defaults), the hedging ({@code .hedging.delay=p95}, and {@code .hedging.max-hedges} and the adaptive delay's
   * keys where they differ from their defaults), and the budget as {@code backoff.budgets.NAME.spec}.
   *
   * @throws IllegalArgumentException if {@code name} is not a plain property name (letters, digits, hyphens)
   */
  public Map<String, String> springProperties(String name) {
    if (name == null || !name.matches("[a-z0-9][a-z0-9-]*")) {
      throw new IllegalArgumentException("name must be lower-case letters, digits and hyphens, was '" + name + "'");
    }
    Map<String, String> properties = new LinkedHashMap<>();
    String prefix = "backoff.policies." + name + ".";
    properties.put(prefix + "strategy", strategySpec());
    if (maxAttempts != null) {
      properties.put(prefix + "max-attempts", Integer.toString(maxAttempts));
    }
    switch (protection) {
      case ADAPTIVE -> properties.put(prefix + "rate-limiter.max-wait", "wait");
      case CONCURRENCY -> properties.put(prefix + "concurrency-limiter.algorithm", "gradient");
      case CONCURRENCY_AIMD -> properties.put(prefix + "concurrency-limiter.algorithm", "aimd");
      default -> { }
    }
    if (hedge.delay() != null) {
      // The suffix's parameters as the starter's hedging.* keys: the delay, then MAX and any KEY=VALUE.
      String[] parts = hedge.delay().split(":");
      properties.put(prefix + "hedging.delay", parts[0]);
      for (int i = 1; i < parts.length; i++) {
        String[] pair = parts[i].split("=", 2);
        properties.put(prefix + "hedging." + (pair.length == 1 ? "max-hedges" : pair[0]),
            pair.length == 1 ? pair[0] : pair[1]);
      }
    }
    if (budget != null) {
      properties.put(prefix + "budget", name);
      properties.put("backoff.budgets." + name + ".spec", budget);
    }
    return properties;
  }

  static String number(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** {@link #label()}. */
  @Override
  public String toString() {
    return label();
  }
}
