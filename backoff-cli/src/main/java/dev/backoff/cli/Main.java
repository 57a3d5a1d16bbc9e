package dev.backoff.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/** Entry point of the {@code backoff} command. */
public final class Main {
  private Main() {}

  /**
   * The commands that stop on Ctrl-C or SIGTERM by design and report it themselves: {@code run} says what it
   * stopped, the lab's server and client print their summaries.
   */
  private static final java.util.Set<String> REPORT_THEIR_OWN_STOP = java.util.Set.of("run", "server", "client");

  /** Runs the command and exits with its status (see {@link HelpTexts#EXIT_CODES}). */
  public static void main(String[] args) {
    PrintWriter err = new PrintWriter(System.err, true);
    CommandLine commandLine = newCommandLine(new PrintWriter(System.out, true), err);
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    // Ctrl-C (exit 130) or SIGTERM (143) ends the JVM through its shutdown hooks: say so, rather than end
    // silently with a half-written or missing output.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      String message = done.get() ? null : interruptionMessage(commandLine.getParseResult());
      if (message != null) {
        err.println(message);
        err.flush();
      }
    }, "backoff-interrupted"));
    int status = commandLine.execute(args);
    done.set(true);
    System.exit(status);
  }

  /**
   * What to say when the process is stopped by a signal while {@code parsed}'s command runs, or null when
   * that command reports its own stop (or nothing was parsed yet, as while printing help).
   */
  static String interruptionMessage(CommandLine.ParseResult parsed) {
    if (parsed == null) {
      return null;
    }
    CommandLine.ParseResult deepest = parsed;
    while (deepest.subcommand() != null) {
      deepest = deepest.subcommand();
    }
    if (deepest == parsed || REPORT_THEIR_OWN_STOP.contains(deepest.commandSpec().name())) {
      return null;
    }
    return "backoff: " + deepest.commandSpec().qualifiedName().replaceFirst("^backoff ", "")
        + " interrupted; stopped before it finished (its output is incomplete)";
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
