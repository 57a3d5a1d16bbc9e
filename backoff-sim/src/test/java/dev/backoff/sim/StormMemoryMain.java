package dev.backoff.sim;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the fixed policy's storm with {@code args[0]} clients, step by step, and prints the most heap the run
 * retained (used after a full GC, minus the used heap before the run) beside the estimate, for
 * {@link MemoryEstimateTest} to run in a JVM given only the heap the estimate asks for. Refused runs exit 3.
 */
public final class StormMemoryMain {
  private StormMemoryMain() {}

  static Scenario scenario(int clients) {
    return Scenario.of(Map.of("clients", clients, "policies", "storm-fixed"));
  }

  public static void main(String[] args) {
    Scenario scenario = scenario(Integer.parseInt(args[0]));
    try {
      MemoryEstimate.check(scenario);
    } catch (ScenarioException e) {
      System.out.println("refused: " + e.getMessage());
      System.exit(3);
    }
    long[] estimate = MemoryEstimate.estimate(scenario, scenario.policies.get(0));
    long before = usedAfterGc();
    Simulation simulation = new Simulation(scenario, scenario.policies.get(0));
    simulation.start();
    long retained = 0;
    int held = 0;
    for (int second = 20; second <= scenario.seconds(); second += 20) {
      simulation.loop(second * 1_000_000_000L, null);
      long used = usedAfterGc() - before;
      if (used > retained) {
        retained = used;
        held = simulation.server.concurrency();
      }
    }
    System.out.printf(Locale.ROOT, "retained %d estimate %d held %d estimated-held %d events %d%n", retained,
        estimate[0], held, estimate[1], simulation.events());
  }

  private static long usedAfterGc() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (now >= used) {
        return now;
      }
      used = now;
    }
    return used;
  }
}
