package dev.backoff.spec;

import java.util.Locale;

/**
 * A policy as written: a strategy or preset ({@link BackoffSpec}'s grammar, or a name a driver adds, such as
 * the simulator's experiment clients) and an optional {@code +budget} suffix that attaches the context's retry
 * budget ({@link BudgetSpec#DEFAULT} unless the context sets another). Immutable and thread-safe.
 *
 * @param text the spec as written, trimmed (the policy's name in reports)
 * @param base the part before {@code +budget}, lower case
 * @param withBudget whether {@code +budget} was given
 */
public record PolicySpec(String text, String base, boolean withBudget) {
  /** The suffix that attaches a budget. */
  public static final String BUDGET_SUFFIX = "+budget";

  /**
   * Splits {@code text} into base and suffix; the base is not resolved here.
   *
   * @throws IllegalArgumentException if the text or its base is blank, or it has another {@code +} suffix
   * @throws NullPointerException if {@code text} is null
   */
  public static PolicySpec parse(String text) {
    if (text == null) {
      throw new NullPointerException("policy must not be null");
    }
    String trimmed = text.trim();
    String lower = trimmed.toLowerCase(Locale.ROOT);
    boolean budget = lower.endsWith(BUDGET_SUFFIX);
    String base = budget ? lower.substring(0, lower.length() - BUDGET_SUFFIX.length()).trim() : lower;
    if (base.isEmpty()) {
      throw new IllegalArgumentException("policy '" + Durations.show(text) + "' names no strategy");
    }
    if (base.contains("+")) {
      throw new IllegalArgumentException("bad policy '" + Durations.show(text) + "': the only suffix is +budget");
    }
    return new PolicySpec(trimmed, base, budget);
  }

  /**
   * The base as a strategy or preset.
   *
   * @throws IllegalArgumentException as {@link BackoffSpec#parse(String)}
   */
  public BackoffSpec strategy() {
    return BackoffSpec.parse(base);
  }
}
