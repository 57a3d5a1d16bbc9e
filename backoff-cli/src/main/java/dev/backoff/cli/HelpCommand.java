package dev.backoff.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.IHelpCommandInitializable2;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;

/**
 * {@code backoff help [COMMAND...]}: the same text as {@code backoff COMMAND --help}, on stdout, exit 0;
 * {@code backoff help lab demo} reaches a nested command. An unknown name is a usage error (exit 2) that
 * suggests the closest command. Not thread-safe (picocli fills it).
 */
@Command(name = "help", helpCommand = true, mixinStandardHelpOptions = true,
    versionProvider = BackoffCommand.Version.class,
    description = "Show the help of a command, the same as its --help: backoff help schedule.")
final class HelpCommand implements IHelpCommandInitializable2, Runnable {
  @Parameters(paramLabel = "<command>", arity = "0..*",
      description = "The command, and for lab its subcommand (lab demo). Default: the list of commands.")
  List<String> names;

  private CommandLine self;
  private PrintWriter out;
  private ColorScheme colors;

  @Override
  public void init(CommandLine helpCommandLine, ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
    this.self = helpCommandLine;
    this.colors = colorScheme;
    this.out = out;
  }

  @Override
  public void run() {
    CommandLine parent = self.getParent();
    CommandLine target = parent;
    if (names != null) {
      for (String name : names) {
        CommandLine sub = target.getSubcommands().get(name);
        if (sub == null || sub == self) {
          List<String> known = target.getSubcommands().keySet().stream().filter(n -> !n.equals("help")).toList();
          String closest = dev.backoff.spec.Suggestions.closest(name, known);
          throw new ParameterException(target, "no command '" + name + "' in '"
              + target.getCommandSpec().qualifiedName() + "'"
              + (closest == null ? "; commands: " + String.join(", ", known) : "; did you mean '" + closest + "'?"));
        }
        target = sub;
      }
    }
    target.usage(out, colors);
    out.flush();
  }
}
