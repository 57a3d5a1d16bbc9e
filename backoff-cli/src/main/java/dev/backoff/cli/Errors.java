package dev.backoff.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

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
    err.println("backoff: " + e.getMessage());
    err.println("Try '" + commandLine.getCommandSpec().qualifiedName() + " --help' for usage.");
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
    if (isVerbose(parseResult.originalArgs().toArray(new String[0]))) {
      e.printStackTrace(err);
    } else if (!usage) {
      err.println("(run with --verbose for the stack trace)");
    }
    err.flush();
    return usage ? USAGE : FAILURE;
  }

  private static String message(Throwable e) {
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      message = e.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
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
