package dev.backoff.bench;

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
 * The retry path: the task fails twice and succeeds on the third attempt, with zero delay between attempts,
 * so what is measured is each library's bookkeeping for two retries (no real sleeping).
 * {@code backoff-engine-only} is not a library but a breakdown: Backoff's decision engine without the
 * executor's clock reads.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class RetryPathBenchmark {
  @Param({Libraries.BACKOFF, Libraries.BACKOFF_ENGINE, Libraries.RESILIENCE4J, Libraries.FAILSAFE, Libraries.SPRING_RETRY,
      Libraries.SPRING_CORE_RETRY})
  public String library;

  final FailingTwice task = new FailingTwice();
  Invocation invocation;

  @Setup
  public void setUp() {
    invocation = Libraries.wrap(library, task);
  }

  @Benchmark
  public String call() throws Exception {
    task.reset();
    return invocation.invoke();
  }
}
