package dev.backoff.cli;

import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Model.CommandSpec;

/**
 * A progress bar on stderr, shown only when the command runs interactively (a terminal is attached and
 * stderr is the process's own); otherwise every call does nothing, so piped and captured output stays clean.
 */
final class Progress implements AutoCloseable {
  private final ProgressBar bar;

  private Progress(ProgressBar bar) {
    this.bar = bar;
  }

  /** A bar counting simulated seconds. */
  static Progress start(CommandSpec spec, String task, long total) {
    return start(spec, task, total, " s");
  }

  /** A bar counting {@code total} steps of {@code unit} (" s", "%"). */
  static Progress start(CommandSpec spec, String task, long total, String unit) {
    if (!isInteractive(spec)) {
      return new Progress(null);
    }
    return new Progress(new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
        .setStyle(ProgressBarStyle.ASCII).setConsumer(new ConsoleProgressBarConsumer(System.err))
        .setUnit(unit, 1).showSpeed().build());
  }

  private static boolean isInteractive(CommandSpec spec) {
    if (System.getenv("BACKOFF_NO_PROGRESS") != null) {
      return false;
    }
    java.io.Console console = System.console();
    if (console == null) {
      return false; // JDK 17: no console unless stdin and stdout are terminals
    }
    try {
      // JDK 22+ returns a console even when redirected; ask it whether it is a terminal.
      Object terminal = java.io.Console.class.getMethod("isTerminal").invoke(console);
      return Boolean.TRUE.equals(terminal) && System.getenv("TERM") != null;
    } catch (ReflectiveOperationException e) {
      return System.getenv("TERM") != null;
    }
  }

  void stepTo(long completed) {
    if (bar != null) {
      bar.stepTo(completed);
    }
  }

  @Override
  public void close() {
    if (bar != null) {
      bar.close();
    }
  }
}
