package dev.backoff.bench;

import dev.backoff.AdaptiveHedgeDelay;
import dev.backoff.Hedging;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What a hedged call's delay costs per call (docs/benchmarks.md): a fixed delay is a field read; an adaptive
 * one records the call's latency (a ring slot, two histogram counters, and every 20th call the quantile over
 * the histogram) and reads the delay (a volatile read). Both in one run, so only their ratio counts on a busy
 * machine. Its iterations come from the command line (docs/benchmarks.md).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@State(Scope.Thread)
public class HedgeDelayBenchmark {
  @Param({"fixed", "adaptive"})
  public String delay;

  private Hedging hedging;
  private AdaptiveHedgeDelay adaptive;
  private long latency = 40_000_000;

  @Setup
  public void setUp() {
    adaptive = AdaptiveHedgeDelay.builder().build();
    hedging = delay.equals("fixed") ? Hedging.after(Duration.ofMillis(50)) : Hedging.adaptive(adaptive);
    for (int i = 0; i < 2000; i++) { // past the warm-up, the window full
      adaptive.record(40_000_000L + i * 10_000L);
    }
  }

  /** One call's latency recorded (adaptive only, as the call machine does) and the delay read for its hedge. */
  @Benchmark
  public long recordAndRead() {
    latency = latency * 6364136223846793005L + 1442695040888963407L; // a varied latency, 0 to 134 ms
    if (hedging.adaptiveDelay() != null) {
      hedging.adaptiveDelay().record((latency >>> 37));
    }
    return hedging.delayNanos();
  }
}
