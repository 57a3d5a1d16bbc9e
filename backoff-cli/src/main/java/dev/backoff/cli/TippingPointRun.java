package dev.backoff.cli;

import dev.backoff.sim.Scenario;
import dev.backoff.sim.TippingPoints;
import dev.backoff.sim.TippingPointsOutput;
import java.io.IOException;
import java.io.PrintWriter;

/**
 * {@code simulate --tipping-point}: the scan of the first fault's length over a grid and the seeds (one seed,
 * the scenario's, without {@code --seeds}), runs in parallel. Stateless.
 */
final class TippingPointRun {
  private TippingPointRun() {}

  static int call(SimulateCommand command) throws IOException, InterruptedException {
    int seeds = command.seeds == null ? 1 : command.seeds;
    if (seeds < 1) {
      throw new Errors.UsageException("--seeds: must be at least 1, was " + seeds);
    }
    int grid = wholeSeconds("--grid", command.grid);
    int resolution = wholeSeconds("--resolution", command.resolution);
    if (command.reportDirectory != null) {
      throw new Errors.UsageException("--report: the tipping-point scan writes no report; drop --report "
          + "(--format json or csv gives every length's verdicts)");
    }
    if (command.format == SimulateCommand.Format.SUMMARY_CSV) {
      throw new Errors.UsageException("--format summary-csv: the tipping-point scan has one CSV, a line per policy "
          + "and length; use --format csv");
    }
    int threads = SeedsRun.threads(command.threads);
    Scenario scenario = SimulateCommand.scenario(command.spec, command.scenarioFile);
    long most = TippingPoints.maxRuns(scenario, seeds, grid, resolution);
    TippingPoints.Scan scan;
    try (Progress progress = Progress.start(command.spec, "tipping points", most, " runs")) {
      scan = TippingPoints.scan(scenario, seeds, grid, resolution, threads, progress::stepTo);
    }
    PrintWriter out = command.spec.commandLine().getOut();
    out.print(switch (command.format) {
      case JSON -> TippingPointsOutput.json(scan);
      case CSV, SUMMARY_CSV -> TippingPointsOutput.csv(scan);
      case TABLE -> TippingPointsOutput.table(scan);
    });
    out.flush();
    return 0;
  }

  /** A scan step in whole seconds, at least one, as every other duration flag takes it ({@code 5s}, {@code 1m}). */
  private static int wholeSeconds(String flag, java.time.Duration step) {
    if (step.compareTo(java.time.Duration.ofSeconds(1)) < 0 || step.getNano() != 0
        || step.getSeconds() > Integer.MAX_VALUE) {
      throw new Errors.UsageException(flag + ": must be a whole number of seconds, at least 1s, was "
          + dev.backoff.spec.Durations.format(step.isNegative() ? java.time.Duration.ZERO : step));
    }
    return (int) step.getSeconds();
  }
}
