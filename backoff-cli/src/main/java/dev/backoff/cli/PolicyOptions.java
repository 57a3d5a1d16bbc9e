package dev.backoff.cli;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.Durations;
import dev.backoff.spec.PolicySpec;
import java.io.PrintWriter;
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

  @Option(names = "--adaptive",
      description = "Adaptive client-side rate limiting (AWS's adaptive retry mode): from the first throttled "
          + "attempt on (http: a 429 or 503; run: any retried exit status), every attempt waits for a token from a "
          + "bucket whose rate drops by 30%% on each throttle and grows back along a cubic curve.")
  boolean adaptive;

  /**
   * The rate limiter of {@code --adaptive} (each wait for a token reported as a line to {@code err}), or
   * null without it.
   */
  AdaptiveRateLimiter rateLimiter(PrintWriter err) {
    if (!adaptive) {
      return null;
    }
    return AdaptiveRateLimiter.builder().name("adaptive").listener(new AdaptiveRateLimiter.Listener() {
      @Override
      public void onWait(AdaptiveRateLimiter limiter, long waitNanos) {
        err.println("backoff: waiting " + Durations.format(Duration.ofNanos(waitNanos).truncatedTo(
            java.time.temporal.ChronoUnit.MILLIS)) + " for the adaptive rate limiter ("
            + String.format(java.util.Locale.ROOT, "%.2f", limiter.fillRate()) + " requests/s)");
        err.flush();
      }
    }).build();
  }

  /**
   * A policy builder configured from the flags.
   *
   * @throws IllegalArgumentException naming the bad flag value
   */
  <R> RetryPolicy.Builder<R> builder() {
    // What the name means everywhere (dev.backoff.spec): a strategy the library's defaults, a preset its own.
    String experiment = strategy.experiment();
    RetryPolicy.Builder<R> builder = experiment != null ? PolicySpec.parse(experiment).builder()
        : strategy.spec().policy();
    if (experiment == null && !strategy.spec().isPreset()) {
      builder.name(strategy.isSet() ? strategy.spec().name() : "default");
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
