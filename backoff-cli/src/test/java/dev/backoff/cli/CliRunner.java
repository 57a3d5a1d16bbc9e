package dev.backoff.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the command line in-process and captures its exit code, stdout and stderr. */
final class CliRunner {
  final int exitCode;
  final String out;
  final String err;

  private CliRunner(int exitCode, String out, String err) {
    this.exitCode = exitCode;
    this.out = out;
    this.err = err;
  }

  static CliRunner run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.newCommandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
    return new CliRunner(code, out.toString(), err.toString());
  }
}
