package dev.backoff.cli;

import dev.backoff.spec.ExperimentPolicies;
import dev.backoff.spec.BackoffSpec;
import dev.backoff.spec.BudgetSpec;
import dev.backoff.spec.PolicySpec;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code backoff strategies}: the one list of policy names that {@code schedule}, {@code run}, {@code http}
 * ({@code --strategy}), {@code simulate} ({@code --policies} and scenario files) and {@code lab}
 * ({@code --policy}, {@code --policies}) all accept, with what each means.
 */
@Command(name = "strategies", mixinStandardHelpOptions = true,
    description = {"List every strategy, preset and experiment policy, with its parameters: the names that "
        + "schedule, tune, run, http (--strategy), simulate (--policies, scenario files) and lab (--policy, "
        + "--policies) all accept, with the same meaning."})
final class StrategiesCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    List<String[]> rows = new ArrayList<>();
    for (String name : BackoffSpec.strategyNames()) {
      rows.add(new String[] {BackoffSpec.usage(name), BackoffSpec.describe(name)});
    }
    List<String[]> presets = new ArrayList<>();
    for (String name : BackoffSpec.names()) {
      if (!BackoffSpec.strategyNames().contains(name)) {
        presets.add(new String[] {name, BackoffSpec.describe(name)});
      }
    }
    List<String[]> experiment = new ArrayList<>();
    for (String name : ExperimentPolicies.names()) {
      experiment.add(new String[] {name, ExperimentPolicies.describe(name)});
    }
    int width = 0;
    for (List<String[]> group : List.of(rows, presets, experiment)) {
      for (String[] row : group) {
        width = Math.max(width, row[0].length());
      }
    }
    String format = "  %-" + width + "s  %s%n";
    out.println("Strategies (parameters by position; leave one empty for its default, e.g. exponential:100ms::20s):");
    rows.forEach(row -> out.printf(format, row[0], row[1]));
    out.println("Presets (fixed values and limits):");
    presets.forEach(row -> out.printf(format, row[0], row[1]));
    out.println("The retry-storm experiment's clients:");
    experiment.forEach(row -> out.printf(format, row[0], row[1]));
    out.println("Durations: 250ms, 1.5s, 2m, 1h, 1d, 500us, 10ns or ISO-8601 (PT1S); a bare number needs a unit.");
    out.println("Add +budget for a retry budget (simulate: the scenario's budget key; lab: "
        + BudgetSpec.DEFAULT + "): " + String.join(", ", BudgetSpec.usage()) + ".");
    out.println("Add +breaker[:rate%:window:wait:trials] for a circuit breaker (default +breaker:50%:20:30s:3; the "
        + "window is a number of calls or a duration), +adaptive[:wait|fail|max-wait] for AWS's adaptive rate "
        + "limiter, +hedge:delay|pNN[:max-hedges][:key=value...] for hedging (simulate only), "
        + "+concurrency[:gradient|aimd|fixed=n][:key=value...] for an adaptive concurrency limit (lab only; keys "
        + String.join(", ", PolicySpec.Concurrency.KEYS) + "). Suffixes combine: full-jitter+budget+breaker.");
    out.flush();
    return 0;
  }
}
