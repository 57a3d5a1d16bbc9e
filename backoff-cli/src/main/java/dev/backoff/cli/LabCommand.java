package dev.backoff.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code backoff lab}: the retry-storm experiment over real loopback sockets. */
@Command(name = "lab", mixinStandardHelpOptions = true, synopsisSubcommandLabel = "<command>",
    description = {"Run the retry-storm experiment over real sockets on this machine (127.0.0.1 only).",
        "A server with the retry-storm experiment's latency knee, a fleet of clients retrying with backoff-http, and a demo that "
            + "pauses the server and reports whether it recovers, next to the simulator's prediction, and a calibration "
            + "of the simulator against the lab over many seeds."},
    subcommands = {LabServerCommand.class, LabClientCommand.class, LabDemoCommand.class,
        LabCalibrateCommand.class})
final class LabCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "a lab command is required: server, client, demo or calibrate");
  }

  /**
   * Call before the first lab server starts. On JDK 24+ the JVM prints a four-line warning the first time
   * Netty (the lab server's HTTP) calls {@code sun.misc.Unsafe}'s memory methods (JEP 498); the lab needs
   * none of that speed, so this command, which owns its JVM, tells Netty to do without, unless the user set
   * {@code io.netty.noUnsafe} themselves.
   */
  static void withoutUnsafeOnNewerJdks() {
    if (Runtime.version().feature() >= 24 && System.getProperty("io.netty.noUnsafe") == null) {
      System.setProperty("io.netty.noUnsafe", "true");
    }
  }
}
