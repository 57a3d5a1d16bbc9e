package dev.backoff.cli;

import dev.backoff.lab.LabServer;
import dev.backoff.sim.Scenario;
import dev.backoff.spec.Durations;
import java.io.PrintWriter;
import java.net.BindException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code backoff lab server}: the retry-storm experiment's server on 127.0.0.1. */
@Command(name = "server", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = ScenarioKeyFlags.Knee.class,
    description = {"Run the retry-storm experiment's server on 127.0.0.1.",
        "/api answers OK after base-latency · knee-factor^((c − knee-limit)/knee-k) for c above knee-limit (c = requests in service, "
            + "abandoned ones included), re-checked every 50 ms. Prints 'concurrency: N, last delay: D' every "
            + "second.",
        "Pause it with SIGSTOP (kill -STOP PID) or POST /admin/pause; resume with SIGCONT or POST "
            + "/admin/resume; POST /admin/reset forgets every held request (the way out of a storm the model "
            + "never ends); GET /admin/stats answers JSON. Admin POSTs from a web page (another Origin, form "
            + "bodies) are refused. Runs until interrupted (Ctrl-C) or for --duration."})
final class LabServerCommand implements Callable<Integer> {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  @Spec
  CommandSpec spec;

  @Option(names = "--port", paramLabel = "<port>", description = "Port on 127.0.0.1 (0: any free one). Default 8070.")
  int port = 8070;

  @Option(names = "--max-connections", paramLabel = "<count>",
      description = "Most requests held at once; more get 503 (file descriptors stay bounded). "
          + "Default 10000, or what ulimit -n allows if lower.")
  Integer maxConnections;

  @Option(names = "--duration", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Stop after this long. Default: run until interrupted.")
  Duration duration;

  @Option(names = "--service-distribution", paramLabel = "fixed|exponential",
      description = "Each request's service time: fixed (the latency above, as in the retry-storm experiment) or "
          + "exponential (that latency times an exponential draw of mean 1: at low load, exponential service "
          + "times of mean --base-latency, a slow tail to try hedging on). Default fixed.")
  String serviceDistribution = "fixed";

  @Option(names = "--slow-fraction", paramLabel = "<number>",
      description = "A slow tail: this share of the requests (from 0 to 1, 1 excluded; drawn with --seed) takes "
          + "--slow-latency where the others take --base-latency (above the knee they slow down with the others). "
          + "Default 0: none.")
  double slowFraction;

  @Option(names = "--slow-latency", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "What a slow request takes (see --slow-fraction); must be above --base-latency.")
  Duration slowLatency;

  @Option(names = "--reject-status", paramLabel = "503|429",
      description = "The status a request gets at once when the server holds --max-connections requests. With "
          + "--knee-limit at or above --max-connections, a server of --max-connections / --base-latency "
          + "requests per second that answers 429 above it, as the simulator's pool does. Default 503.")
  int rejectStatus = 503;

  @Option(names = "--seed", paramLabel = "<integer>",
      description = "Seed of the exponential service-time draws and of which requests are slow. Default 1.")
  long seed = 1;

  @Override
  public Integer call() throws Exception {
    LabCommand.withoutUnsafeOnNewerJdks();
    if (port < 0 || port > 65535) {
      throw new Errors.UsageException("--port must be in 0..65535, was " + port);
    }
    if (maxConnections != null && maxConnections < 1) {
      throw new Errors.UsageException("--max-connections must be at least 1, was " + maxConnections);
    }
    if (duration != null && (duration.isZero() || duration.isNegative())) {
      throw new Errors.UsageException("--duration must be positive, was " + Durations.format(duration));
    }
    if (!"fixed".equals(serviceDistribution) && !"exponential".equals(serviceDistribution)) {
      throw new Errors.UsageException("--service-distribution must be fixed or exponential, was '"
          + serviceDistribution + "'");
    }
    if (rejectStatus != 503 && rejectStatus != 429) {
      throw new Errors.UsageException("--reject-status must be 503 or 429, was " + rejectStatus);
    }
    if (!(slowFraction >= 0 && slowFraction < 1)) {
      throw new Errors.UsageException("--slow-fraction must be from 0 to 1 (1 excluded), was " + slowFraction);
    }
    if (slowFraction > 0 && slowLatency == null) {
      throw new Errors.UsageException("--slow-fraction " + Numbers.text(slowFraction) + " needs --slow-latency, "
          + "such as --slow-latency 400ms");
    }
    if (slowFraction == 0 && slowLatency != null) {
      throw new Errors.UsageException("--slow-latency needs --slow-fraction above 0, such as --slow-fraction 0.03");
    }
    Scenario model = ScenarioKeyFlags.scenario(spec, ScenarioKeyFlags.KNEE);
    if (slowLatency != null && slowLatency.compareTo(model.kneeLatency().base()) <= 0) {
      throw new Errors.UsageException("--slow-latency " + Durations.format(slowLatency) + " must be above "
          + "--base-latency " + Durations.format(model.kneeLatency().base()));
    }
    if (model.backlog() < 1) {
      throw new Errors.UsageException("--backlog must be at least 1 for a live server, was " + model.backlog());
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    LabServer.Builder builder = LabServer.builder().port(port).latency(model.kneeLatency()).backlog(model.backlog())
        .serviceDistribution(serviceDistribution).slowTail(slowFraction, slowLatency).seed(seed)
        .rejectStatus(rejectStatus)
        .report(line -> {
          out.println(LocalTime.now().format(TIME) + ": " + line);
          out.flush();
        });
    if (maxConnections != null) {
      builder.maxConnections(maxConnections);
    }
    LabServer server;
    try {
      server = builder.start();
    } catch (BindException e) {
      throw new IllegalStateException("cannot listen on 127.0.0.1:" + port + ": " + e.getMessage()
          + " (another server there? try --port 0)");
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "backoff-lab-server-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    String base = "http://127.0.0.1:" + server.port();
    err.println("backoff lab server: " + base + "/api  " + server.latency()
        + ("exponential".equals(server.serviceDistribution()) ? ", exponential service times" : "")
        + (server.slowFraction() == 0 ? "" : ", " + Numbers.text(100 * server.slowFraction()) + "% of requests "
            + Durations.format(server.slowLatency()))
        + ", backlog " + server.backlog()
        + ", holding at most " + server.maxConnections() + " requests"
        + (server.rejectStatus() == 503 ? "" : " (" + server.rejectStatus() + " beyond them)"));
    err.println("  pause:  kill -STOP " + ProcessHandle.current().pid() + "  or  curl -X POST " + base
        + "/admin/pause");
    err.println("  resume: kill -CONT " + ProcessHandle.current().pid() + "  or  curl -X POST " + base
        + "/admin/resume");
    err.println("  reset:  curl -X POST " + base + "/admin/reset   (forgets every held request)");
    err.flush();
    try {
      if (duration == null) {
        stopped.await();
      } else {
        stopped.await(duration.toNanos(), TimeUnit.NANOSECONDS);
      }
    } finally {
      server.close();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running: it closes the server.
      }
    }
    return 0;
  }
}
