package dev.backoff.lab;

import dev.backoff.NanoClock;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.ExperimentPolicies;
import dev.backoff.spec.BudgetSpec;
import dev.backoff.spec.PolicySpec;
import java.util.List;

/**
 * The retry policies a lab client can run, in the simulator's one policy grammar and with the same meanings:
 * the experiment's clients ({@code storm-fixed}, {@code storm-exponential}, ...; see
 * {@link ExperimentPolicies}), which retry without limit; every strategy with optional colon parameters
 * ({@code full-jitter}, {@code exponential:100ms:2:20s:full}), with the library's default of 3 attempts; a
 * preset, which keeps its own limits: what the name means everywhere ({@link PolicySpec#builder()}). A {@code +budget} suffix adds a retry budget shared by
 * the whole fleet: {@link BudgetSpec#DEFAULT}, AWS's token bucket, as the simulator's default. A
 * {@code +breaker[:...]} suffix adds the same circuit breaker as the simulator's ({@link PolicySpec.Breaker}),
 * also shared by the whole fleet (the simulator's default {@code breaker-scope}: one client process);
 * {@code +adaptive[:...]} an adaptive rate limiter shared by the fleet, {@code +concurrency[:...]} a
 * concurrency limiter ({@link PolicySpec.Concurrency}) shared by the fleet. {@code +hedge:DELAY[:MAX]} adds the
 * core's {@link dev.backoff.Hedging}, as in the simulator: backoff-http's {@code sendAsync}, which the lab's
 * clients call, sends another attempt when none has answered within DELAY, up to MAX hedges (default 1), takes
 * the first good answer and cancels the others; the fleet counts every hedge and loser (see
 * {@link FleetTotals}). As in the simulator and the core, a hedged call starts at most {@code MAX + 1}
 * attempts in all, a failure starting the next one at once instead of after a backoff. What is
 * retried (429 and 5xx, connection failures and timeouts) is backoff-http's rule, added by its client.
 * Stateless.
 */
public final class LabPolicies {
  private LabPolicies() {}

  /**
   * A builder for the policy with this name (named after it), ready for further settings. Each call builds
   * a fresh budget and breaker, which every policy built from the builder shares.
   *
   * @throws IllegalArgumentException naming the unknown policy and listing the known names, or the bad part
   *     of a suffix
   */
  public static <R> RetryPolicy.Builder<R> named(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("policy name must not be blank");
    }
    PolicySpec spec = PolicySpec.parse(name);
    String experiment = spec.experimentPolicy();
    if (experiment != null && ExperimentPolicies.hasFirstRetryQuirk(experiment)) {
      throw new IllegalArgumentException("policy '" + name + "' needs the simulator's think times; "
          + "the lab runs storm-exponential instead");
    }
    RetryPolicy.Builder<R> builder = spec.builder();
    if (spec.withBudget()) {
      builder.budget(BudgetSpec.parse(BudgetSpec.DEFAULT).create(NanoClock.system()));
    }
    if (spec.breaker() != null) {
      builder.circuitBreaker(spec.breaker().builder().name(spec.text()).build());
    }
    if (spec.adaptive() != null) {
      builder.rateLimiter(spec.adaptive().builder().name(spec.text()).build());
    }
    if (spec.concurrency() != null) {
      builder.concurrencyLimiter(spec.concurrency().builder().name(spec.text()).build());
    }
    if (spec.hedge() != null) {
      try {
        builder.build(); // a preset's attempt limit may leave no room for the hedges
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("policy '" + name + "': " + e.getMessage(), e);
      }
    }

    return builder;
  }

  /** Every accepted name without the {@code +budget} suffix: the experiment's, then strategies and presets. */
  public static List<String> names() {
    return PolicySpec.names();
  }
}
