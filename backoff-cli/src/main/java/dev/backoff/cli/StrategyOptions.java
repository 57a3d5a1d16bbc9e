package dev.backoff.cli;

import dev.backoff.Backoff;
import dev.backoff.spec.ExperimentPolicies;
import dev.backoff.spec.BackoffSpec;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The flags that choose a backoff strategy, shared by every command that retries or plans. {@code --strategy}
 * takes the one spec grammar ({@code full-jitter}, {@code exponential:100ms:2:20s:full}, a preset, or an
 * experiment policy such as {@code storm-exponential}); the other flags set the same parameters by name and
 * override the spec's. Not thread-safe (picocli fills it).
 */
final class StrategyOptions {
  @Option(names = "--strategy", paramLabel = "<spec>",
      description = "Strategy, preset or experiment policy, with optional parameters: full-jitter, "
          + "exponential:100ms:2:20s:full, aws-standard, storm-exponential (see 'backoff strategies'). Default: "
          + StrategyOptions.DEFAULT_STRATEGY + ".")
  String strategy;

  static final String DEFAULT_STRATEGY = "full-jitter";

  @Option(names = "--initial", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "First delay (base of decorrelated, median first delay of decorrelated-v2). Default 100ms.")
  Duration initial;

  @Option(names = "--multiplier", paramLabel = "<number>", description = "Growth factor of exponential strategies (>= 1). Default 2.")
  Double multiplier;

  @Option(names = "--cap", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Maximum delay. Default: 20s for jittered strategies (full-jitter, equal-jitter, proportional, "
          + "gaussian, decorrelated, decorrelated-v2), none for exponential and linear.")
  Duration cap;

  @Option(names = "--increment", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Step of the linear strategy. Default: the initial delay.")
  Duration increment;

  @Option(names = "--jitter", paramLabel = "<number>",
      description = "Jitter factor: half-width of proportional (default 0.5), relative deviation of gaussian (default 0.1).")
  Double jitter;

  /** True if any strategy flag was given (so the caller should not fall back to a default policy). */
  boolean isSet() {
    return strategy != null || initial != null || multiplier != null || cap != null || increment != null
        || jitter != null;
  }

  private boolean hasParameterFlags() {
    return initial != null || multiplier != null || cap != null || increment != null || jitter != null;
  }

  /**
   * The experiment policy {@code --strategy} names (canonical), or null.
   *
   * @throws IllegalArgumentException if parameter flags were given with it, or it needs the simulator
   */
  String experiment() {
    String experiment = ExperimentPolicies.canonical(name());
    if (experiment == null) {
      return null;
    }
    if (hasParameterFlags()) {
      throw new IllegalArgumentException("--strategy " + name() + " is an experiment policy with fixed values; "
          + "--initial, --multiplier, --cap, --increment and --jitter do not apply");
    }
    if (ExperimentPolicies.hasFirstRetryQuirk(experiment)) {
      throw new IllegalArgumentException("--strategy " + name() + " needs the simulator's think times; use it "
          + "with 'backoff simulate'");
    }
    return experiment;
  }

  /**
   * The spec these flags describe (not for experiment policies: see {@link #experiment()}).
   *
   * @throws IllegalArgumentException naming the bad part of the spec or the bad flag value
   */
  BackoffSpec spec() {
    BackoffSpec spec = BackoffSpec.parse(name());
    if (initial != null) {
      spec = spec.initial(initial);
    }
    if (multiplier != null) {
      spec = spec.multiplier(multiplier);
    }
    if (cap != null) {
      spec = spec.cap(cap);
    }
    if (increment != null) {
      spec = spec.increment(increment);
    }
    if (jitter != null) {
      spec = spec.jitter(jitter);
    }
    return spec;
  }

  /**
   * The strategy these flags describe.
   *
   * @throws IllegalArgumentException naming the bad flag value or combination
   */
  Backoff backoff() {
    String experiment = experiment();
    return experiment != null ? ExperimentPolicies.backoff(experiment) : spec().toBackoff();
  }

  /** The strategy's name as given. */
  String name() {
    return strategy != null ? strategy : DEFAULT_STRATEGY;
  }
}
