package dev.backoff.cli;

import dev.backoff.sim.Metric;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.Sweep;
import dev.backoff.sim.SweepOutput;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code backoff sweep}: varies one or two scenario keys, fault lengths or policy parameters over ranges, runs
 * every point × policy × seed in parallel, and prints a table of the chosen metric (CSV and JSON carry every
 * metric; {@code --report} adds an HTML page with line charts or heatmaps).
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = SimulateCommand.ScenarioFlags.class,
    description = {"Vary one or two parameters over ranges and simulate every point, policy and seed in parallel.",
        "A parameter is KEY=A..B:STEP, KEY=A..B (eleven points) or KEY=V1,V2,...; KEY is a scenario key "
            + "(clients, timeout, think-mean, rate, ...), a fault type (pause, crash, capacity, latency: the "
            + "length of the scenario's first fault of that type) or a policy parameter (initial, multiplier, cap, "
            + "increment, jitter-factor).",
        "Example: backoff sweep clients=500..5000:500 pause=10s..60s:10s --metric recovered --report out/"})
final class SweepCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Parameters(arity = "1..2", paramLabel = "<range>",
      description = "One or two parameters to vary, each KEY=RANGE: clients=500..5000:500, pause=5s..120s:5s, "
          + "initial=50ms..1s (eleven points), timeout=1s,2s,5s (a list).")
  List<String> ranges;

  @Option(names = "--metric", paramLabel = "recovered|recovery-time|amplification|peak-concurrency|success|p99",
      defaultValue = "recovered",
      description = "What the table and the first chart show: recovered (the share of runs that recovered), "
          + "recovery-time, amplification, peak-concurrency, success or p99 (each the median over the seeds). "
          + "Default: ${DEFAULT-VALUE}.")
  String metric;

  @Option(names = "--seeds", paramLabel = "<count>", defaultValue = "5",
      description = "Seeds per point and policy (the scenario's seed, seed+1, ...). Default: ${DEFAULT-VALUE}.")
  int seeds;

  @Option(names = "--threads", paramLabel = "<count>",
      description = "Runs at once (each run is single-threaded; the output is the same for any count). Default: "
          + "the processors available to the JVM.")
  Integer threads;

  @Option(names = "--format", paramLabel = "table|csv|json", defaultValue = "table",
      description = "Output on stdout: table (the chosen metric), csv or json (every metric of every point and "
          + "policy). Default: ${DEFAULT-VALUE}.")
  String format;

  @Option(names = "--scenario", paramLabel = "<file>",
      description = "Scenario file (YAML or JSON) with the same keys as the flags; flags override it.")
  Path scenarioFile;

  @Option(names = "--report", paramLabel = "<dir>",
      description = "Also write DIR/sweep.html (charts of every metric: a line chart for one parameter, a heatmap "
          + "per policy for two), sweep.json and sweep.csv. DIR is created if missing (its parent must exist).")
  Path reportDirectory;

  @Override
  public Integer call() throws IOException, InterruptedException {
    Metric chosen;
    try {
      chosen = Metric.parse(metric);
    } catch (IllegalArgumentException e) {
      throw new Errors.UsageException("--metric: " + e.getMessage());
    }
    String output = format.trim().toLowerCase(Locale.ROOT);
    if (!List.of("table", "csv", "json").contains(output)) {
      throw new Errors.UsageException("--format: unknown format '" + format + "'; use table, csv or json");
    }
    if (seeds < 1) {
      throw new Errors.UsageException("--seeds: must be at least 1, was " + seeds);
    }
    int threadCount = SeedsRun.threads(threads);
    List<Sweep.Parameter> parameters = new ArrayList<>();
    for (String range : ranges) {
      try {
        parameters.add(Sweep.Parameter.parse(range));
      } catch (IllegalArgumentException e) {
        throw new Errors.UsageException(e.getMessage());
      }
    }
    Scenario scenario = SimulateCommand.scenario(spec, scenarioFile);
    long total = Sweep.totalSeconds(scenario, parameters, seeds); // checks every point before anything runs
    if (reportDirectory != null) {
      ReportDirectory.prepare("--report", reportDirectory, "sweep.html", "sweep.json", "sweep.csv");
    }
    Sweep sweep;
    try (Progress progress = Progress.start(spec, "sweep " + Sweep.runs(scenario, parameters, seeds) + " runs",
        total)) {
      sweep = Sweep.run(scenario, parameters, seeds, threadCount, progress::stepTo);
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(switch (output) {
      case "csv" -> SweepOutput.csv(sweep);
      case "json" -> SweepOutput.json(sweep);
      default -> SweepOutput.table(sweep, chosen);
    });
    out.flush();
    if (reportDirectory != null) {
      Files.writeString(reportDirectory.resolve("sweep.html"), SweepOutput.html(sweep, chosen));
      Files.writeString(reportDirectory.resolve("sweep.json"), SweepOutput.json(sweep));
      Files.writeString(reportDirectory.resolve("sweep.csv"), SweepOutput.csv(sweep));
      spec.commandLine().getErr().println("backoff: report written to " + reportDirectory.resolve("sweep.html"));
      spec.commandLine().getErr().flush();
    }
    return 0;
  }
}
