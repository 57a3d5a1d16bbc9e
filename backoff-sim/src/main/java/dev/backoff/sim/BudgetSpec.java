package dev.backoff.sim;

import dev.backoff.NanoClock;
import dev.backoff.RetryBudget;

/**
 * The retry budget of {@code +budget} policies, from the scenario's {@code budget} key, in the core's one
 * budget grammar ({@link dev.backoff.spec.BudgetSpec}: token-bucket, grpc, ratio, with
 * {@link dev.backoff.RetryBudgets}' defaults). Each run gets a fresh budget, shared by all the run's clients
 * (one client process in the experiment), reading the run's virtual clock. Stateless.
 */
final class BudgetSpec {
  private BudgetSpec() {}

  static void check(String spec) {
    parse(spec);
  }

  static RetryBudget create(String spec, NanoClock clock) {
    return parse(spec).create(clock);
  }

  private static dev.backoff.spec.BudgetSpec parse(String spec) {
    try {
      return dev.backoff.spec.BudgetSpec.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("budget", e.getMessage());
    }
  }
}
