package dev.backoff.cli;

import dev.backoff.lab.KneeLatency;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The flags of seed 003's latency knee, shared by {@code lab server} and {@code lab demo}. */
final class LabModelOptions {
  @Option(names = "--limit", paramLabel = "N", description = "Concurrency up to which latency stays at the base. Default 30.")
  int limit = 30;

  @Option(names = "--factor", paramLabel = "F", description = "Latency grows by this factor every K requests above the limit (>= 1). Default 1.05.")
  double factor = 1.05;

  @Option(names = "--k", paramLabel = "K", description = "Requests per factor step (> 0). Default 15.")
  double k = 15;

  @Option(names = "--base-delay", paramLabel = "D", converter = DurationConverter.class,
      description = "Latency at low concurrency. Default 100ms.")
  Duration baseDelay = Duration.ofMillis(100);

  @Option(names = "--backlog", paramLabel = "N",
      description = "Accept backlog: requests that start at once when a paused server resumes. Default 512.")
  int backlog = 512;

  /** The model, or a usage error naming the flag. */
  KneeLatency latency() {
    if (limit < 0) {
      throw new Errors.UsageException("--limit must not be negative, was " + limit);
    }
    if (!(factor >= 1) || Double.isInfinite(factor)) {
      throw new Errors.UsageException("--factor must be a finite number >= 1, was " + factor);
    }
    if (!(k > 0) || Double.isInfinite(k)) {
      throw new Errors.UsageException("--k must be a finite number > 0, was " + k);
    }
    if (baseDelay.isZero() || baseDelay.isNegative() || baseDelay.compareTo(Duration.ofDays(1)) > 0) {
      throw new Errors.UsageException("--base-delay must be positive and at most a day, was " + baseDelay);
    }
    if (backlog < 1) {
      throw new Errors.UsageException("--backlog must be at least 1, was " + backlog);
    }
    return KneeLatency.of(baseDelay, limit, factor, k);
  }
}
