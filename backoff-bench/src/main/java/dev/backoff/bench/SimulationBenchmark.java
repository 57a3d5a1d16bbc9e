package dev.backoff.bench;

import dev.backoff.sim.Scenario;
import dev.backoff.sim.SimulationResult;
import dev.backoff.sim.Simulator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The retry-storm simulator's default scenario (the retry-storm experiment: 4 policies × 400 s of virtual
 * time) with {@code clients} closed-loop clients: 1000 (the default scenario, about 690 000 events) or
 * 100 000 (about 47.7 million events, most of them the fixed policy's storm, which leaves ~15 million
 * abandoned requests in the server). The primary score is runs per second (its inverse is the wall time of
 * one run); the {@code events} counter is simulated events per second of wall time. There is no peer to
 * compare with. A million clients is measured outside JMH by {@link SimulationScale}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class SimulationBenchmark {
  /** Closed-loop clients. */
  @Param({"1000", "100000"})
  public int clients;

  Scenario scenario;

  @Setup(Level.Trial)
  public void scenario() {
    scenario = Scenario.defaults().with(Map.of("clients", clients));
  }

  /** Events simulated, normalised by JMH to events per second. */
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Events {
    public long events;

    @Setup(Level.Iteration)
    public void clear() {
      events = 0;
    }
  }

  @Benchmark
  public SimulationResult defaultScenario(Events counter) {
    SimulationResult result = Simulator.run(scenario);
    counter.events += result.events();
    return result;
  }
}
