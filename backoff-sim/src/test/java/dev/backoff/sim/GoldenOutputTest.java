package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact bytes of two small runs (every model and fault, policies without random jitter so that only
 * the simulator's own code is pinned). CI runs the tests on JDK 17 and JDK 25, so this proves that the
 * output is byte-identical on both. When the model changes on purpose, update the digests (and say so in the
 * commit).
 */
class GoldenOutputTest {

  private static String sha256(String text) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void closedLoopKneeServerWithPauseAndCrash() throws Exception {
    Scenario scenario = Scenario.of(Map.of("clients", 200, "duration", "60s",
        "faults", "pause@20s+10s,crash@40s+2s", "policies", "fixed,none"));
    assertThat(sha256(Output.json(Simulator.run(scenario))))
        .isEqualTo("e390e96529df690733825506dcbac714557d7bfbe264035329db8f96d719c4cc");
  }

  @Test
  void openLoopPoolServerWithCapacityAndLatencyFaults() throws Exception {
    Scenario scenario = Scenario.of(Map.of("client", "open", "rate", 50, "server", "pool", "workers", 4,
        "service-time", "50ms", "service-distribution", "exponential", "duration", "60s",
        "faults", "capacity@20s+10s:0.5,latency@40s+5s:100ms", "policies", "fixed"));
    assertThat(sha256(Output.json(Simulator.run(scenario))))
        .isEqualTo("9254130d8733a57d1f287f28472074782abc79730be5492f5dbb07c0e61ea57b");
  }
}
