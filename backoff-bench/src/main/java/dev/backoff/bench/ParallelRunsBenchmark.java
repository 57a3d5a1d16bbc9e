package dev.backoff.bench;

import dev.backoff.sim.Runs;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.Summary;
import dev.backoff.sim.Sweep;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The parallel runner's speed-up: the 200 runs of {@code backoff sweep pause=5s..50s:5s} (the default
 * scenario's four policies, ten pause lengths, five seeds each) on 1 thread and on 2 (this machine's cores),
 * one sweep per operation, warmed up. The runs share nothing, so on an idle machine the 2-thread time should
 * be about half; the ratio of the two scores is the speed-up.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 4)
@Fork(1)
@State(Scope.Benchmark)
public class ParallelRunsBenchmark {
  @Param({"1", "2"})
  public int threads;

  List<Runs.Task> tasks;

  @Setup
  public void plan() {
    tasks = tasks();
  }

  /** The sweep's 200 tasks, in its order. */
  static List<Runs.Task> tasks() {
    Scenario scenario = Scenario.defaults();
    List<Runs.Task> tasks = new ArrayList<>();
    for (String length : Sweep.Parameter.parse("pause=5s..50s:5s").values()) {
      Scenario point = scenario.with("faults", List.of("pause@60s+" + length));
      for (String policy : scenario.policyNames()) {
        for (int seed = 0; seed < 5; seed++) {
          tasks.add(Runs.task(point, policy, 3 + seed));
        }
      }
    }
    return tasks;
  }

  @Benchmark
  public List<Summary> sweep200Runs() throws InterruptedException {
    return Runs.summaries(tasks, threads, null);
  }
}
