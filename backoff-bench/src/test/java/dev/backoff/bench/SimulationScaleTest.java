package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.sim.Scenario;
import dev.backoff.sim.Simulator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scale measurement and the benchmark's scenarios run what they say they run (no timing asserted). */
class SimulationScaleTest {

  @Test
  void theMeasurementCountsTheRunsEventsAndItsResources() {
    Scenario scenario = Scenario.defaults().with(Map.of("clients", 300, "duration", "120s"));
    SimulationScale.Measurement m = SimulationScale.measure(scenario);
    assertThat(m.events()).isEqualTo(Simulator.run(scenario).events()).isPositive();
    assertThat(m.result().policies()).hasSize(4);
    assertThat(m.wallNanos()).isPositive();
    assertThat(m.cpuNanos()).isPositive();
    assertThat(m.peakHeapBytes()).isPositive();
  }

  @Test
  void theBenchmarkRunsTheDefaultScenarioWithItsClientCount() {
    SimulationBenchmark benchmark = new SimulationBenchmark();
    benchmark.clients = 1000;
    benchmark.scenario();
    assertThat(benchmark.scenario.clients()).isEqualTo(1000);
    SimulationBenchmark.Events counter = new SimulationBenchmark.Events();
    benchmark.defaultScenario(counter);
    assertThat(counter.events).isEqualTo(691_482);
    benchmark.clients = 100_000;
    benchmark.scenario();
    assertThat(benchmark.scenario.clients()).isEqualTo(100_000);
  }
}
