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
 * output is byte-identical on both. When the model or the JSON's shape changes on purpose, update the digests
 * (and say so in the commit; for a change of shape only, check that every number is unchanged).
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
        .isEqualTo("fab1b7319881f22753b2ea4bc68bdcbf5483df2afac0b64a3b7096537122c23f");
  }

  @Test
  void openLoopPoolServerWithCapacityAndLatencyFaults() throws Exception {
    Scenario scenario = Scenario.of(Map.of("client", "open", "rate", 50, "server", "pool", "workers", 4,
        "service-time", "50ms", "service-distribution", "exponential", "duration", "60s",
        "faults", "capacity@20s+10s:0.5,latency@40s+5s:100ms", "policies", "fixed"));
    assertThat(sha256(Output.json(Simulator.run(scenario))))
        .isEqualTo("3352227fb47e1dfca3cb4ade45f19f1ab770072ea0d3e7f46cfc7602e9b6a48a");
  }
}
