package dev.backoff.cli;

import dev.backoff.lab.ClientFleet;
import dev.backoff.lab.LabClientRun;
import dev.backoff.sim.Scenario;
import dev.backoff.spec.Durations;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code backoff lab client}: the retry-storm experiment's fleet of closed-loop clients, retrying with backoff-http. */
@Command(name = "client", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = ScenarioKeyFlags.Fleet.class,
    description = {"Run the retry-storm experiment's clients against a server on this machine.",
        "Each client waits an exponential think time, sends one request, waits for the answer or the timeout, "
            + "and retries under the policy (with backoff-http's client). Prints 'OK: x req/sec, errors: y "
            + "req/sec, timedout: z req/sec' every 5s and, at the end (--duration, or Ctrl-C), a summary with "
            + "the simulator's fields. A lab server's /admin/stats adds its concurrency and shows when it was "
            + "paused."})
final class LabClientCommand implements Callable<Integer> {
  enum Format { table, json }

  @Spec
  CommandSpec spec;

  @Option(names = "--url", paramLabel = "<url>", description = "Where to send (loopback only). Default http://127.0.0.1:8070/api.")
  String url = "http://127.0.0.1:8070/api";

  @Option(names = "--policy", paramLabel = "<spec>",
      description = "Retry policy: an experiment client (storm-fixed, storm-exponential), a strategy with optional "
          + "parameters or a preset, +budget for a fleet-wide budget, +breaker[:rate%%:window:wait:trials] for a "
          + "fleet-wide circuit breaker, +adaptive[:wait|fail|max-wait] for a fleet-wide adaptive rate limiter, "
          + "+hedge:delay[:max-hedges] to hedge, +concurrency[:gradient|aimd|fixed=n][:key=value...] for a "
          + "fleet-wide concurrency limiter (see 'backoff strategies'). "
          + "Default storm-exponential.")
  String policy = "storm-exponential";

  @Option(names = "--duration", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Stop after this long. Default: run until interrupted.")
  Duration duration;

  @Option(names = "--format", paramLabel = "table|json",
      description = "Summary format: ${COMPLETION-CANDIDATES}. Progress (a rate line every 5s) goes to stderr, as in every command; the summary to stdout. Default table.")
  Format format = Format.table;

  @Override
  public Integer call() throws Exception {
    if (duration != null && (duration.isNegative() || duration.toSeconds() < 1)) {
      throw new Errors.UsageException("--duration must be at least 1s, was " + Durations.format(duration));
    }
    Scenario model = ScenarioKeyFlags.scenario(spec, ScenarioKeyFlags.FLEET);
    int clients = model.clients();
    URI uri = parseUrl(url);
    ClientFleet.Builder builder = ClientFleet.builder();
    try {
      builder.uri(uri).clients(clients).think(model.thinkMean()).timeout(model.timeout()).policy(policy);
    } catch (IllegalArgumentException e) {
      throw new Errors.UsageException(flagMessage(e.getMessage()));
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.countDown();
      try {
        finished.await(5, TimeUnit.SECONDS); // let the summary print
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "backoff-lab-client-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      out.println(LabClientRun.run(builder, policy, uri.resolve("/admin/stats"), duration, format == Format.json,
          stop, err, err)); // progress on stderr, as lab demo's and every command's
      out.flush();
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Interrupted: the hook is waiting for us, and we are done.
      }
    }
    return 0;
  }

  static URI parseUrl(String url) {
    try {
      URI uri = new URI(url);
      if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
        throw new Errors.UsageException("--url '" + url + "' is not an http:// URL with a host");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new Errors.UsageException("--url '" + url + "' is malformed: " + e.getReason());
    }
  }

  /** The lab's messages name builder parameters; on the command line they are flags. */
  static String flagMessage(String message) {
    for (String name : new String[] {"url", "clients", "timeout"}) {
      if (message.startsWith(name + " ")) {
        return "--" + message;
      }
    }
    if (message.startsWith("think ")) {
      return "--think-mean " + message.substring("think ".length());
    }
    if (message.startsWith("unknown policy") || message.startsWith("bad policy") || message.startsWith("policy '")) {
      return "--policy: " + message;
    }
    return message;
  }
}
