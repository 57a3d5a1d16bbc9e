package dev.backoff.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Thread CPU time per operation, for A/B comparisons on a shared machine where JMH's wall-clock figures are
 * not resolved: a thread that is descheduled accrues no CPU time, so other processes inflate the figures far
 * less (they still share caches and execution units). Runs each named operation in a plain loop for 20
 * rounds, alternating, and prints the minimum over the last 16 rounds, in nanoseconds per operation:
 *
 * <pre>{@code
 * java -cp backoff-bench/target/benchmarks.jar dev.backoff.bench.CpuTimeLoop retry backoff backoff-engine-only spring-retry
 * java -cp backoff-bench/target/benchmarks.jar dev.backoff.bench.CpuTimeLoop delay backoff-decorrelated-v2 backoff-fixed
 * }</pre>
 *
 * Operations as in {@link OperationLoop}: {@code retry LIBRARY...} ({@link Libraries}) or
 * {@code delay SOURCE...} ({@link DelaySources}). Compare builds by running the same command with each
 * build's jar, back to back, more than once. Not a substitute for JMH on a quiet machine: the loop is not
 * JMH's, and the JIT may shape it differently.
 */
public final class CpuTimeLoop {
  private static final int ROUNDS = 20;
  private static final int WARM_UP_ROUNDS = 4;

  private CpuTimeLoop() {}

  /**
   * Runs the loops and prints the figures.
   *
   * @param args {@code retry} or {@code delay}, then one or more names
   * @throws Exception if an operation throws
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || !("retry".equals(args[0]) || "delay".equals(args[0]))) {
      System.err.println("usage: CpuTimeLoop retry|delay NAME...");
      System.exit(2);
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    boolean retry = "retry".equals(args[0]);
    int count = args.length - 1;
    FailingTwice task = new FailingTwice();
    Invocation[] invocations = new Invocation[count];
    DelaySource[] sources = new DelaySource[count];
    for (int i = 0; i < count; i++) {
      if (retry) {
        invocations[i] = Libraries.wrap(args[i + 1], task);
      } else {
        sources[i] = DelaySources.create(args[i + 1]);
      }
    }
    double[] minimum = new double[count];
    java.util.Arrays.fill(minimum, Double.MAX_VALUE);
    long sink = 0;
    for (int round = 0; round < ROUNDS; round++) {
      for (int i = 0; i < count; i++) {
        // The slow peers get fewer operations per round, so that a round takes about as long for each.
        int operations = retry ? (args[i + 1].startsWith("backoff") ? 1_000_000 : 200_000) : 10_000_000;
        long start = threads.getCurrentThreadCpuTime();
        if (retry) {
          Invocation invocation = invocations[i];
          for (int k = 0; k < operations; k++) {
            task.reset();
            sink += invocation.invoke().length();
          }
        } else {
          DelaySource source = sources[i];
          for (int k = 0; k < operations; k++) {
            sink += source.nextDelayNanos();
          }
        }
        double nanosPerOperation = (threads.getCurrentThreadCpuTime() - start) / (double) operations;
        if (round >= WARM_UP_ROUNDS) {
          minimum[i] = Math.min(minimum[i], nanosPerOperation);
        }
      }
    }
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < count; i++) {
      line.append(String.format("%s %.1f ns  ", args[i + 1], minimum[i]));
    }
    System.out.println(line.toString().trim() + (sink == 42 ? " " : ""));
  }
}
