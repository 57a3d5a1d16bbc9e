package dev.backoff.plan;

import java.util.OptionalDouble;

/**
 * A multiplier found by the {@link Solver}, with the seed's quick estimate where it has one. Immutable and
 * thread-safe.
 */
public final class MultiplierSolution {
  private final double multiplier;
  private final double estimate; // NaN when there is none (internal only, never returned)

  MultiplierSolution(double multiplier, double estimate) {
    this.multiplier = Checks.finite(multiplier, "the multiplier");
    this.estimate = estimate;
  }

  /** The multiplier, at least 1. */
  public double multiplier() {
    return multiplier;
  }

  /** Seed 002's shortcut {@code r ≈ 1 + t/T}, for the interval question; empty for the deadline question. */
  public OptionalDouble estimate() {
    return Double.isNaN(estimate) ? OptionalDouble.empty() : OptionalDouble.of(estimate);
  }

  @Override
  public String toString() {
    return "multiplier " + multiplier + (Double.isNaN(estimate) ? "" : " (estimate " + estimate + ")");
  }
}
