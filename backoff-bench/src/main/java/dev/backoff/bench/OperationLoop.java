package dev.backoff.bench;

import java.util.Locale;

/**
 * Runs one benchmark operation in a plain loop, for instruction counting under callgrind (which counts
 * reproducibly where wall-clock time on a shared machine does not). Run it twice with different counts;
 * the difference in instructions divided by the difference in counts is instructions per operation,
 * start-up and JIT compilation cancelling out:
 *
 * <pre>{@code
 * valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *     java -cp backoff-bench/target/benchmarks.jar dev.backoff.bench.OperationLoop retry backoff 1000000
 * }</pre>
 *
 * Operations: {@code success LIBRARY}, {@code retry LIBRARY}, {@code delay SOURCE} (the names of
 * {@link Libraries} and {@link DelaySources}). bench/instructions does this for a list of operations. The
 * counts are reliable to a few instructions per operation only: the JIT may shape the plain loop
 * differently from JMH's, which matters for operations of a handful of instructions.
 */
public final class OperationLoop {
  private OperationLoop() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: OperationLoop success|retry|delay NAME COUNT");
      System.exit(2);
    }
    String kind = args[0];
    String name = args[1];
    long count = Long.parseLong(args[2]);
    long sink = 0;
    switch (kind) {
      case "success": {
        Invocation invocation = Libraries.wrap(name, () -> "ok");
        for (long i = 0; i < count; i++) {
          sink += invocation.invoke().length();
        }
        break;
      }
      case "retry": {
        FailingTwice task = new FailingTwice();
        Invocation invocation = Libraries.wrap(name, task);
        for (long i = 0; i < count; i++) {
          task.reset();
          sink += invocation.invoke().length();
        }
        break;
      }
      case "delay": {
        DelaySource delays = DelaySources.create(name);
        for (long i = 0; i < count; i++) {
          sink += delays.nextDelayNanos();
        }
        break;
      }
      default:
        System.err.println("unknown operation kind: " + kind);
        System.exit(2);
    }
    System.out.println(String.format(Locale.ROOT, "%s %s %d done (%d)", kind, name, count, sink));
  }
}
