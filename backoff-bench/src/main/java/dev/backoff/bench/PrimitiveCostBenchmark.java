package dev.backoff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the building blocks of the other benchmarks cost on this machine and JDK, to explain their figures
 * (docs/benchmarks.md): a clock read, a cause lookup (Throwable.getCause is synchronized), the random
 * sources, and the transcendental functions some strategies need, with the cheaper identities one could use.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PrimitiveCostBenchmark {
  public double t = 2.37;
  final Exception failure = new FailingTwice.AttemptFailure("failed");
  final SplittableRandom random = new SplittableRandom(42);

  @Benchmark
  public long systemNanoTime() {
    return System.nanoTime();
  }

  @Benchmark
  public Throwable throwableGetCause() {
    return failure.getCause();
  }

  @Benchmark
  public double splittableRandomNextDouble() {
    return random.nextDouble();
  }

  @Benchmark
  public double threadLocalRandomNextDouble() {
    return ThreadLocalRandom.current().nextDouble();
  }

  @Benchmark
  public double mathTanh() {
    return Math.tanh(t);
  }

  @Benchmark
  public double tanhFromExp() {
    double e = Math.exp(2 * t);
    return 1 - 2 / (e + 1);
  }

  @Benchmark
  public double mathPowOfTwo() {
    return Math.pow(2, t);
  }

  @Benchmark
  public double powOfTwoFromExp() {
    return Math.exp(t * 0.6931471805599453);
  }

  @Benchmark
  public double mathLog() {
    return Math.log(t);
  }
}
