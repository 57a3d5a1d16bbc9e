package dev.backoff.cli;

import dev.backoff.sim.HtmlReport;
import dev.backoff.sim.Json;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code backoff simulate}: runs the retry-storm simulator. Without flags it runs the retry-storm experiment.
 * Every scenario key is also a flag ({@code --clients 5000}); {@code --scenario FILE} reads the same keys
 * from YAML or JSON, and flags override the file.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = SimulateCommand.ScenarioFlags.class,
    description = {"Simulate a fleet of retrying clients against a server in virtual time, and compare policies.",
        "Default: the retry-storm experiment (1000 clients, knee server, 30 s pause at 60 s, 400 s)."})
final class SimulateCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scenario", paramLabel = "<file>", description = "Scenario file (YAML or JSON, UTF-8, at most 1 MiB) with the same keys as the flags, each once.")
  Path scenarioFile;

  @Option(names = "--format", paramLabel = "table|csv|json", defaultValue = "table",
      description = "Output on stdout: table (the clients' 5-second lines and a summary), csv or json. Default: ${DEFAULT-VALUE}.")
  Format format;

  @Option(names = "--report", paramLabel = "<dir>",
      description = "Also write DIR/simulation.html (self-contained, with charts), simulation.json and simulation.csv. DIR is created if missing (its parent must exist).")
  Path reportDirectory;

  @Option(names = "--tipping-point",
      description = "Instead of one run, search each policy's tipping point: the shortest length of the first fault it does not recover from.")
  boolean tippingPoint;

  @Option(names = "--resolution", paramLabel = "<seconds>", defaultValue = "2",
      description = "Tipping-point search resolution in seconds. Default: ${DEFAULT-VALUE}.")
  int resolution;

  enum Format { TABLE, CSV, JSON }

  @Override
  public Integer call() throws IOException {
    Scenario scenario = scenario(spec, scenarioFile);
    if (reportDirectory != null) {
      ReportDirectory.prepare("--report", reportDirectory, "simulation.html", "simulation.json", "simulation.csv");
    }
    PrintWriter out = spec.commandLine().getOut();
    if (tippingPoint) {
      List<Simulator.TippingPoint> points = Simulator.tippingPoints(scenario, resolution);
      if (format == Format.JSON) {
        Json json = Json.compact().object().field("tippingPoints").array();
        for (Simulator.TippingPoint p : points) {
          json.object().field("policy").string(p.policy()).field("faultSeconds").number(p.faultSeconds())
              .field("searchedUpToSeconds").number(p.searchedUpToSeconds()).endObject();
        }
        out.println(json.endArray().endObject());
      } else {
        for (Simulator.TippingPoint p : points) {
          out.println(p.policy() + ": " + (p.faultSeconds() == null
              ? "recovers from every fault length up to " + p.searchedUpToSeconds() + " s"
              : "does not recover from a fault of " + p.faultSeconds() + " s (resolution " + resolution + " s)"));
        }
      }
      out.flush();
      return 0;
    }
    SimulationResult result;
    try (Progress progress = Progress.start(spec, "simulate", (long) scenario.seconds() * scenario.policyNames().size())) {
      result = Simulator.run(scenario, progress::stepTo);
    }
    out.print(switch (format) {
      case CSV -> Output.csv(result);
      case JSON -> Output.json(result);
      default -> Output.table(result);
    });
    out.flush();
    if (reportDirectory != null) {
      Files.writeString(reportDirectory.resolve("simulation.html"), HtmlReport.simulation(result));
      Files.writeString(reportDirectory.resolve("simulation.json"), Output.json(result));
      Files.writeString(reportDirectory.resolve("simulation.csv"), Output.csv(result));
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
