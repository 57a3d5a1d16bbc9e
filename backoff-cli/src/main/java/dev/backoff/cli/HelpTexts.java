package dev.backoff.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * The help sections every command shares: one exit-code table, shown by every command's {@code --help}
 * (so a status means one thing whichever command returned it), and the environment variables, shown by
 * {@code backoff --help}. The README's command-line reference repeats both; a test keeps them in step.
 * Stateless and thread-safe.
 */
final class HelpTexts {
  /** Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells report it. */
  static final int INTERRUPTED = 130;

  /** Status to meaning, in order; the one table for every command. */
  static final Map<String, String> EXIT_CODES;

  static {
    Map<String, String> codes = new LinkedHashMap<>();
    codes.put("0", "Success (http: a 2xx response; run: the command succeeded).");
    codes.put("1", "Failure: the work could not be done (http: the request failed and was not retried, e.g. "
        + "unknown host; a report that could not be written; advise: no policy met every objective, or none was "
        + "shown to hold them on held-out seeds and perturbed load).");
    codes.put("2", "Usage error: a bad flag, value, scenario file or path; one line and a hint on stderr "
        + "(run: also a command that cannot be started).");
    codes.put("3", "Gave up after retrying (http: attempts, deadline, budget, or a Retry-After beyond "
        + "--max-retry-after). The JVM also exits 3 when it runs out of memory under ./backoff, after a "
        + "'Terminating due to java.lang.OutOfMemoryError' line.");
    codes.put("4", "http: the server answered with a status that is not retried (4xx, 3xx, a 5xx to a "
        + "non-repeatable request).");
    codes.put("130", "Interrupted by Ctrl-C (143 when stopped by SIGTERM).");
    codes.put("other", "run: the command's own exit status, from its last attempt.");
    EXIT_CODES = Collections.unmodifiableMap(codes);
  }

  /** The environment variables the command and its launcher read, name to meaning. */
  static final Map<String, String> ENVIRONMENT;

  static {
    Map<String, String> variables = new LinkedHashMap<>();
    variables.put("BACKOFF_JAVA_OPTS", "JVM options for the ./backoff launcher, such as -Xmx2g. They come "
        + "last, so they can undo the launcher's -XX:+ExitOnOutOfMemoryError.");
    variables.put("BACKOFF_NO_PROGRESS", "When set (to any value, even empty), simulate, sweep, advise and "
        + "contention show no progress bar. The bar appears only on a terminal anyway.");
    ENVIRONMENT = Collections.unmodifiableMap(variables);
  }

  private static final String ENVIRONMENT_SECTION = "environment";

  private HelpTexts() {}

  /**
   * Adds the exit codes to every command's help and the environment to the top-level help, and gives every
   * command the one {@code --version} text.
   */
  static void apply(CommandLine commandLine) {
    UsageMessageSpec top = commandLine.getCommandSpec().usageMessage();
    top.sectionMap().put(ENVIRONMENT_SECTION,
        help -> help.createHeading("%nEnvironment:%n") + help.createTextTable(ENVIRONMENT));
    List<String> sections = new ArrayList<>(top.sectionKeys());
    sections.add(sections.indexOf(UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST) + 1, ENVIRONMENT_SECTION);
    top.sectionKeys(sections);
    applyExitCodes(commandLine);
  }

  private static void applyExitCodes(CommandLine commandLine) {
    commandLine.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(EXIT_CODES);
    // Every command's --version says the same thing (several commands do not name the provider).
    commandLine.getCommandSpec().versionProvider(new BackoffCommand.Version());
    for (CommandLine sub : commandLine.getSubcommands().values()) {
      applyExitCodes(sub);
    }
  }
}
