package dev.backoff.cli;

import dev.backoff.sim.HtmlReport;
import dev.backoff.sim.Output;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.ScenarioFiles;
import dev.backoff.sim.SimulationResult;
import dev.backoff.sim.Simulator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code backoff simulate}: runs the retry-storm simulator and prints the summary table and a goodput
 * sparkline per policy ({@code --timeline} adds the experiment's 5-second lines). Without flags it runs the
 * retry-storm experiment.
 * Every scenario key is also a flag ({@code --clients 5000}); {@code --scenario FILE} reads the same keys
 * from YAML or JSON, and flags override the file.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = SimulateCommand.ScenarioFlags.class,
    description = {"Simulate a fleet of retrying clients against a server in virtual time, and compare policies.",
        "Default: the retry-storm experiment (1000 clients, knee server, 30s pause at 60s, 400s)."})
final class SimulateCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scenario", paramLabel = "<file>", description = "Scenario file (YAML or JSON, UTF-8, at most 1 MiB) with the same keys as the flags, each once.")
  Path scenarioFile;

  @Option(names = "--format", paramLabel = "table|csv|summary-csv|json", defaultValue = "table", converter = FormatConverter.class,
      description = "Output on stdout: table (the summary table and a goodput sparkline per policy), csv (every "
          + "policy's per-second values), summary-csv (the summary table's values) or json (summary and "
          + "per-second values). Default: ${DEFAULT-VALUE}.")
  Format format;

  @Option(names = "--timeline",
      description = "With the table format, print first the retry-storm experiment's client lines for every 5s of "
          + "every policy (OK, errors and timeouts per second, server concurrency and latency).")
  boolean timeline;

  @Option(names = "--report", paramLabel = "<dir>",
      description = "Also write DIR/simulation.html (self-contained, with charts), simulation.json, simulation.csv (per second) and simulation-summary.csv. DIR is created if missing (its parent must exist).")
  Path reportDirectory;

  @Option(names = "--tipping-point",
      description = "Instead of one run, scan the length of the first fault: every policy at lengths from 1s on a "
          + "grid (refined where the outcome changes), over the seeds; print how many seeds came back at each "
          + "length, every range of lengths that fails, and whether recovery is monotone in the length.")
  boolean tippingPoint;

  @Option(names = "--grid", paramLabel = "<duration>", defaultValue = "5s", converter = DurationConverter.class,
      description = "Tipping-point scan: the step between fault lengths, whole seconds. Default: ${DEFAULT-VALUE}.")
  java.time.Duration grid;

  @Option(names = "--resolution", paramLabel = "<duration>", defaultValue = "1s", converter = DurationConverter.class,
      description = "Tipping-point scan: the step between two grid lengths whose outcome differs, whole seconds. "
          + "Default: ${DEFAULT-VALUE}.")
  java.time.Duration resolution;

  @Option(names = "--seeds", paramLabel = "<count>",
      description = "Run each policy over COUNT seeds (the scenario's seed, seed+1, ..., seed+COUNT-1) and report, "
          + "per policy, the share of runs that recovered and the mean, median and p90 of each headline number, "
          + "with 95%% intervals; with a pool server or a storm-protection policy, also goodput in the "
          + "disturbance's second half against the capacity and the load, errors, the limiter's refusals and "
          + "the return to the baseline. With --tipping-point: how many of the seeds came back at each length. "
          + "See docs/simulator.md, 'Confidence and sweeps'.")
  Integer seeds;

  @Option(names = "--threads", paramLabel = "<count>",
      description = "With --seeds or --tipping-point: runs at once (each run is single-threaded; the output is the same for any "
          + "count). Default: the processors available to the JVM.")
  Integer threads;

  enum Format { TABLE, CSV, SUMMARY_CSV, JSON }

  /** {@code summary-csv} (any case, with a hyphen or an underscore) and the other formats by name. */
  static final class FormatConverter implements CommandLine.ITypeConverter<Format> {
    @Override
    public Format convert(String value) {
      try {
        return Format.valueOf(value.trim().replace('-', '_').toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException("unknown format '" + value
            + "'; use table, csv, summary-csv or json");
      }
    }
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (timeline && (format != Format.TABLE || tippingPoint)) {
      throw new Errors.UsageException("--timeline: the 5-second lines belong to the table of one run; drop "
          + (tippingPoint ? "--tipping-point" : "--format " + format.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
          + " or --timeline");
    }
    if (tippingPoint) {
      return TippingPointRun.call(this);
    }
    if (seeds != null || threads != null) {
      return SeedsRun.call(this);
    }
    Scenario scenario = scenario(spec, scenarioFile);
    if (reportDirectory != null) {
      ReportDirectory.prepare("--report", reportDirectory, "simulation.html", "simulation.json", "simulation.csv",
          "simulation-summary.csv");
    }
    PrintWriter out = spec.commandLine().getOut();
    SimulationResult result;
    try (Progress progress = Progress.start(spec, "simulate", (long) scenario.seconds() * scenario.policyNames().size())) {
      result = Simulator.run(scenario, progress::stepTo);
    }
    out.print(switch (format) {
      case CSV -> Output.csv(result);
      case SUMMARY_CSV -> Output.summaryCsv(result);
      case JSON -> Output.json(result);
      case TABLE -> timeline ? Output.timeline(result) + Output.table(result) : Output.table(result);
    });
    out.flush();
    if (reportDirectory != null) {
      Files.writeString(reportDirectory.resolve("simulation.html"), HtmlReport.simulation(result));
      Files.writeString(reportDirectory.resolve("simulation.json"), Output.json(result));
      Files.writeString(reportDirectory.resolve("simulation.csv"), Output.csv(result));
      Files.writeString(reportDirectory.resolve("simulation-summary.csv"), Output.summaryCsv(result));
      spec.commandLine().getErr().println("backoff: report written to " + reportDirectory.resolve("simulation.html"));
      spec.commandLine().getErr().flush();
    }
    return 0;
  }

  /** The scenario: defaults, then the file's keys, then the flags given. */
  static Scenario scenario(CommandSpec spec, Path file) throws IOException {
    Map<String, Object> values = new LinkedHashMap<>();
    if (file != null) {
      values.putAll(readScenarioFile(file));
    }
    values.putAll(ScenarioKeyFlags.given(spec, null));
    return Scenario.of(values);
  }

  /** A scenario file's keys, read with {@link InputFiles}' checks (regular file, 1 MiB, UTF-8). */
  static Map<String, Object> readScenarioFile(Path file) {
    return ScenarioFiles.parseMap(InputFiles.readText("--scenario", file, InputFiles.SCENARIO_LIMIT), file.toString());
  }

  /** Adds one {@code --KEY VALUE} option per scenario key, so flags and files can never drift apart. */
  static final class ScenarioFlags implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      return ScenarioKeyFlags.add(command, null);
    }
  }
}
