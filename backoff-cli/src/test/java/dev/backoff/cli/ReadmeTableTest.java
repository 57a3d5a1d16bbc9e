package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.sim.Output;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.Simulator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README and docs/simulator.md show exactly what {@code ./backoff simulate} prints: the whole block, names,
 * numbers, reasons and sparklines.
 */
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
    // docs/simulator.md shows the same output.
    String docs = Files.readString(Path.of("..", "docs", "simulator.md"));
    String docsIntro = "`^` under\nthe pause):\n\n```\n";
    assertThat(docs).contains(docsIntro);
    int docsStart = docs.indexOf(docsIntro) + docsIntro.length();
    assertThat(docs.substring(docsStart, docs.indexOf("```\n", docsStart))).isEqualTo(simulate.out);
  }
}
