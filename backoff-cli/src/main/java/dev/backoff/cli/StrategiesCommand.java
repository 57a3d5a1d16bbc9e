package dev.backoff.cli;

import dev.backoff.BackoffSpec;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code backoff strategies}: lists every strategy and preset name with what it does. */
@Command(name = "strategies", mixinStandardHelpOptions = true,
    description = "List the backoff strategies and presets that --strategy accepts.")
final class StrategiesCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    int width = 0;
    for (String name : BackoffSpec.names()) {
      width = Math.max(width, name.length());
    }
    for (String name : BackoffSpec.names()) {
      out.printf("%-" + width + "s  %s%n", name, BackoffSpec.describe(name));
    }
    out.flush();
    return 0;
  }
}
