package dev.backoff.cli;

import dev.backoff.lab.LabDemo;
import dev.backoff.sim.Scenario;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The flags of one live pause-and-resume run, shared by {@code lab demo} and {@code lab calibrate}, and the
 * live server's scenario checks: how long to warm up, pause and watch, and how many requests a server may
 * hold. Not thread-safe (picocli fills it).
 */
final class LabRunOptions {
  @Option(names = "--pause", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "How long the server stays paused. Default 30s.")
  Duration pause = Duration.ofSeconds(30);

  @Option(names = "--warmup", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Steady time before the pause. Default 10s.")
  Duration warmup = Duration.ofSeconds(10);

  @Option(names = "--after", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Time watched after the resume. Default 30s.")
  Duration after = Duration.ofSeconds(30);

  @Option(names = "--max-connections", paramLabel = "<count>",
      description = "Requests a live server may hold; reaching it ends that run as a storm. Default 4000.")
  int maxConnections = 4000;

  /**
   * The scenario the model flags describe, checked for a live server, and the experiment for these policies.
   *
   * @throws Errors.UsageException naming the bad flag and value
   */
  LabDemo demo(CommandSpec spec, List<String> policies) {
    Scenario model = ScenarioKeyFlags.scenario(spec, ScenarioKeyFlags.FLEET_AND_KNEE);
    if (model.backlog() < 1) {
      throw new Errors.UsageException("--backlog must be at least 1 for a live server, was " + model.backlog());
    }
    try {
      return LabDemo.builder().clients(model.clients()).think(model.thinkMean()).timeout(model.timeout())
          .warmup(warmup).pause(pause).after(after).latency(model.kneeLatency()).backlog(model.backlog())
          .maxConnections(maxConnections).policies(policies).build();
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      throw new Errors.UsageException(message.startsWith("unknown policy") || message.startsWith("bad policy")
          || message.startsWith("policy '") ? "--policies: " + message
          : message.startsWith("maxConnections") ? "--max-connections" + message.substring("maxConnections".length())
          : LabClientCommand.flagMessage(message).replaceFirst("^(warmup|pause|after) ", "--$1 "));
    }
  }
}
