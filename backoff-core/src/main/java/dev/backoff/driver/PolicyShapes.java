package dev.backoff.driver;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;

/**
 * Reads the parameters of the core's built-in strategies and budgets, for drivers that translate a policy
 * into another library's configuration (the gRPC driver writes gRPC's service-config retry policy). The
 * strategies and budgets themselves keep their parameters private; this is their one read-only view.
 * Stateless and thread-safe.
 */
public final class PolicyShapes {
  private PolicyShapes() {}

  /**
   * An exponential schedule {@code min(cap, initial·multiplier^(n−1))} with a jitter: the shape of
   * {@link Backoff#exponential} strategies, and of {@link Backoff#fixed} ones (multiplier 1, cap equal to the
   * delay).
   *
   * @param initialNanos the delay before the first retry, before jitter; at least 0 (0 only for a fixed
   *     zero delay)
   * @param multiplier the growth factor, at least 1
   * @param capNanos the largest scheduled delay, before jitter
   * @param jitter the jitter applied to each scheduled delay
   */
  public record Exponential(long initialNanos, double multiplier, long capNanos, Jitter jitter) {}

  /**
   * gRPC's retry throttling, as {@code RetryBudgets.grpcThrottling(maxTokens, tokenRatio)} was given it.
   *
   * @param maxTokens the maximum (and initial) token count
   * @param tokenRatio tokens earned per successful call (three decimal places at most)
   */
  public record GrpcThrottling(int maxTokens, double tokenRatio) {}

  /**
   * Which of a policy's settings beyond attempts, deadline, backoff and budget it uses, for a driver that
   * must say what another library's configuration drops.
   *
   * @param failureRules whether it has its own retry or abort rules for failures ({@code retryOn},
   *     {@code retryIf}, {@code abortOn}, {@code abortIf})
   * @param resultRules whether it retries on results ({@code retryOnResult})
   * @param failureClassBackoffs whether some failure class has its own backoff
   * @param listeners whether it has listeners
   * @param pushbackExtractor whether it reads pushback hints with its own extractor
   */
  public record Features(boolean failureRules, boolean resultRules, boolean failureClassBackoffs, boolean listeners,
      boolean pushbackExtractor) {}

  /**
   * The settings {@code policy} uses beyond attempts, deadline, backoff and budget.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static Features features(RetryPolicy<?> policy) {
    RetryLoops.requireNonNull("policy", policy);
    return Bridge.core().features(policy);
  }

  /**
   * The exponential shape of {@code backoff}, or null if it is not an exponential or fixed strategy made by
   * {@link Backoff}'s factories (linear, decorrelated, Google Cloud's algorithm and user strategies have
   * none).
   *
   * @throws NullPointerException if {@code backoff} is null
   */
  public static Exponential exponential(Backoff backoff) {
    RetryLoops.requireNonNull("backoff", backoff);
    return Bridge.core().exponentialShape(backoff);
  }

  /**
   * The parameters of a budget made by {@code RetryBudgets.grpcThrottling}, or null for any other budget.
   *
   * @throws NullPointerException if {@code budget} is null
   */
  public static GrpcThrottling grpcThrottling(RetryBudget budget) {
    RetryLoops.requireNonNull("budget", budget);
    return Bridge.core().grpcThrottlingShape(budget);
  }
}
