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
 * A policy the {@linkplain Advisor advisor} considers: a strategy family with its parameters, an attempt limit
 * and an optional retry budget, written in the one policy grammar ({@link #policySpec()}, {@link
 * #budgetSpec()}) and, for the recommendation, as Java builder code, {@code simulate} arguments and Spring
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
 */
public record PolicyCandidate(Family family, String preset, Duration initial, double multiplier, Duration cap,
    Integer maxAttempts, String budget) {

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
   * @throws NullPointerException if {@code family} is null, or a parameter the family needs is null
   * @throws IllegalArgumentException if the spec or the budget does not parse (naming the bad part), or
   *     {@code maxAttempts} is below 1
   */
  public PolicyCandidate {
    Objects.requireNonNull(family, "family");
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

  /** The policy as {@code simulate --policies} takes it: the strategy, with {@code +budget} if it has one. */
  public String policySpec() {
    return strategySpec() + (budget == null ? "" : dev.backoff.spec.PolicySpec.BUDGET_SUFFIX);
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
   * {@code backoff.policies.NAME.strategy}, {@code .max-attempts} and {@code .budget}, and the budget as
   * {@code backoff.budgets.NAME.spec}.
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
