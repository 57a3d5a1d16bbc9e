package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.testing.ForkedJvm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class MemoryEstimateTest {

  @Test
  void theStormsInFlightRequestsAreEstimatedFromAboveButCloseToWhatTheRunHolds() {
    Scenario s = Scenario.defaults().with("policies", List.of("storm-fixed"));
    long[] estimate = MemoryEstimate.estimate(s, s.policies.get(0));
    // The run holds 147911 abandoned requests at its peak (the documented summary).
    int peak = Simulator.run(s).policies().get(0).summary().peakConcurrency();
    assertThat(peak).isEqualTo(147_911);
    assertThat(estimate[1]).isBetween((long) peak, 2L * peak);
  }

  /**
   * The estimate is honest for the layout the run really has: a 5 000-client fixed storm (~800 000 abandoned
   * requests at the end) runs in a JVM given only the heap the check asks for (serial GC, so the heap is
   * what -Xmx says), and the most it retains is below the estimate but not far below it.
   */
  @Test
  @Tag("slow")
  void aStormRunsInTheHeapTheEstimateAsksForAndRetainsLessThanEstimated() throws Exception {
    int clients = 5_000;
    Scenario s = StormMemoryMain.scenario(clients);
    long estimate = MemoryEstimate.estimate(s, s.policies.get(0))[0]
        + (long) s.seconds() * MemoryEstimate.BYTES_PER_SECOND;
    // What the check needs, plus room for the JVM's own objects (a few MiB of classes' heap side).
    long heapMiB = (long) Math.ceil(estimate / MemoryEstimate.USABLE_HEAP / (1 << 20)) + 8;
    ForkedJvm.Result result = ForkedJvm.run(StormMemoryMain.class, List.of("-XX:+UseSerialGC", "-Xmx" + heapMiB + "m"),
        Duration.ofMinutes(5), String.valueOf(clients));
    assertThat(result.exitCode()).as(result.output()).isZero();
    Matcher m = Pattern.compile("retained (\\d+) estimate (\\d+) held (\\d+) estimated-held (\\d+)").matcher(result.output());
    assertThat(m.find()).as(result.output()).isTrue();
    long retained = Long.parseLong(m.group(1));
    long estimated = Long.parseLong(m.group(2));
    long held = Long.parseLong(m.group(3));
    assertThat(held).as("a storm: the server holds the abandoned requests").isGreaterThan(100L * clients);
    assertThat(retained).as(result.output()).isLessThanOrEqualTo(estimated).isGreaterThan(estimated / 2);
    // The abandoned requests themselves: within the 16 bytes each the estimate counts (12 measured).
    assertThat((double) retained / held).as(result.output()).isLessThan(MemoryEstimate.BYTES_PER_HELD_REQUEST
        + (MemoryEstimate.LATENCY_TABLE_BYTES + MemoryEstimate.BYTES_PER_CLIENT * clients) / (double) held);
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
    long clients = Math.min(Integer.MAX_VALUE, 2 * heap / (150 * MemoryEstimate.BYTES_PER_HELD_REQUEST));
    Scenario closed = Scenario.of(Map.of("clients", clients, "policies", "fixed"));
    assertThatThrownBy(() -> Simulator.run(closed)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("clients: " + clients + " clients over 400s may need about ")
        .hasMessageContaining("policy fixed: up to ")
        .hasMessageContaining("BACKOFF_JAVA_OPTS=-Xmx");
    assertThatThrownBy(() -> TippingPoints.scan(closed, 1, 5, 1, 1, null)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("clients: ");
    Scenario open = Scenario.of(Map.of("client", "open", "rate", 9_999_999));
    assertThatThrownBy(() -> Simulator.run(open)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("rate: an arrival rate of 9999999/s over 400s may need about ");
  }

  @Test
  void theEstimateItselfStaysCheapForDegenerateTimeouts() {
    // 1 ns timeouts over 100 days would be 8.6e15 replayed attempts: the replay extrapolates instead.
    Scenario s = Scenario.of(Map.of("clients", 1, "timeout", "1ns", "duration", "8640000s", "faults", "none",
        "policies", "fixed:0s", "max-attempts", "unlimited"));
    long[] estimate = MemoryEstimate.estimate(s, s.policies.get(0));
    assertThat(estimate[1]).isGreaterThan(1_000_000_000L);
  }
}
