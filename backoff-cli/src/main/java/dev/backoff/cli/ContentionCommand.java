package dev.backoff.cli;

import dev.backoff.sim.Contention;
import dev.backoff.sim.HtmlReport;
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
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code backoff contention}: AWS's optimistic-concurrency contention experiment: mean write calls and
 * completion time against the number of clients, for each jitter strategy.
 */
@Command(name = "contention", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = ContentionCommand.KeyFlags.class,
    description = {"Compare jitter strategies in AWS's contention experiment: mean write calls and completion "
        + "time against the number of clients.",
        "N clients each make one optimistic-concurrency write to a single row and back off on conflict, as in AWS's "
        + "\"Exponential Backoff and Jitter\"."})
final class ContentionCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scenario", paramLabel = "<file>", description = "Scenario file (YAML or JSON, UTF-8, at most 1 MiB) with the same keys as the flags, each once.")
  Path scenarioFile;

  @Option(names = "--format", paramLabel = "table|csv|json", defaultValue = "table",
      description = "Output on stdout: table, csv or json. Default: ${DEFAULT-VALUE}.")
  SimulateCommand.Format format;

  @Option(names = "--report", paramLabel = "<dir>", description = "Also write contention.html and contention.json into this directory; it is created if missing "
          + "(its parent must exist).")
  Path reportDirectory;

  @Override
  public Integer call() throws IOException {
    Map<String, Object> values = new LinkedHashMap<>();
    if (scenarioFile != null) {
      values.putAll(SimulateCommand.readScenarioFile(scenarioFile));
    }
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    for (String key : Contention.defaults().keySet()) {
      OptionSpec option = spec.findOption("--" + key);
      if (option != null && parsed.hasMatchedOption(option)) {
        values.put(key, option.getValue());
      }
    }
    if (reportDirectory != null) {
      ReportDirectory.prepare("--report", reportDirectory, "contention.html", "contention.json");
    }
    List<Contention.Row> rows;
    // Large client counts take minutes (the work grows with their square): show how far it is on a terminal.
    try (Progress progress = Progress.start(spec, "contention", 100, "%")) {
      rows = Contention.run(values, permille -> progress.stepTo(permille / 10));
    }
    PrintWriter out = spec.commandLine().getOut();
    switch (format) {
      case CSV:
        out.print(Contention.csv(rows));
        break;
      case JSON:
        out.print(Contention.json(rows));
        break;
      default:
        out.print(Contention.table(rows));
    }
    out.flush();
    if (reportDirectory != null) {
      Files.writeString(reportDirectory.resolve("contention.html"), HtmlReport.contention(rows));
      Files.writeString(reportDirectory.resolve("contention.json"), Contention.json(rows));
      spec.commandLine().getErr().println("backoff: report written to " + reportDirectory.resolve("contention.html"));
      spec.commandLine().getErr().flush();
    }
    return 0;
  }

  /** What each contention key means, for its flag's help (a key missing here fails a help test). */
  static final Map<String, String> DESCRIPTIONS = Map.of(
      "clients", "Client counts N, comma-separated: one row per count.",
      "runs", "Runs averaged for each strategy and client count.",
      "base", "First backoff delay of every strategy.",
      "cap", "Longest backoff delay.",
      "network-mean", "Mean delay of each message (read or conditional write); delays are |normal(mean, deviation)|.",
      "network-deviation", "Standard deviation of each message's delay.",
      "max-attempts", "Attempt limit of every strategy, the first attempt included, or unlimited (the article's "
          + "clients write until they succeed; a client whose limit is reached gives up without writing).",
      "strategies", "Strategies to compare, comma-separated, by their names in every command (see 'backoff "
          + "strategies'): none, exponential (no jitter), full-jitter, equal-jitter, decorrelated, decorrelated-v2; "
          + "base and cap apply to each that does not give its own; each may add +budget or "
          + "+breaker[:rate%:window:wait:trials] (one budget and breaker shared by a run's clients; a refused client "
          + "gives up without writing).",
      "seed", "Random seed: the same seed and keys give the same output.");

  /** One {@code --KEY VALUE} option per contention key. */
  static final class KeyFlags implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      for (Map.Entry<String, Object> key : Contention.defaults().entrySet()) {
        String name = key.getKey();
        command.addOption(OptionSpec.builder("--" + name)
            .paramLabel(switch (name) {
              case "clients" -> "<count>[,<count>...]";
              case "strategies" -> "<strategy>[,<strategy>...]";
              default -> ScenarioKeyFlags.placeholder(name, String.valueOf(key.getValue()));
            })
            .type(String.class)
            .description((DESCRIPTIONS.getOrDefault(name, "") + " Default: " + key.getValue() + ".").strip()
                .replace("%", "%%")) // picocli formats descriptions: a literal % is %%
            .build());
      }
      return command;
    }
  }
}
