package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The help a user reads: one exit-code table in every command's help and in the README, the environment
 * variables in the top-level help and the README, a description and a typed placeholder for every option,
 * whole sentences in the command list, {@code backoff help CMD}, and "did you mean" for typos.
 */
class HelpTest {
  /** The value types placeholders may name; anything else (a key's own name) is refused. */
  private static final Set<String> TYPES = Set.of("duration", "count", "number", "integer", "seconds", "file",
      "dir", "spec", "url", "header", "method", "status", "port", "fault", "budget", "strategy", "text", "command",
      "objective", "range");
  private static final Pattern TYPE = Pattern.compile("<([^>]*)>");
  /** A choice list: lower-case words and types separated by |. */
  private static final Pattern CHOICES = Pattern.compile("([a-z0-9]+(?:-[a-z0-9]+)*|@?<[a-z]+>)(\\|([a-z0-9]+(?:-[a-z0-9]+)*|@?<[a-z]+>))+");

  /** Every command, nested ones included, as the words that reach it ({@code [lab, demo]}). */
  private static List<List<String>> commands() {
    List<List<String>> all = new ArrayList<>();
    collect(Main.newCommandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())),
        new ArrayList<>(), all);
    return all;
  }

  private static void collect(CommandLine commandLine, List<String> path, List<List<String>> all) {
    all.add(List.copyOf(path));
    for (Map.Entry<String, CommandLine> sub : commandLine.getSubcommands().entrySet()) {
      List<String> next = new ArrayList<>(path);
      next.add(sub.getKey());
      collect(sub.getValue(), next, all);
    }
  }

  private static CommandLine commandLine(List<String> path) {
    CommandLine commandLine = Main.newCommandLine(new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()));
    for (String name : path) {
      commandLine = commandLine.getSubcommands().get(name);
    }
    return commandLine;
  }

  private static CliRunner run(List<String> path, String... more) {
    List<String> args = new ArrayList<>(path);
    args.addAll(List.of(more));
    return CliRunner.run(args.toArray(new String[0]));
  }

  @Test
  void everyCommandsHelpRendersWithoutPicocliWarnings() {
    // picocli runs each help text through String.format and, when that fails, warns "[picocli WARN] Could not
    // format" and shows the raw text: a lone '%' in "95% interval" is read as a conversion. The warning goes
    // to System.err as it is when picocli's tracer is asked for, not to the command's writer.
    java.io.PrintStream saved = System.err;
    java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(warnings, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      for (List<String> path : commands()) {
        CliRunner help = run(path, "--help");
        assertThat(help.exitCode).as(path.toString()).isZero();
        assertThat(warnings.toString(java.nio.charset.StandardCharsets.UTF_8)).as(path + " --help").isEmpty();
      }
    } finally {
      System.setErr(saved);
    }
  }

  @Test
  void everyCommandsHelpShowsTheOneExitCodeTable() {
    assertThat(commands()).hasSizeGreaterThan(10); // backoff, its commands, lab's, help
    for (List<String> path : commands()) {
      CliRunner help = run(path, "--help");
      assertThat(help.exitCode).as(path.toString()).isZero();
      assertThat(help.out).as(path.toString()).contains("\nExit codes:\n");
      String table = help.out.substring(help.out.indexOf("\nExit codes:\n"));
      for (String code : HelpTexts.EXIT_CODES.keySet()) {
        assertThat(table).as(path + " code " + code).containsPattern("(?m)^  " + Pattern.quote(code) + " +\\S");
      }
      // The table's words, not only its codes: the first sentence of each meaning, wrapped as picocli wraps.
      String flat = table.replaceAll("\\s+", " ");
      for (String meaning : HelpTexts.EXIT_CODES.values()) {
        assertThat(flat).as(path.toString()).contains(meaning.substring(0, meaning.indexOf(' ', 20)));
      }
    }
  }

  @Test
  void everyCommandAnswersVersion() {
    for (List<String> path : commands()) {
      CliRunner version = run(path, "--version");
      assertThat(version.exitCode).as(path.toString()).isZero();
      assertThat(version.out).as(path.toString()).startsWith("backoff ").contains("JVM: ");
    }
  }

  @Test
  void theTopLevelHelpListsTheEnvironmentVariablesTheLauncherAndProgressBarRead() throws Exception {
    CliRunner help = CliRunner.run("--help");
    assertThat(help.out).contains("\nEnvironment:\n");
    for (String variable : HelpTexts.ENVIRONMENT.keySet()) {
      assertThat(help.out).containsPattern("(?m)^  " + variable + " +\\S");
    }
    // The variables documented are the ones read: the launcher script and the progress bar.
    assertThat(HelpTexts.ENVIRONMENT.keySet()).containsExactly("BACKOFF_JAVA_OPTS", "BACKOFF_NO_PROGRESS");
    assertThat(Files.readString(Path.of("..", "backoff"))).contains("${BACKOFF_JAVA_OPTS:-}");
    assertThat(Files.readString(Path.of("src/main/java/dev/backoff/cli/Progress.java")))
        .contains("System.getenv(\"BACKOFF_NO_PROGRESS\") != null");
  }

  @Test
  void theReadmeShowsTheSameExitCodesAndEnvironment() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    for (Map.Entry<String, String> code : HelpTexts.EXIT_CODES.entrySet()) {
      assertThat(readme).contains("| " + code.getKey() + " | " + code.getValue() + " |\n");
    }
    for (Map.Entry<String, String> variable : HelpTexts.ENVIRONMENT.entrySet()) {
      assertThat(readme).contains("| `" + variable.getKey() + "` | " + variable.getValue() + " |\n");
    }
  }

  @Test
  void everyOptionAndParameterHasADescriptionAndATypedPlaceholder() {
    int checked = 0;
    for (List<String> path : commands()) {
      CommandSpec spec = commandLine(path).getCommandSpec();
      List<ArgSpec> args = new ArrayList<>(spec.options());
      args.addAll(spec.positionalParameters());
      for (ArgSpec arg : args) {
        String name = path + " " + (arg.isOption() ? ((CommandLine.Model.OptionSpec) arg).longestName()
            : arg.paramLabel());
        String description = String.join(" ", arg.description()).strip();
        assertThat(description).as(name).isNotBlank().doesNotStartWith("Default");
        if (arg.arity().max() == 0) {
          continue; // a switch: no value, no placeholder
        }
        String label = arg.paramLabel();
        assertThat(label).as(name).isEqualTo(label.toLowerCase(java.util.Locale.ROOT));
        String bare = label.replaceAll("\\[,<[a-z]+>\\.\\.\\.]$", ""); // "<spec>[,<spec>...]": a list of one type
        assertThat(TYPE.matcher(bare).matches() || CHOICES.matcher(bare).matches())
            .as(name + ": placeholder '" + label + "' is a type (<duration>) or choices (a|b)").isTrue();
        Matcher types = TYPE.matcher(label);
        while (types.find()) {
          assertThat(TYPES).as(name + ": '" + label + "' names a type").contains(types.group(1));
        }
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(80); // the scenario keys alone are more than 30 per command that has them
  }

  @Test
  void theCommandListShowsOneWholeSentencePerCommand() {
    for (List<String> path : commands()) {
      if (path.isEmpty()) {
        continue;
      }
      String summary = commandLine(path).getCommandSpec().usageMessage().description()[0];
      assertThat(summary).as(path.toString()).matches("[A-Z].*[.)]").endsWith(".");
      assertThat(summary.chars().filter(c -> c == '(').count()).as(path.toString())
          .isEqualTo(summary.chars().filter(c -> c == ')').count());
    }
  }

  @Test
  void theCommandListShowsTheFirstLineOfEachDescription() {
    // The list takes a command's header if it has one; none has, so it shows the sentence checked above.
    for (List<String> path : commands()) {
      assertThat(commandLine(path).getCommandSpec().usageMessage().header()).as(path.toString()).isEmpty();
    }
    String list = CliRunner.run("--help").out.replaceAll("\\s+", " ");
    for (String name : List.of("schedule", "tune", "http", "contention")) {
      String summary = commandLine(List.of(name)).getCommandSpec().usageMessage().description()[0];
      assertThat(list).contains(" " + name + " " + summary + " ");
    }
  }

  @Test
  void helpCommandShowsACommandsHelp() {
    for (List<String> path : commands()) {
      if (path.isEmpty() || path.get(0).equals("help")) {
        continue;
      }
      List<String> help = new ArrayList<>(List.of("help"));
      help.addAll(path);
      CliRunner viaHelp = CliRunner.run(help.toArray(new String[0]));
      assertThat(viaHelp.exitCode).as(path.toString()).isZero();
      assertThat(viaHelp.out).as(path.toString()).isEqualTo(run(path, "--help").out);
    }
    assertThat(CliRunner.run("help").out).isEqualTo(CliRunner.run("--help").out);
    assertThat(CliRunner.run("help", "--help").out).startsWith("Usage: backoff help [-hV] [--verbose] [<command>...]");
  }

  @Test
  void helpForAnUnknownCommandSuggestsTheClosest() {
    CliRunner result = CliRunner.run("help", "schedul");
    assertOneLineAndHint(result, "backoff: no command 'schedul' in 'backoff'; did you mean 'schedule'?");
    assertOneLineAndHint(CliRunner.run("help", "lab", "dem"), "did you mean 'demo'?");
    assertOneLineAndHint(CliRunner.run("help", "zzz"), "commands: strategies, schedule, tune, run, http,");
  }

  @Test
  void aMisspelledCommandOrOptionSuggestsTheClosest() {
    assertOneLineAndHint(CliRunner.run("schedul"), "backoff: unknown command 'schedul' for 'backoff'; did you mean 'schedule'?");
    assertOneLineAndHint(CliRunner.run("simluate"), "did you mean 'simulate'?");
    assertOneLineAndHint(CliRunner.run("lab", "sever"), "unknown command 'sever' for 'backoff lab'; did you mean 'server'?");
    assertOneLineAndHint(CliRunner.run("schedule", "--stratgy", "fixed"),
        "backoff: unknown option '--stratgy' for 'backoff schedule'; did you mean '--strategy'?");
    assertOneLineAndHint(CliRunner.run("simulate", "--clinets=5"), "unknown option '--clinets'; did you mean '--clients'?"
        .replace("'; did", "' for 'backoff simulate'; did"));
    assertOneLineAndHint(CliRunner.run("http", "--max-atempts", "3", "http://127.0.0.1:1/"), "did you mean '--max-attempts'?");
    // Nothing close: no guess, and the hint still points at the help.
    CliRunner far = CliRunner.run("schedule", "--zzzzzz");
    assertOneLineAndHint(far, "unknown option '--zzzzzz' for 'backoff schedule'");
    assertThat(far.err).doesNotContain("did you mean");
    assertOneLineAndHint(CliRunner.run("schedule", "extra"), "unexpected argument 'extra': 'backoff schedule' takes options only");
  }

  @Test
  void suggestionsAreTheClosestNameWithinAFewTypingMistakes() {
    List<String> names = List.of("schedule", "simulate", "strategies", "tune", "run");
    assertThat(dev.backoff.spec.Suggestions.closest("schedul", names)).isEqualTo("schedule");
    assertThat(dev.backoff.spec.Suggestions.closest("shcedule", names)).isEqualTo("schedule"); // a swap is one mistake
    assertThat(dev.backoff.spec.Suggestions.closest("strat", names)).isEqualTo("strategies"); // a prefix
    assertThat(dev.backoff.spec.Suggestions.closest("tunr", names)).isEqualTo("tune");
    assertThat(dev.backoff.spec.Suggestions.closest("SCHEDULE", names)).isEqualTo("schedule");
    assertThat(dev.backoff.spec.Suggestions.closest("--Strategy", List.of("--seed", "--strategy"))).isEqualTo("--strategy");
    assertThat(dev.backoff.spec.Suggestions.closest("xyz", names)).isNull();
    assertThat(dev.backoff.spec.Suggestions.closest("ru", names)).isNull(); // too short to guess
  }

  @Test
  void scheduleWithoutStrategyUsesTheDocumentedDefault() {
    CliRunner help = CliRunner.run("schedule", "--help");
    assertThat(help.out.replaceAll("\\s+", " ")).contains("Default: " + StrategyOptions.DEFAULT_STRATEGY + ".");
    CliRunner implicit = CliRunner.run("schedule", "--retries", "4");
    CliRunner explicit = CliRunner.run("schedule", "--retries", "4", "--strategy", StrategyOptions.DEFAULT_STRATEGY);
    assertThat(implicit.exitCode).as(implicit.err).isZero();
    assertThat(implicit.out).isNotEmpty().isEqualTo(explicit.out);
    assertThat(implicit.err).isEqualTo(explicit.err).contains("full-jitter: exponential(100ms");
  }

  static void assertOneLineAndHint(CliRunner result, String message) {
    assertThat(result.exitCode).as(result.err).isEqualTo(2);
    assertThat(result.err.lines()).as(result.err).hasSize(2);
    assertThat(result.err.lines().findFirst().orElseThrow()).contains(message);
    assertThat(result.err.lines().skip(1).findFirst().orElseThrow()).contains("--help");
    assertThat(result.err).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(result.out).isEmpty();
  }
}
