package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.lab.LabDemo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docs/lab.md's {@code lab demo} blocks: the live columns vary from run to run and machine to machine, but the
 * simulator's column is deterministic, so each row's must be what the demo computes today for the same
 * command. A change to the simulator or the demo's scenario that moves it fails here until the block is
 * recorded again from a run.
 */
class LabDemoDocsTest {
  private static final Pattern COMMAND = Pattern.compile("^\\$ \\./backoff (lab demo.*)$");
  private static final Pattern ROW = Pattern.compile("^(\\S+)\\s{2,}.*\\s{3}(\\S.*)$");

  @Test
  void everyDemoBlocksSimulatorColumnIsWhatTheDemoComputes() throws Exception {
    assertThat(checkBlocks(Path.of("..", "docs", "lab.md"))).as("lab demo blocks in docs/lab.md").isPositive();
  }

  @Test
  void theReadmesDemoBlockToo() throws Exception {
    assertThat(checkBlocks(Path.of("..", "README.md"))).as("lab demo blocks in README.md").isEqualTo(1);
  }

  /** A duration written the old way, a space before its unit ({@code 1 s}, {@code 8 s after resuming}). */
  private static final Pattern SPACED_DURATION = Pattern.compile("\\d (s|ms|m|h)\\b");

  /**
   * The lab's output blocks (each starting with a {@code lab} command) write durations as every output does,
   * {@code 7s}: the live columns were recorded by a build that wrote {@code 1 s}, and were respelled.
   */
  @Test
  void outputBlocksWriteDurationsInTheOneFormat() throws Exception {
    for (Path file : List.of(Path.of("..", "docs", "lab.md"), Path.of("..", "README.md"))) {
      List<String> lines = Files.readAllLines(file);
      boolean output = false;
      int checked = 0;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.startsWith("```")) {
          output = false;
        } else if (line.startsWith("$ ./backoff lab ")) {
          output = true;
        } else if (output) {
          assertThat(SPACED_DURATION.matcher(line).find()).as("%s line %d: %s", file, i + 1, line).isFalse();
          checked++;
        }
      }
      assertThat(checked).as("output lines of lab blocks in %s", file).isPositive();
    }
    // What the old spelling looked like, so the pattern is known to catch it.
    assertThat(SPACED_DURATION.matcher("storm-exponential  yes, after 1 s         741").find()).isTrue();
    assertThat(SPACED_DURATION.matcher("storm-exponential  yes, after 1s          741").find()).isFalse();
  }

  /** Checks each block of the file that starts with a {@code lab demo} command; returns how many. */
  private static int checkBlocks(Path file) throws Exception {
    List<String> lines = Files.readAllLines(file);
    int blocks = 0;
    for (int i = 0; i < lines.size(); i++) {
      Matcher command = COMMAND.matcher(lines.get(i));
      if (!command.matches()) {
        continue;
      }
      blocks++;
      Map<String, LabDemoCommand.Prediction> predictions = predictions(command.group(1).split(" "));
      int header = i;
      while (!lines.get(header).startsWith("policy ")) {
        header++;
      }
      int rows = 0;
      for (int j = header + 1; j < lines.size() && !lines.get(j).startsWith("```"); j++) {
        Matcher row = ROW.matcher(lines.get(j));
        if (row.matches() && predictions.containsKey(row.group(1))) {
          assertThat(row.group(2).strip()).as("%s line %d: %s's simulator column", file, j + 1, row.group(1))
              .isEqualTo(LabDemoCommand.simulatedColumn(predictions.get(row.group(1))));
          rows++;
        }
      }
      assertThat(rows).as("policy rows of the block at line %d", i + 1).isEqualTo(predictions.size());
    }
    return blocks;
  }

  private static Map<String, LabDemoCommand.Prediction> predictions(String[] args) {
    CommandLine commandLine = Main.newCommandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    CommandLine.ParseResult parsed = commandLine.parseArgs(args);
    LabDemoCommand demo = parsed.subcommand().subcommand().commandSpec().commandLine().getCommand();
    LabDemo lab = demo.run.demo(demo.spec, new ArrayList<>(demo.policies));
    return LabDemoCommand.predict(lab, new PrintWriter(new StringWriter()));
  }
}
