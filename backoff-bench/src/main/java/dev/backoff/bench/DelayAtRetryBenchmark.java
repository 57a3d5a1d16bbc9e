package dev.backoff.bench;

import dev.backoff.Backoff;
import java.util.SplittableRandom;
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
 * One delay of Backoff's jittered strategies at one retry number, where {@link DelayBenchmark} averages over
 * retries 1 to 8 of a call: a strategy whose cost depends on the retry (decorrelated V2's {@code tanh(√(4t))}
 * is computed in full below t = 8) shows its worst case here. The previous delay and the elapsed total are
 * those the strategy itself produced up to that retry (the same seed as {@link DelaySources}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class DelayAtRetryBenchmark {
  @Param({
    DelaySources.BACKOFF_EXPONENTIAL_FULL,
    DelaySources.BACKOFF_DECORRELATED,
    DelaySources.BACKOFF_DECORRELATED_V2
  })
  public String source;

  @Param({"1", "3", "5", "8"})
  public int retry;

  private Backoff backoff;
  private SplittableRandom random;
  private long previous;
  private long total;

  @Setup
  public void setUp() {
    backoff = DelaySources.backoffOf(source);
    random = new SplittableRandom(DelaySources.SEED);
    for (int earlier = 1; earlier < retry; earlier++) {
      previous = backoff.delayNanos(earlier, previous, total, random);
      total += previous;
    }
  }

  @Benchmark
  public long delay() {
    return backoff.delayNanos(retry, previous, total, random);
  }
}
