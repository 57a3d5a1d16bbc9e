package dev.backoff.cli;

import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns exceptions into the command line's conventions: a usage error prints one line and a hint and exits
 * 2; a failure prints one line and exits 1; stack traces only with {@code --verbose}.
 */
final class Errors {
  static final int FAILURE = 1;
  static final int USAGE = 2;

  private Errors() {}

  static int onUsageError(ParameterException e, String[] args) {
    CommandLine commandLine = e.getCommandLine();
    PrintWriter err = commandLine.getErr();
    String hint = "Try '" + commandLine.getCommandSpec().qualifiedName() + " --help' for usage.";
    if (e instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
      String token = unmatched.getUnmatched().get(0);
      err.println("backoff: " + unmatched(commandLine, token));
      if (commandLine.getCommand() instanceof RunCommand && token.startsWith("-") && !List.of(args).contains("--")) {
        // "backoff run --retries 3 ls" and the like: the option may be meant for the command.
        hint = "If '" + token + "' is for the command, put -- before the command: "
            + commandLine.getCommandSpec().qualifiedName() + " [OPTIONS] -- COMMAND [ARGS...]";
      }
    } else {
      err.println("backoff: " + firstLine(e.getMessage()));
    }
    err.println(hint);
    if (isVerbose(args)) {
      e.printStackTrace(err);
    }
    err.flush();
    return USAGE;
  }

  static int onFailure(Exception e, CommandLine commandLine, ParseResult parseResult) {
    PrintWriter err = commandLine.getErr();
    boolean usage = e instanceof UsageException || e instanceof IllegalArgumentException;
    err.println("backoff: " + message(e));
    if (usage) {
      err.println("Try '" + commandLine.getCommandSpec().qualifiedName() + " --help' for usage.");
    }
    if (isVerbose(parseResult)) {
      e.printStackTrace(err);
    } else if (!usage) {
      err.println("(run with --verbose for the stack trace)");
    }
    err.flush();
    return usage ? USAGE : FAILURE;
  }

  static String message(Throwable e) {
    if (e instanceof FileSystemException file && file.getFile() != null) {
      // The JDK's message is often the bare path ("AccessDeniedException: out/simulation.html"): say why.
      return file.getFile() + (file.getOtherFile() == null ? "" : " -> " + file.getOtherFile()) + ": "
          + InputFiles.reason(file);
    }
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      message = e.getClass().getSimpleName();
    }
    return firstLine(message);
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /**
   * The one-line message for an argument picocli could not place: an unknown option or command, with the
   * closest known one, or an argument the command does not take.
   */
  static String unmatched(CommandLine commandLine, String token) {
    CommandSpec spec = commandLine.getCommandSpec();
    if (token.startsWith("-")) {
      String name = token.contains("=") ? token.substring(0, token.indexOf('=')) : token;
      List<String> known = new ArrayList<>();
      for (OptionSpec option : spec.options()) {
        known.addAll(List.of(option.names()));
      }
      String closest = dev.backoff.spec.Suggestions.closest(name, known);
      return "unknown option '" + name + "' for '" + spec.qualifiedName() + "'"
          + (closest == null ? "" : "; did you mean '" + closest + "'?");
    }
    if (!commandLine.getSubcommands().isEmpty()) {
      List<String> known = commandLine.getSubcommands().keySet().stream().filter(n -> !n.equals("help")).toList();
      String closest = dev.backoff.spec.Suggestions.closest(token, known);
      return "unknown command '" + token + "' for '" + spec.qualifiedName() + "'"
          + (closest == null ? "; commands: " + String.join(", ", known) : "; did you mean '" + closest + "'?");
    }
    return "unexpected argument '" + token + "': '" + spec.qualifiedName() + "' takes "
        + (spec.positionalParameters().isEmpty() ? "options only" : "no more arguments");
  }

  /** Whether --verbose was given to backoff or a subcommand (not to the command that run runs). */
  private static boolean isVerbose(ParseResult parseResult) {
    for (ParseResult level = parseResult; level != null; level = level.subcommand()) {
      if (level.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isVerbose(String[] args) {
    for (String arg : args) {
      if (arg.equals("--verbose")) {
        return true;
      }
      if (arg.equals("--")) {
        return false;
      }
    }
    return false;
  }

  /** A bad flag value or combination found after parsing: exits 2 with its message. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
