package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.sim.Output;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.Simulator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's simulator table is what {@code ./backoff simulate} prints, names and numbers. */
class ReadmeTableTest {
  @Test
  void theReadmeShowsTheDefaultSimulationsSummary() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    String table = Output.summaryTable(Simulator.run(Scenario.defaults()));
    assertThat(readme).contains("```\n" + table + "```\n");
  }
}
