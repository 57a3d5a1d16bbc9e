package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryEstimateTest {

  @Test
  void theStormsInFlightRequestsAreEstimatedFromAboveButCloseToWhatTheRunHolds() {
    Scenario s = Scenario.defaults().with("policies", List.of("fixed"));
    long[] estimate = MemoryEstimate.estimate(s, s.policies.get(0));
    // The run holds 147911 abandoned requests at its peak (the documented summary).
    int peak = Simulator.run(s).policies().get(0).summary().peakConcurrency();
    assertThat(peak).isEqualTo(147_911);
    assertThat(estimate[1]).isBetween((long) peak, 2L * peak);
  }

  @Test
  void backoffKeepsTheEstimateSmallAndAPoolBoundsIt() {
    Scenario s = Scenario.defaults();
    long fixed = MemoryEstimate.estimate(s, s.policies.get(0))[1];
    long exponential = MemoryEstimate.estimate(s, s.policies.get(1))[1];
    assertThat(exponential).isLessThan(fixed / 10);
    Scenario pool = Scenario.of(Map.of("server", "pool", "workers", 10, "queue-size", 100, "policies", "fixed"));
    assertThat(MemoryEstimate.estimate(pool, pool.policies.get(0))[1]).isEqualTo(10 + 100 + 512);
  }

  @Test
  void openLoopArrivalsFollowTheRateProfile() {
    for (String shape : List.of("constant", "step", "spike", "ramp")) {
      Scenario s = Scenario.of(Map.of("client", "open", "rate", 50, "rate-peak", 250, "rate-profile", shape,
          "rate-at", "60s", "rate-length", "30s", "duration", "200s"));
      for (long seconds : new long[] {0, 30, 60, 75, 90, 150, 200}) {
        double sum = 0;
        long steps = seconds * 1000;
        for (long i = 0; i < steps; i++) {
          sum += s.rateProfile.rateAt(i * 1_000_000L + 500_000L) / 1000.0; // midpoint rule, 1 ms steps
        }
        assertThat(MemoryEstimate.arrivals(s.rateProfile, seconds * 1_000_000_000L)).as(shape + " " + seconds)
            .isCloseTo(sum, org.assertj.core.data.Offset.offset(0.01));
      }
    }
  }

  @Test
  void runsThatCannotFitAreRefusedUpFrontWithTheHeapNeeded() {
    long heap = Runtime.getRuntime().maxMemory();
    // A fixed storm holds ~150 requests per client: enough clients to need twice this JVM's heap.
    long clients = Math.min(Integer.MAX_VALUE, 2 * heap / (150 * MemoryEstimate.BYTES_PER_ATTEMPT));
    Scenario closed = Scenario.of(Map.of("clients", clients, "policies", "fixed"));
    assertThatThrownBy(() -> Simulator.run(closed)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("clients: " + clients + " clients over 400s may need about ")
        .hasMessageContaining("policy fixed: up to ")
        .hasMessageContaining("BACKOFF_JAVA_OPTS=-Xmx");
    assertThatThrownBy(() -> Simulator.tippingPoints(closed, 2)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("clients: ");
    Scenario open = Scenario.of(Map.of("client", "open", "rate", 9_999_999));
    assertThatThrownBy(() -> Simulator.run(open)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("rate: an arrival rate of 9999999/s over 400s may need about ");
  }

  @Test
  void theEstimateItselfStaysCheapForDegenerateTimeouts() {
    // 1 ns timeouts over 100 days would be 8.6e15 replayed attempts: the replay extrapolates instead.
    Scenario s = Scenario.of(Map.of("clients", 1, "timeout", "1ns", "duration", "8640000s", "faults", "none",
        "policies", "fixed:0s"));
    long[] estimate = MemoryEstimate.estimate(s, s.policies.get(0));
    assertThat(estimate[1]).isGreaterThan(1_000_000_000L);
  }
}
