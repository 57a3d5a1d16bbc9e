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
 * One delay computation: each Backoff strategy and the peers' equivalents on the same schedule, cycling
 * through a call's retries 1 to 8 (see {@link DelaySource}). Backoff draws from a seeded
 * {@link java.util.SplittableRandom}; the peers use their own random sources (they accept none).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class DelayBenchmark {
  @Param({
    DelaySources.BACKOFF_FIXED,
    DelaySources.BACKOFF_LINEAR,
    DelaySources.BACKOFF_EXPONENTIAL,
    DelaySources.BACKOFF_EXPONENTIAL_FULL,
    DelaySources.BACKOFF_EXPONENTIAL_EQUAL,
    DelaySources.BACKOFF_EXPONENTIAL_PROPORTIONAL,
    DelaySources.BACKOFF_EXPONENTIAL_GAUSSIAN,
    DelaySources.BACKOFF_DECORRELATED,
    DelaySources.BACKOFF_DECORRELATED_V2,
    DelaySources.BACKOFF_GOOGLE_CLOUD,
    DelaySources.BACKOFF_ENGINE_EXPONENTIAL_PROPORTIONAL,
    DelaySources.RESILIENCE4J_FIXED,
    DelaySources.RESILIENCE4J_EXPONENTIAL,
    DelaySources.RESILIENCE4J_EXPONENTIAL_RANDOM,
    DelaySources.RESILIENCE4J_RANDOMIZED,
    DelaySources.RESILIENCE4J_BI_EXPONENTIAL_RANDOM,
    DelaySources.FAILSAFE_ENGINE_EXPONENTIAL,
    DelaySources.FAILSAFE_ENGINE_EXPONENTIAL_JITTER,
    DelaySources.SPRING_RETRY_FIXED,
    DelaySources.SPRING_RETRY_EXPONENTIAL,
    DelaySources.SPRING_RETRY_EXPONENTIAL_RANDOM,
    DelaySources.SPRING_RETRY_UNIFORM_RANDOM,
    DelaySources.SPRING_CORE_FIXED,
    DelaySources.SPRING_CORE_EXPONENTIAL,
    DelaySources.SPRING_CORE_EXPONENTIAL_JITTER
  })
  public String source;

  DelaySource delays;

  @Setup
  public void setUp() {
    delays = DelaySources.create(source);
  }

  @Benchmark
  public long delay() {
    return delays.nextDelayNanos();
  }
}
