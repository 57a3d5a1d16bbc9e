package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.sim.Output;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.Simulator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README shows exactly what {@code ./backoff simulate} prints: the whole block, names, numbers and sparklines. */
class ReadmeTableTest {
  @Test
  void theReadmeShowsTheDefaultSimulationsWholeOutput() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    CliRunner simulate = CliRunner.run("simulate");
    assertThat(simulate.exitCode).as(simulate.err).isZero();
    assertThat(simulate.out).isEqualTo(Output.table(Simulator.run(Scenario.defaults())));
    String intro = "and prints exactly this:\n\n```\n";
    assertThat(readme).contains(intro);
    int start = readme.indexOf(intro) + intro.length();
    String block = readme.substring(start, readme.indexOf("```\n", start));
    assertThat(block).isEqualTo(simulate.out);
  }
}
