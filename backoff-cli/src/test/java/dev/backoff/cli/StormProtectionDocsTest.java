package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * docs/simulator.md shows exactly the storm-protection block that {@code ./backoff simulate --seeds} prints for
 * the concurrency limiter's steady overload. The 20-seed blocks in docs/storm-protection.md and
 * docs/simulator.md are minutes long and re-recorded by hand from their commands; this 3-seed one is pinned.
 */
class StormProtectionDocsTest {
  private static final String COMMAND =
      "$ ./backoff simulate --scenario docs/scenarios/concurrency-steady.yaml --seeds 3 --seed 1\n";

  /** The text between {@code from} (excluded) and the first {@code to} after it. */
  private static String between(String text, String from, String to) {
    int start = text.indexOf(from);
    assertThat(start).as("'%s' in the text", from.strip()).isNotNegative();
    start += from.startsWith("$") ? from.length() : 0;
    return text.substring(start, text.indexOf(to, start));
  }

  @Test
  @Tag("slow")
  void theDocsShowTheSteadyOverloadsBlockOverThreeSeeds() throws Exception {
    CliRunner simulate = CliRunner.run("simulate", "--scenario",
        Path.of("..", "docs", "scenarios", "concurrency-steady.yaml").toString(), "--seeds", "3", "--seed", "1");
    assertThat(simulate.exitCode).as(simulate.err).isZero();
    assertThat(between(Files.readString(Path.of("..", "docs", "simulator.md")), COMMAND, "```\n"))
        .isEqualTo(between(simulate.out, "Storm protection", "\nverdicts:\n"));
  }
}
