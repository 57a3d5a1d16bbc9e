package dev.backoff.cli;

import dev.backoff.RetryPolicy;
import dev.backoff.sim.ExperimentPolicies;
import dev.backoff.spec.Durations;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags that make a retry policy: a strategy plus limits. Without strategy flags the library's
 * default backoff applies (full jitter, 100 ms × 2, cap 20 s: the same as {@code --strategy full-jitter});
 * a preset also brings its own attempt limit and deadline, an experiment policy ({@code storm-*}) no limit,
 * unless {@code --max-attempts} or {@code --deadline} override them.
 */
final class PolicyOptions {
  @Mixin
  StrategyOptions strategy = new StrategyOptions();

  @Option(names = "--max-attempts", paramLabel = "<count>",
      description = "Maximum attempts, the first included (>= 1). Default 3, or the preset's.")
  Integer maxAttempts;

  @Option(names = "--deadline", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Give up rather than start a wait that would end past this time since the start.")
  Duration deadline;

  /**
   * A policy builder configured from the flags.
   *
   * @throws IllegalArgumentException naming the bad flag value
   */
  <R> RetryPolicy.Builder<R> builder() {
    RetryPolicy.Builder<R> builder;
    String experiment = strategy.experiment();
    if (experiment != null) {
      builder = ExperimentPolicies.policy(experiment);
    } else if (strategy.spec().isPreset()) {
      var spec = strategy.spec();
      spec.toBackoff(); // rejects parameters given to a preset
      builder = spec.preset().policy();
    } else {
      var spec = strategy.spec();
      builder = RetryPolicy.builder();
      if (strategy.isSet()) {
        builder.backoff(spec.toBackoff()).name(spec.name());
      }
    }
    if (maxAttempts != null) {
      if (maxAttempts < 1) {
        throw new Errors.UsageException("--max-attempts must be at least 1, was " + maxAttempts);
      }
      builder.maxAttempts(maxAttempts);
    }
    if (deadline != null) {
      if (deadline.isZero() || deadline.isNegative()) {
        throw new Errors.UsageException("--deadline must be positive, was " + Durations.format(deadline));
      }
      builder.maxElapsed(deadline);
    }
    return builder;
  }
}
