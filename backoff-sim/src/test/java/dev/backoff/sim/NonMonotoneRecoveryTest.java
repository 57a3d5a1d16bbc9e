package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Why a 10 s pause sinks full jitter in the default experiment while a 30 s one does not: docs/simulator.md
 * shows, per pause length over 20 seeds, how many runs came back and the attempts the clients sent in the
 * last second of the pause (the arrival rate the released backlog meets). This test computes that table and
 * checks the documented block is exactly it.
 */
class NonMonotoneRecoveryTest {
  static final String POLICY = "storm-exponential-full-jitter";
  static final int SEEDS = 20;

  /** The table as docs/simulator.md shows it. */
  static String table() {
    StringBuilder out = new StringBuilder("pause  came back  attempts/s (mean attempts in the pause's last second)\n");
    for (int pause = 2; pause <= 40; pause += 2) {
      int cameBack = 0;
      long attempts = 0;
      for (int seed = 3; seed < 3 + SEEDS; seed++) {
        Scenario scenario = Scenario.defaults().with(Map.of("policies", List.of(POLICY), "seed", seed,
            "faults", List.of("pause@60s+" + pause + "s")));
        PolicyResult result = Simulator.run(scenario).policies().get(0);
        cameBack += TippingPoints.cameBack(result.summary().verdict()) ? 1 : 0;
        attempts += result.series().get(60 + pause - 1).attempts();
      }
      out.append(String.format(Locale.ROOT, "%4d s  %9s  %8.1f%n", pause, cameBack + "/" + SEEDS,
          attempts / (double) SEEDS));
    }
    return out.toString();
  }

  @Test
  @Tag("slow")
  void theDocumentedTableIsWhatTheSimulatorGives() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "simulator.md"));
    String intro = "<!-- NonMonotoneRecoveryTest -->\n```\n";
    assertThat(docs).contains(intro);
    int start = docs.indexOf(intro) + intro.length();
    assertThat(docs.substring(start, docs.indexOf("```\n", start))).isEqualTo(table());
  }
}
