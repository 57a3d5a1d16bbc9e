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

  /**
   * The 20-seed scan beside it is 3000 runs, minutes long, and re-recorded by hand from its command; this
   * reduced one (one policy, 3 seeds, about 165 runs) is pinned whole.
   */
  @Test
  @Tag("slow")
  void theDocsShowTheReducedScanOverSeedsWholeOutput() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "simulator.md"));
    CliRunner scan = CliRunner.run("simulate", "--seeds", "3", "--tipping-point", "--policies",
        "storm-exponential-full-jitter");
    assertThat(scan.exitCode).as(scan.err).isZero();
    String marker = "storm-exponential-full-jitter` prints:\n\n```\n";
    assertThat(docs).contains("`./backoff simulate --seeds 3 --tipping-point --policies").contains(marker);
    int start = docs.indexOf(marker) + marker.length();
    assertThat(docs.substring(start, docs.indexOf("```\n", start))).isEqualTo(scan.out);
  }
}
