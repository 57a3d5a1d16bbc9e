package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** docs/simulator.md shows exactly what {@code ./backoff simulate --tipping-point} prints. */
class TippingPointDocsTest {
  @Test
  @Tag("slow")
  void theDocsShowTheDefaultScansWholeOutput() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "simulator.md"));
    CliRunner scan = CliRunner.run("simulate", "--tipping-point");
    assertThat(scan.exitCode).as(scan.err).isZero();
    String intro = "`./backoff simulate --tipping-point`:\n\n```\n";
    assertThat(docs).contains(intro);
    int start = docs.indexOf(intro) + intro.length();
    assertThat(docs.substring(start, docs.indexOf("```\n", start))).isEqualTo(scan.out);
  }
}
