package dev.backoff.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/** Entry point of the {@code backoff} command. */
public final class Main {
  private Main() {}

  /** Runs the command and exits with its status (see {@link HelpTexts#EXIT_CODES}). */
  public static void main(String[] args) {
    System.exit(newCommandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true))
        .execute(args));
  }

  /**
   * The configured command line, writing machine output to {@code out} and human chatter to {@code err};
   * tests call it directly.
   */
  public static CommandLine newCommandLine(PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(new BackoffCommand());
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    // "@FILE" is a value for the commands (curl-style "backoff http --data @FILE"), not a picocli argument file.
    commandLine.setExpandAtFiles(false);
    commandLine.setParameterExceptionHandler(Errors::onUsageError);
    commandLine.setExecutionExceptionHandler(Errors::onFailure);
    // "backoff run ls -la" runs "ls -la", as nice, timeout and env do: the command's options are its own
    // from its name on (a "--" before the command still works).
    commandLine.getSubcommands().get("run").setStopAtPositional(true);
    HelpTexts.apply(commandLine);
    return commandLine;
  }
}
