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
 * The happy path: the call succeeds at once. What each library adds over calling the task directly is the
 * price every remote call pays for being retryable.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class SuccessPathBenchmark {
  @Param({Libraries.DIRECT, Libraries.BACKOFF, Libraries.RESILIENCE4J, Libraries.FAILSAFE, Libraries.SPRING_RETRY,
      Libraries.SPRING_CORE_RETRY})
  public String library;

  /** Read by the task, so that the result is not a compile-time constant. */
  public String value = "ok";

  Invocation invocation;

  @Setup
  public void setUp() {
    invocation = Libraries.wrap(library, () -> value);
  }

  @Benchmark
  public String call() throws Exception {
    return invocation.invoke();
  }
}
