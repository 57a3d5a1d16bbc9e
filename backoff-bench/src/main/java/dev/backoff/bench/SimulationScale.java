package dev.backoff.bench;

import dev.backoff.sim.PolicyResult;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.SimulationResult;
import dev.backoff.sim.Simulator;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the default scenario with many closed-loop clients outside JMH (one run is far longer than a JMH
 * iteration) and reports, for the whole run: simulated events, wall time, the running thread's CPU time,
 * events per second of each, and the peak heap used (the sum of the heap pools' peak usage, reset before the
 * run; it includes garbage not yet collected, so it is an upper bound of what the run needs). Per policy it
 * reports the events. The machine's load average before and after is printed because the figures are only
 * comparable on a quiet machine; the CPU time is the steadier figure on a shared one.
 *
 * <p>Usage: {@code java [-Xmx...] -cp benchmarks.jar dev.backoff.bench.SimulationScale [clients] [policy,...]}
 * (defaults: 1 000 000 clients, the scenario's four policies). A run the heap cannot hold is refused up front
 * by the simulator, with the heap it would need.
 */
public final class SimulationScale {
  static final int DEFAULT_CLIENTS = 1_000_000;

  private SimulationScale() {}

  /** What one run measured. */
  record Measurement(long events, long wallNanos, long cpuNanos, long peakHeapBytes, SimulationResult result) {
    double eventsPerWallSecond() {
      return events / (wallNanos / 1e9);
    }

    double eventsPerCpuSecond() {
      return events / (cpuNanos / 1e9);
    }
  }

  public static void main(String[] args) throws IOException {
    if (args.length > 0 && args[0].equals("--help")) {
      System.out.println("usage: SimulationScale [clients] [policy,...]");
      return;
    }
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_CLIENTS;
    Scenario scenario = Scenario.defaults().with(Map.of("clients", clients));
    if (args.length > 1) {
      scenario = scenario.with("policies", List.of(args[1].split(",")));
    }
    System.out.printf(Locale.ROOT, "%nSimulator at scale: %d closed-loop clients, max heap %d MiB, load average %s%n",
        clients, Runtime.getRuntime().maxMemory() >> 20, loadAverage());
    Measurement m = measure(scenario);
    for (PolicyResult policy : m.result().policies()) {
      System.out.printf(Locale.ROOT, "  %-40s %,15d events%n", policy.name(), policy.events());
    }
    System.out.printf(Locale.ROOT, "events %,d  wall %.1f s (%.2f M events/s)  cpu %.1f s (%.2f M events/s)  "
            + "peak heap %,d MiB  load average after %s%n", m.events(), m.wallNanos() / 1e9,
        m.eventsPerWallSecond() / 1e6, m.cpuNanos() / 1e9, m.eventsPerCpuSecond() / 1e6, m.peakHeapBytes() >> 20,
        loadAverage());
  }

  /** Runs the scenario once on this thread. */
  static Measurement measure(Scenario scenario) {
    List<MemoryPoolMXBean> heapPools = new ArrayList<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool);
      }
    }
    System.gc();
    heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuStart = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    SimulationResult result = Simulator.run(scenario);
    long wall = System.nanoTime() - start;
    long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
    long peak = 0;
    for (MemoryPoolMXBean pool : heapPools) {
      peak += pool.getPeakUsage().getUsed();
    }
    return new Measurement(result.events(), wall, cpu, peak, result);
  }

  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
