package dev.backoff.cli;

import dev.backoff.Backoff;
import dev.backoff.BackoffSpec;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The flags that choose a backoff strategy, shared by every command that retries or plans. */
public final class StrategyOptions {
  @Option(names = "--strategy", paramLabel = "NAME",
      description = "Backoff strategy or preset (see 'backoff strategies'). Default: " + StrategyOptions.DEFAULT_STRATEGY + ".")
  String strategy;

  static final String DEFAULT_STRATEGY = "full-jitter";

  @Option(names = "--initial", paramLabel = "D", converter = DurationConverter.class,
      description = "First delay (base of decorrelated, median first delay of decorrelated-v2). Default 100ms.")
  Duration initial;

  @Option(names = "--multiplier", paramLabel = "R", description = "Growth factor of exponential strategies (>= 1). Default 2.")
  Double multiplier;

  @Option(names = "--cap", paramLabel = "D", converter = DurationConverter.class,
      description = "Maximum delay. Default: none (decorrelated and decorrelated-v2: 20s).")
  Duration cap;

  @Option(names = "--increment", paramLabel = "D", converter = DurationConverter.class,
      description = "Step of the linear strategy. Default: the initial delay.")
  Duration increment;

  @Option(names = "--jitter", paramLabel = "F",
      description = "Jitter factor: half-width of proportional (default 0.5), relative deviation of gaussian (default 0.1).")
  Double jitter;

  /** True if any strategy flag was given (so the caller should not fall back to a default policy). */
  public boolean isSet() {
    return strategy != null || initial != null || multiplier != null || cap != null || increment != null
        || jitter != null;
  }

  /** The spec these flags describe. */
  public BackoffSpec spec() {
    BackoffSpec spec = BackoffSpec.of(name());
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
  public Backoff backoff() {
    return spec().toBackoff();
  }

  /** The strategy's name. */
  public String name() {
    return strategy != null ? strategy : DEFAULT_STRATEGY;
  }
}
