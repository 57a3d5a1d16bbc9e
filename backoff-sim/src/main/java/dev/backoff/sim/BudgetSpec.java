package dev.backoff.sim;

import dev.backoff.Clock;
import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import dev.backoff.RetryBudgets;
import java.time.Duration;

/**
 * The retry budget of {@code +budget} policies, from the scenario's {@code budget} key, built with the
 * core's {@link RetryBudgets}. Each run gets a fresh budget, shared by all the run's clients (they are one
 * client process in seed 003), reading the run's virtual clock.
 *
 * <ul>
 *   <li>{@code token-bucket[:CAPACITY:COST:TIMEOUT_COST]}: the AWS SDK retry quota (500, 5, 10).
 *   <li>{@code grpc[:MAX_TOKENS:TOKEN_RATIO]}: gRPC retry throttling (10, 0.1).
 *   <li>{@code ratio[:RATIO:MIN_PER_SECOND:WINDOW]}: the Finagle/Linkerd budget (0.2, 10, 10s).
 * </ul>
 */
final class BudgetSpec {
  private BudgetSpec() {}

  static void check(String spec) {
    create(spec, () -> 0L);
  }

  static RetryBudget create(String spec, Clock clock) {
    String[] parts = spec.trim().split(":");
    try {
      switch (parts[0]) {
        case "token-bucket":
        case "aws":
          arity(spec, parts, 3);
          return RetryBudgets.tokenBucket()
              .capacity(parts.length > 1 ? Values.wholeNumber("budget", parts[1], Long.MIN_VALUE, Long.MAX_VALUE) : 500)
              .retryCost(parts.length > 2 ? Values.wholeNumber("budget", parts[2], Long.MIN_VALUE, Long.MAX_VALUE) : 5)
              .retryCost(FailureClass.TIMEOUT,
                  parts.length > 3 ? Values.wholeNumber("budget", parts[3], Long.MIN_VALUE, Long.MAX_VALUE) : 10)
              .build();
        case "grpc":
          arity(spec, parts, 2);
          return RetryBudgets.grpcThrottling(
              parts.length > 1 ? (int) Values.wholeNumber("budget", parts[1], Integer.MIN_VALUE, Integer.MAX_VALUE) : 10,
              parts.length > 2 ? Values.doubleValue("budget", parts[2]) : 0.1);
        case "ratio":
          arity(spec, parts, 3);
          return RetryBudgets.ratio(
              parts.length > 1 ? Values.doubleValue("budget", parts[1]) : 0.2,
              parts.length > 2 ? (int) Values.wholeNumber("budget", parts[2], Integer.MIN_VALUE, Integer.MAX_VALUE) : 10,
              Duration.ofNanos(parts.length > 3 ? Values.durationNanos("budget", parts[3]) : 10_000_000_000L),
              clock);
        default:
          throw new ScenarioException("budget", "unknown budget '" + spec
              + "'; use token-bucket[:capacity:cost:timeout-cost], grpc[:max-tokens:token-ratio] or "
              + "ratio[:ratio:min-per-second:window]");
      }
    } catch (ScenarioException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("budget", "bad budget '" + spec + "': " + e.getMessage());
    }
  }

  private static void arity(String spec, String[] parts, int max) {
    if (parts.length - 1 > max) {
      throw new ScenarioException("budget", parts[0] + " takes at most " + max + " parameters, was '" + spec + "'");
    }
  }
}
