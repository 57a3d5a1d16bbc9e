package dev.backoff.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The top-level {@code backoff} command; its subcommands do the work. */
@Command(
    name = "backoff",
    mixinStandardHelpOptions = true,
    synopsisSubcommandLabel = "<command>",
    versionProvider = BackoffCommand.Version.class,
    description = "Retry policies you can see: plan backoff schedules, simulate retry storms, retry commands "
        + "and HTTP calls.",
    subcommands = {StrategiesCommand.class, ScheduleCommand.class, TuneCommand.class, RunCommand.class,
        HttpCommand.class, SimulateCommand.class, SweepCommand.class, AdviseCommand.class, ContentionCommand.class,
        LabCommand.class, HelpCommand.class})
final class BackoffCommand implements Runnable {
  @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces on errors.")
  boolean verbose;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }

  /** Reads the version from the jar's manifest. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = BackoffCommand.class.getPackage().getImplementationVersion();
      return new String[] {
        "backoff " + (version == null ? "(development build)" : version),
        "JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
      };
    }
  }
}
