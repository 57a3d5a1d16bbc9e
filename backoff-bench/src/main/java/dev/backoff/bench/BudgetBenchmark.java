package dev.backoff.bench;

import dev.backoff.FailureClass;
import dev.backoff.NanoClock;
import dev.backoff.RetryBudget;
import dev.backoff.RetryBudgets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Retry budgets under contention: two threads share one budget, each doing what the decision engine does
 * for a call that fails once and is retried: {@code onCall}, {@code onFailure}, {@code tryAcquire}, then
 * {@code onSuccess}. None of the peers has a retry budget; a shared {@link AtomicLong} taking four
 * compare-and-set updates per call is the yardstick for what contention alone costs on this machine.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
@State(Scope.Benchmark)
public class BudgetBenchmark {
  public static final String ATOMIC_BASELINE = "atomic-long-baseline";
  public static final String AWS_STANDARD = "aws-standard";
  public static final String GRPC_THROTTLING = "grpc-throttling";
  public static final String RATIO = "ratio";

  @Param({ATOMIC_BASELINE, AWS_STANDARD, GRPC_THROTTLING, RATIO})
  public String budget;

  RetryBudget shared;

  @Setup
  public void setUp() {
    shared = create(budget);
  }

  /**
   * Creates the named budget.
   *
   * @throws IllegalArgumentException if the name is unknown
   */
  public static RetryBudget create(String name) {
    switch (name) {
      case ATOMIC_BASELINE:
        return new AtomicBaseline();
      case AWS_STANDARD:
        return RetryBudgets.awsStandard();
      case GRPC_THROTTLING:
        return RetryBudgets.grpcThrottling(100, 0.1);
      case RATIO:
        return RetryBudgets.ratio(0.2, 10, Duration.ofSeconds(10), NanoClock.system());
      default:
        throw new IllegalArgumentException("unknown budget: " + name);
    }
  }

  @Benchmark
  public boolean callWithOneRetry() {
    RetryBudget b = shared;
    b.onCall();
    b.onFailure(FailureClass.TRANSIENT);
    boolean granted = b.tryAcquire(FailureClass.TRANSIENT);
    b.onSuccess(granted ? 1 : 0, granted ? FailureClass.TRANSIENT : null);
    return granted;
  }

  /** Four compare-and-set updates of one shared counter: the cost of contention, with no budget logic. */
  static final class AtomicBaseline implements RetryBudget {
    private final AtomicLong value = new AtomicLong();

    @Override
    public void onCall() {
      value.incrementAndGet();
    }

    @Override
    public void onFailure(FailureClass failureClass) {
      value.incrementAndGet();
    }

    @Override
    public boolean tryAcquire(FailureClass failureClass) {
      value.decrementAndGet();
      return true;
    }

    @Override
    public void onSuccess(int retries, FailureClass lastRetryClass) {
      value.decrementAndGet();
    }

    @Override
    public double level() {
      return value.get();
    }
  }
}
