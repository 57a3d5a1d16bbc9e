package dev.backoff.sim;

/**
 * A JMH-free measurement of the engine's speed: runs a scenario a few times and prints events per second
 * of wall time. {@code java -cp ... dev.backoff.sim.SimulatorBenchmark [clients] [repetitions]}. Not a
 * test: timing never belongs in unit tests.
 */
public final class SimulatorBenchmark {
  private SimulatorBenchmark() {}

  /** Events processed and wall time of one measured run. */
  public record Measurement(long events, long nanos) {
    /** Events per second of wall time. */
    public double eventsPerSecond() {
      return events * 1e9 / nanos;
    }
  }

  /** Runs the scenario once and measures it (wall time from {@link System#nanoTime()}). */
  public static Measurement measure(Scenario scenario) {
    long start = System.nanoTime();
    SimulationResult result = Simulator.run(scenario);
    return new Measurement(result.events(), System.nanoTime() - start);
  }

  public static void main(String[] args) {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Scenario scenario = Scenario.defaults().with("clients", clients);
    for (int i = 0; i < repetitions; i++) {
      Measurement m = measure(scenario);
      System.out.printf(java.util.Locale.ROOT, "run %d: %,d events in %.2f s = %,.0f events/s%n", i + 1, m.events(),
          m.nanos() / 1e9, m.eventsPerSecond());
    }
  }
}
