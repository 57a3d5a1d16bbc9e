package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.sim.Runs;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.Sweep;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParallelRunsSetupTest {
  @Test
  void theBenchmarkRunsTheSweepsTwoHundredTasksAndEveryThreadCountComputesTheSame() throws Exception {
    List<Runs.Task> tasks = ParallelRunsBenchmark.tasks();
    assertThat(tasks).hasSize(200);
    assertThat(Sweep.runs(Scenario.defaults(), List.of(Sweep.Parameter.parse("pause=5s..50s:5s")), 5)).isEqualTo(200);
    assertThat(tasks.get(199).runScenario().value("faults")).isEqualTo("pause@60s+50s");
    List<Runs.Task> some = List.of(tasks.get(0), tasks.get(7), tasks.get(25), tasks.get(199));
    assertThat(Runs.summaries(some, 2, null)).isEqualTo(Runs.summaries(some, 1, null));
  }
}
