package dev.backoff.cli;

import dev.backoff.sim.Confidence;
import dev.backoff.sim.ConfidenceOutput;
import dev.backoff.sim.Runs;
import dev.backoff.sim.Scenario;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;

/**
 * {@code simulate --seeds N}: every policy over N seeds, run in parallel, reported with 95% intervals (with
 * {@code --tipping-point}, {@link TippingPointRun} runs instead). Stateless.
 */
final class SeedsRun {
  private SeedsRun() {}

  static int call(SimulateCommand command) throws IOException, InterruptedException {
    if (command.seeds == null) {
      throw new Errors.UsageException("--threads: sets how many runs over seeds go at once; add --seeds COUNT");
    }
    if (command.seeds < 1) {
      throw new Errors.UsageException("--seeds: must be at least 1, was " + command.seeds);
    }
    int threads = threads(command.threads);
    if (command.timeline) {
      throw new Errors.UsageException("--timeline: the 5-second lines belong to the table of one run; drop --seeds "
          + "or --timeline");
    }
    Scenario scenario = SimulateCommand.scenario(command.spec, command.scenarioFile);
    PrintWriter out = command.spec.commandLine().getOut();
    if (command.reportDirectory != null) {
      ReportDirectory.prepare("--report", command.reportDirectory, "seeds.html", "seeds.json", "seeds.csv",
          "seeds-summary.csv");
    }
    Confidence result;
    long total = Confidence.totalSeconds(scenario, command.seeds);
    try (Progress progress = Progress.start(command.spec, "simulate " + command.seeds + (command.seeds == 1 ? " seed" : " seeds"), total)) {
      result = Confidence.run(scenario, command.seeds, threads, progress::stepTo);
    }
    out.print(switch (command.format) {
      case CSV -> ConfidenceOutput.csv(result);
      case SUMMARY_CSV -> ConfidenceOutput.summaryCsv(result);
      case JSON -> ConfidenceOutput.json(result);
      case TABLE -> ConfidenceOutput.table(result);
    });
    out.flush();
    if (command.reportDirectory != null) {
      Files.writeString(command.reportDirectory.resolve("seeds.html"), ConfidenceOutput.html(result));
      Files.writeString(command.reportDirectory.resolve("seeds.json"), ConfidenceOutput.json(result));
      Files.writeString(command.reportDirectory.resolve("seeds.csv"), ConfidenceOutput.csv(result));
      Files.writeString(command.reportDirectory.resolve("seeds-summary.csv"), ConfidenceOutput.summaryCsv(result));
      command.spec.commandLine().getErr().println("backoff: report written to "
          + command.reportDirectory.resolve("seeds.html"));
      command.spec.commandLine().getErr().flush();
    }
    return 0;
  }

  /** The {@code --threads} value, or the processors available; at least 1. */
  static int threads(Integer threads) {
    if (threads == null) {
      return Runs.defaultThreads();
    }
    if (threads < 1) {
      throw new Errors.UsageException("--threads: must be at least 1, was " + threads);
    }
    return threads;
  }
}
