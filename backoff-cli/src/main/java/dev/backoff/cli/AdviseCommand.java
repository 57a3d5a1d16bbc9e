package dev.backoff.cli;

import dev.backoff.sim.Advice;
import dev.backoff.sim.Advisor;
import dev.backoff.sim.Objective;
import dev.backoff.sim.PolicyCandidate;
import dev.backoff.sim.Runs;
import dev.backoff.sim.Scenario;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code backoff advise}: searches retry policies for those meeting objectives in a scenario, over several
 * seeds ({@link Advisor}), re-checks the best on held-out seeds (as many per check as the objectives need to
 * be shown) and under perturbed load and fault length, alone and jointly, and prints them, the Pareto front of
 * success ratio against amplification and p99, and the most robust policy as Java, the {@code simulate}
 * commands that reproduce its runs and Spring properties. Exit 0 when a policy is shown to meet every objective
 * in every check, 1 when none is (the output says which objective binds, and where), 2 for a usage error.
 */
@Command(name = "advise", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = AdviseCommand.ScenarioFlags.class,
    description = {"Search retry policies (strategy families, their parameters, attempt limits, retry budgets, "
        + "admission control: the adaptive rate limiter, a concurrency limit, and, with --hedging, hedging) "
        + "for those meeting your objectives in a scenario, over several seeds; print them, the trade-off "
        + "between success ratio, amplification and p99, and the most robust one as Java, the simulate commands that "
        + "reproduce its runs and Spring properties.",
        "Objectives: a comma-separated list of METRIC>=VALUE or METRIC<=VALUE (the metric's good direction): "
            + "recovers (fraction of seeds recovered, 0.95 or 95%%), success-ratio (fraction), amplification "
            + "(attempts per request), p99 and recovery-time (durations such as 10s), peak-concurrency (requests), "
            + "goodput (successes per second against a pool server's capacity in the disturbance's second half, as "
            + "simulate --seeds shows it; a fraction; refused for a scenario without that capacity). "
            + "Each is judged on the mean over the seeds (recovery-time: over the seeds that recovered).",
        "The best policies meeting every objective are re-checked on held-out seeds, with the load (clients or "
            + "rate) 20%% lower and higher, every fault 50%% shorter and longer, and each load change with each fault "
            + "change; the recommendation is the most robust of those shown to meet every objective in every check "
            + "(the 95%% interval within the bound, on --held-out-seeds runs per check); equally robust ones (worst-case "
            + "margins equal to 0.1%%) go to the simpler policy, with fewer of a budget, an admission control and "
            + "hedging.",
        "Exit 1 when no policy meets every objective, or none of those checked is shown to hold them in every "
            + "check: the output names the objective that binds, the closest value with its interval, and where."})
final class AdviseCommand implements Callable<Integer> {
  /** Scenario keys the advisor searches, so they are not flags here (a file's values are replaced). */
  static final List<String> SEARCHED = List.of("policies", "max-attempts", "budget");

  @Spec
  CommandSpec spec;

  @Option(names = "--objective", required = true, paramLabel = "<objective>[,<objective>...]",
      description = "What the policy must achieve, such as '" + Objective.EXAMPLE + "'.")
  String objective;

  @Option(names = "--scenario", paramLabel = "<file>", description = "Scenario file (YAML or JSON, as for "
      + "simulate); its policies, max-attempts and budget are replaced by the candidates'. Flags override the file.")
  Path scenarioFile;

  @Option(names = "--seeds", paramLabel = "<count>", defaultValue = "5",
      description = "Runs per candidate policy, each with its own seed (--seed, then the next ones). "
          + "Default: ${DEFAULT-VALUE}.")
  int seeds;

  @Option(names = "--budget", paramLabel = "<count>", defaultValue = "400",
      description = "The most simulation runs to spend (candidates × seeds): the grid (" + Advisor.GRID_SIZE
          + " candidates, " + Advisor.PROTECTED_BLOCK + " for each further --protection: 64 by default, and "
          + Advisor.HEDGED_BLOCK + " for each further --hedging), then refinement around the best. "
          + "Default: ${DEFAULT-VALUE}.")
  int budget;

  @Option(names = "--check-top", paramLabel = "<count>", defaultValue = "" + Advisor.Settings.CHECKED,
      description = "How many of the best policies meeting every objective are re-checked (each in up to 9 "
          + "checks, screened on as many held-out seeds as --seeds, then, if it passes, extended to the held-out "
          + "seeds each check needs). Default: ${DEFAULT-VALUE}.")
  int checkTop;

  @Option(names = "--held-out-seeds", paramLabel = "<count>|auto", defaultValue = "auto",
      description = "Held-out runs per check a recommendation needs. Default: ${DEFAULT-VALUE}, the fewest on which "
          + "every objective can be shown (73 for recovers>=0.95: 73 recovered of 73 is the fewest whose Wilson 95%% "
          + "interval starts at 0.95), at least --seeds, and for a mean objective (success-ratio, amplification, ...) "
          + "as many as its runs' spread needs for the 95%% interval to clear the bound, up to 80. The checked "
          + "policies are screened on the first --seeds of them, then extended.")
  String heldOutSeeds;

  @Option(names = "--protection", paramLabel = "<spec>[,<spec>...]",
      defaultValue = "none,adaptive,concurrency",
      description = "The admission control searched with every policy: none, adaptive (the adaptive rate limiter, "
          + "+adaptive), concurrency (the latency-gradient concurrency limit, +concurrency), concurrency:aimd "
          + "(+concurrency:aimd), or all. The first gets the whole grid, each other one a block of "
          + Advisor.PROTECTED_BLOCK + " candidates; refinement moves between them. Default: ${DEFAULT-VALUE}.")
  String protection;

  @Option(names = "--hedging", paramLabel = "<spec>[,<spec>...]", defaultValue = "none",
      description = "The hedging searched with every policy, for idempotent calls only (a hedge sends the request "
          + "again): none, a quantile of recent latencies with the load cap (p95: +hedge:p95, with +hedge's "
          + "parameters such as p99:max-extra-load=0.1) or a fixed delay (150ms: +hedge:150ms). none comes "
          + "first; the first gets the whole grid, each other one a block of " + Advisor.HEDGED_BLOCK
          + " candidates (2 or 3 attempts, with and without a budget: a hedged call does not use the backoff); "
          + "refinement moves between them. Not with the adaptive rate limiter (the simulator does not run "
          + "both). Default: ${DEFAULT-VALUE}: the default search does not hedge.")
  String hedging;

  @Option(names = "--threads", paramLabel = "<count>",
      description = "Runs at once. Default: the processors available. The advice does not depend on it.")
  Integer threads;

  @Option(names = "--prefer", paramLabel = "recovers|success-ratio|amplification|p99|recovery-time|peak-concurrency|goodput",
      defaultValue = "success-ratio",
      description = "Among the policies meeting every objective, the best is the one best on this metric (then the "
          + "one most comfortably inside every bound). Default: ${DEFAULT-VALUE}, the most requests served.")
  String prefer;

  @Option(names = "--format", paramLabel = "table|json", defaultValue = "table",
      description = "Output on stdout. Default: ${DEFAULT-VALUE}.")
  String format;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    String chosenFormat = format.trim().toLowerCase(Locale.ROOT);
    if (!chosenFormat.equals("table") && !chosenFormat.equals("json")) {
      throw new Errors.UsageException("--format: unknown format '" + format + "'; use table or json");
    }
    List<Objective> objectives;
    try {
      objectives = Objective.parseAll(objective);
    } catch (IllegalArgumentException e) {
      err.println("backoff: --objective: " + e.getMessage());
      err.println("Objectives look like '" + Objective.EXAMPLE + "'; metrics: " + String.join(", ",
          Objective.Metric.ids()) + ". Try 'backoff advise --help'.");
      err.flush();
      return Errors.USAGE;
    }
    Objective.Metric preferred = null;
    for (Objective.Metric metric : Objective.Metric.values()) {
      if (metric.id().equals(prefer.trim().toLowerCase(Locale.ROOT))) {
        preferred = metric;
      }
    }
    if (preferred == null) {
      throw new Errors.UsageException("--prefer: unknown metric '" + prefer + "'; use "
          + String.join(", ", Objective.Metric.ids()));
    }
    int heldOut = Advisor.Settings.SIZED;
    if (!heldOutSeeds.trim().equalsIgnoreCase("auto")) {
      try {
        heldOut = Integer.parseInt(heldOutSeeds.trim());
      } catch (NumberFormatException e) {
        throw new Errors.UsageException("--held-out-seeds: '" + heldOutSeeds + "' is not a count; give one from 1 to "
            + "1000, or auto");
      }
      if (heldOut < 1) {
        throw new Errors.UsageException("--held-out-seeds: must be from 1 to 1000, or auto; was " + heldOut);
      }
    }
    List<PolicyCandidate.Protection> protections;
    try {
      protections = PolicyCandidate.Protection.parseAll(protection);
    } catch (IllegalArgumentException e) {
      throw new Errors.UsageException("--protection: " + e.getMessage());
    }
    List<PolicyCandidate.Hedge> hedges;
    try {
      hedges = PolicyCandidate.Hedge.parseAll(hedging);
    } catch (IllegalArgumentException e) {
      throw new Errors.UsageException("--hedging: " + e.getMessage());
    }
    Advisor.Settings settings;
    try {
      settings = new Advisor.Settings(seeds, budget, threads == null ? Runs.defaultThreads() : threads, preferred,
          checkTop, heldOut, protections, hedges);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      String flag = message.startsWith("seeds") ? "--seeds" : message.startsWith("threads") ? "--threads"
          : message.startsWith("checked") ? "--check-top" : message.startsWith("held-out") ? "--held-out-seeds"
          : message.startsWith("hedging") ? "--hedging" : "--budget";
      throw new Errors.UsageException(flag + ": " + message);
    }
    try {
      settings.heldOut(objectives);
    } catch (IllegalArgumentException e) {
      throw new Errors.UsageException("--objective: " + e.getMessage());
    }
    Map<String, Object> values = new LinkedHashMap<>();
    if (scenarioFile != null) {
      values.putAll(SimulateCommand.readScenarioFile(scenarioFile));
    }
    Map<String, Object> flags = ScenarioKeyFlags.given(spec, flagKeys());
    values.putAll(flags);
    Scenario scenario = Scenario.of(values);
    Advice advice;
    try (Progress progress = Progress.start(spec, "advise", Advisor.totalSeconds(scenario, objectives, settings))) {
      advice = Advisor.advise(scenario, objectives, settings, seconds -> progress.stepTo((int) seconds));
    }
    // The simulate commands name the file and the flags as given, so that pasting one runs this very scenario.
    Map<String, String> flagTexts = new LinkedHashMap<>();
    flags.forEach((key, value) -> flagTexts.put(key, String.valueOf(value)));
    advice = advice.describedBy(scenarioFile == null ? null : scenarioFile.toString(), flagTexts);
    PrintWriter out = spec.commandLine().getOut();
    out.print(chosenFormat.equals("json") ? advice.json() : advice.table());
    out.flush();
    if (advice.recommended() == null) {
      err.println("backoff: " + (advice.met() ? "no policy checked was shown to hold every objective in every check: "
          : "no policy met every objective: ") + advice.binding().get(0));
      err.flush();
      return Errors.FAILURE;
    }
    return 0;
  }

  /** Every scenario key but the searched ones. */
  static List<String> flagKeys() {
    List<String> keys = new ArrayList<>();
    for (Scenario.Key key : Scenario.keys()) {
      if (!SEARCHED.contains(key.name())) {
        keys.add(key.name());
      }
    }
    return keys;
  }

  /** Adds one {@code --KEY VALUE} option per scenario key the advisor does not search. */
  static final class ScenarioFlags implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      return ScenarioKeyFlags.add(command, flagKeys());
    }
  }
}
