package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/simulator.md shows what {@code ./backoff simulate --scenario docs/scenarios/X.yaml} prints for each
 * storm-protection scenario: the summary table and the reason for each verdict, exactly (the goodput
 * picture that follows them is left out of the docs). Each run is a few seconds: tagged slow.
 */
@Tag("slow")
class SimulatorDocsTablesTest {
  @ParameterizedTest
  @ValueSource(strings = {"dependency-down", "throttling", "hedging-tail", "hedging-overload", "concurrency-steady",
      "concurrency-halving", "concurrency-storm"})
  void theDocsShowTheScenariosTableAndReasons(String scenario) throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "simulator.md"));
    String command = "$ ./backoff simulate --scenario docs/scenarios/" + scenario + ".yaml\n";
    assertThat(docs).contains(command);
    int start = docs.indexOf(command) + command.length();
    String block = docs.substring(start, docs.indexOf("```\n", start));
    CliRunner simulate = CliRunner.run("simulate", "--scenario",
        Path.of("..", "docs", "scenarios", scenario + ".yaml").toString());
    assertThat(simulate.exitCode).as(simulate.err).isZero();
    String table = simulate.out.substring(0, simulate.out.indexOf("\n\ngoodput over time") + 1);
    assertThat(block).isEqualTo(table);
  }
}
