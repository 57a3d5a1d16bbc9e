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
  @Test
  @Tag("slow")
  void theDocsShowTheSteadyOverloadsBlockOverThreeSeeds() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "simulator.md"));
    String command = "$ ./backoff simulate --scenario docs/scenarios/concurrency-steady.yaml --seeds 3 --seed 1\n";
    assertThat(docs).contains(command);
    int start = docs.indexOf(command) + command.length();
    String block = docs.substring(start, docs.indexOf("```\n", start));
    CliRunner simulate = CliRunner.run("simulate", "--scenario",
        Path.of("..", "docs", "scenarios", "concurrency-steady.yaml").toString(), "--seeds", "3", "--seed", "1");
    assertThat(simulate.exitCode).as(simulate.err).isZero();
    int from = simulate.out.indexOf("Storm protection");
    assertThat(from).isPositive();
    assertThat(block).isEqualTo(simulate.out.substring(from, simulate.out.indexOf("\nverdicts:\n", from)));
  }
}
