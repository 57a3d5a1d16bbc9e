package dev.backoff.plan;

import java.util.OptionalDouble;

/**
 * A multiplier found by the {@link Solver}, with the rule-of-thumb estimate where it has one. Immutable and
 * thread-safe.
 *
 * <p>The solver computes {@code r − 1} ({@link #excess()}) rather than {@code r}: for a multiplier barely
 * above 1 the double {@link #multiplier()} keeps only some of the digits of {@code r − 1}, or none at all
 * ({@code 1 + 3e-17} is exactly 1 as a double). Show {@code excess} when it matters.
 */
public final class MultiplierSolution {
  private final double excess;
  private final double multiplier;
  private final double estimate; // NaN when there is none (internal only, never returned)

  MultiplierSolution(double excess, double estimate) {
    this.excess = Checks.finite(excess, "the multiplier");
    this.multiplier = Checks.finite(1 + excess, "the multiplier");
    this.estimate = estimate;
  }

  /** The multiplier, at least 1, as the nearest double to {@code 1 + excess()}. */
  public double multiplier() {
    return multiplier;
  }

  /**
   * {@code r − 1}, to the full precision of a double (relative, not absolute): zero exactly when the
   * multiplier is exactly 1.
   */
  public double excess() {
    return excess;
  }

  /** The rule of thumb {@code r ≈ 1 + t/T}, for the interval question; empty for the deadline question. */
  public OptionalDouble estimate() {
    return Double.isNaN(estimate) ? OptionalDouble.empty() : OptionalDouble.of(estimate);
  }

  @Override
  public String toString() {
    return "multiplier 1 + " + excess + (Double.isNaN(estimate) ? "" : " (estimate " + estimate + ")");
  }
}
