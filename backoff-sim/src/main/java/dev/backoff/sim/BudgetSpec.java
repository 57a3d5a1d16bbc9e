package dev.backoff.sim;

import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;

/**
 * The retry budget of {@code +budget} policies, from the scenario's {@code budget} key. Each run gets a fresh
 * budget, shared by all the run's clients (they are one client process in seed 003).
 */
final class BudgetSpec {
  private BudgetSpec() {}

  static void check(String spec) {
    create(spec);
  }

  static RetryBudget create(String spec) {
    String[] parts = spec.split(":");
    switch (parts[0]) {
      case "token-bucket": {
        double capacity = part(spec, parts, 1, 500);
        double cost = part(spec, parts, 2, 5);
        double refund = part(spec, parts, 3, 1);
        if (parts.length > 4 || capacity <= 0 || cost <= 0 || refund < 0) {
          throw new ScenarioException("budget", "token-bucket:CAPACITY:COST:REFUND needs positive capacity and cost, was '" + spec + "'");
        }
        return new TokenBucket(capacity, cost, refund);
      }
      case "ratio": {
        double ratio = part(spec, parts, 1, 0.1);
        double capacity = part(spec, parts, 2, 100);
        if (parts.length > 3 || ratio <= 0 || capacity <= 0) {
          throw new ScenarioException("budget", "ratio:RATIO:CAPACITY needs a positive ratio and capacity, was '" + spec + "'");
        }
        return new Ratio(ratio, capacity);
      }
      default:
        throw new ScenarioException("budget", "unknown budget '" + spec + "'; use token-bucket[:capacity:cost:refund] or ratio[:ratio:capacity]");
    }
  }

  private static double part(String spec, String[] parts, int index, double fallback) {
    return parts.length > index ? Values.doubleValue("budget", parts[index]) : fallback;
  }

  /**
   * A token bucket in the manner of the AWS SDK's retry quota: starts full, a retry costs {@code cost}
   * (twice that after a timeout), every successful call refunds {@code refund}. Single-threaded (the
   * simulator's); replaced by backoff-core's budgets once they land.
   */
  static final class TokenBucket implements RetryBudget {
    private final double capacity;
    private final double cost;
    private final double refund;
    private double tokens;

    TokenBucket(double capacity, double cost, double refund) {
      this.capacity = capacity;
      this.cost = cost;
      this.refund = refund;
      this.tokens = capacity;
    }

    @Override
    public void onCall() {}

    @Override
    public void onFailure(FailureClass failureClass) {}

    @Override
    public boolean tryAcquire(FailureClass failureClass) {
      double price = failureClass == FailureClass.TIMEOUT ? 2 * cost : cost;
      if (tokens < price) {
        return false;
      }
      tokens -= price;
      return true;
    }

    @Override
    public void onSuccess(int retries, FailureClass lastRetryClass) {
      tokens = Math.min(capacity, tokens + refund);
    }

    @Override
    public double level() {
      return tokens;
    }

    @Override
    public String toString() {
      return "token-bucket(" + capacity + ", cost " + cost + ", refund " + refund + ")";
    }
  }

  /** Every call deposits {@code ratio} retries (up to {@code capacity}); each retry withdraws one. */
  static final class Ratio implements RetryBudget {
    private final double ratio;
    private final double capacity;
    private double tokens;

    Ratio(double ratio, double capacity) {
      this.ratio = ratio;
      this.capacity = capacity;
      this.tokens = capacity;
    }

    @Override
    public void onCall() {
      tokens = Math.min(capacity, tokens + ratio);
    }

    @Override
    public void onFailure(FailureClass failureClass) {}

    @Override
    public boolean tryAcquire(FailureClass failureClass) {
      if (tokens < 1) {
        return false;
      }
      tokens -= 1;
      return true;
    }

    @Override
    public void onSuccess(int retries, FailureClass lastRetryClass) {}

    @Override
    public double level() {
      return tokens;
    }

    @Override
    public String toString() {
      return "ratio(" + ratio + ", capacity " + capacity + ")";
    }
  }
}
