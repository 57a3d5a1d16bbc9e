package dev.backoff.bench;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.backoff.Backoff;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.failsafe.Bulkhead;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.function.CheckedSupplier;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
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
 * What a concurrency limiter costs when it has room: one thread, so every acquire succeeds.
 *
 * <ul>
 *   <li>{@link #acquireRelease}: take a slot and complete it as a success (for the adaptive ones, a latency
 *       sample), against Resilience4j 2.4.0's {@code SemaphoreBulkhead} ({@code tryAcquirePermission},
 *       {@code onComplete}), Failsafe 3.3.2's {@code Bulkhead} ({@code tryAcquirePermit},
 *       {@code releasePermit}) and Netflix concurrency-limits 0.5.4's {@code SimpleLimiter} with its
 *       {@code AIMDLimit}, {@code Gradient2Limit} and {@code VegasLimit} ({@code acquire},
 *       {@code onSuccess}). Every limit starts at 20 slots, bounded by 1000 where it adapts; {@code backoff-fixed-100}
 *       is a fixed limiter of 100, above the 64 slots a limiter keeps in one bitmap word.
 *   <li>{@link #retryPath}: a call whose task fails twice and then succeeds ({@link FailingTwice}), each of
 *       its three attempts taking a slot: a Backoff policy without and with each of its limiters, against
 *       Resilience4j's {@code Retry} around a bulkhead-decorated task and Failsafe's retry policy composed
 *       with its bulkhead. Netflix's library has no retry to compose with, so it is not in this one.
 * </ul>
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ConcurrencyLimiterBenchmark {
  /** The limiters compared by {@link #acquireRelease}. */
  @State(Scope.Thread)
  public static class Slots {
    @Param({"backoff-fixed", "backoff-fixed-100", "backoff-aimd", "backoff-gradient", "resilience4j-bulkhead", "failsafe-bulkhead",
        "netflix-aimd", "netflix-gradient2", "netflix-vegas"})
    public String limiter;

    Runnable acquireRelease;

    @Setup
    public void setUp() {
      acquireRelease = switch (limiter) {
        case "backoff-fixed" -> backoff(ConcurrencyLimiter.fixed(20).build());
        case "backoff-fixed-100" -> backoff(ConcurrencyLimiter.fixed(100).build()); // over 64 slots: the stack
        case "backoff-aimd" -> backoff(ConcurrencyLimiter.aimd().build());
        case "backoff-gradient" -> backoff(ConcurrencyLimiter.gradient().build());
        case "resilience4j-bulkhead" -> {
          io.github.resilience4j.bulkhead.Bulkhead bulkhead = resilience4jBulkhead();
          yield () -> {
            if (!bulkhead.tryAcquirePermission()) {
              throw new IllegalStateException("refused");
            }
            bulkhead.onComplete();
          };
        }
        case "failsafe-bulkhead" -> {
          Bulkhead<String> bulkhead = Bulkhead.<String>builder(20).build();
          yield () -> {
            if (!bulkhead.tryAcquirePermit()) {
              throw new IllegalStateException("refused");
            }
            bulkhead.releasePermit();
          };
        }
        case "netflix-aimd" -> netflix(AIMDLimit.newBuilder().initialLimit(20).maxLimit(1000).build());
        case "netflix-gradient2" -> netflix(Gradient2Limit.newBuilder().initialLimit(20).maxConcurrency(1000).build());
        case "netflix-vegas" -> netflix(VegasLimit.newBuilder().initialLimit(20).maxConcurrency(1000).build());
        default -> throw new IllegalArgumentException("unknown limiter: " + limiter);
      };
      acquireRelease.run(); // fails the setup if the limiter refuses
    }

    private static Runnable backoff(ConcurrencyLimiter limiter) {
      return () -> {
        ConcurrencyLimiter.Permit permit = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
        if (permit == null) {
          throw new IllegalStateException("refused");
        }
        permit.onSuccess();
      };
    }

    private static Runnable netflix(com.netflix.concurrency.limits.Limit limit) {
      SimpleLimiter<Void> limiter = SimpleLimiter.newBuilder().limit(limit).build();
      return () -> {
        Optional<Limiter.Listener> listener = limiter.acquire(null);
        if (listener.isEmpty()) {
          throw new IllegalStateException("refused");
        }
        listener.get().onSuccess();
      };
    }
  }

  /** The retry paths compared by {@link #retryPath}. */
  @State(Scope.Thread)
  public static class Calls {
    @Param({"backoff", "backoff+fixed", "backoff+aimd", "backoff+gradient", "resilience4j-retry+bulkhead",
        "failsafe-retry+bulkhead"})
    public String library;

    final FailingTwice task = new FailingTwice();
    Invocation invocation;

    @Setup
    public void setUp() throws Exception {
      invocation = switch (library) {
        case "backoff" -> backoff(task, null);
        case "backoff+fixed" -> backoff(task, ConcurrencyLimiter.fixed(20).build());
        case "backoff+aimd" -> backoff(task, ConcurrencyLimiter.aimd().build());
        case "backoff+gradient" -> backoff(task, ConcurrencyLimiter.gradient().build());
        case "resilience4j-retry+bulkhead" -> {
          Retry retry = Retry.of("bench", RetryConfig.custom().maxAttempts(Libraries.MAX_ATTEMPTS)
              .waitDuration(Duration.ZERO).retryExceptions(Exception.class).build());
          Callable<String> limited = io.github.resilience4j.bulkhead.Bulkhead.decorateCallable(
              resilience4jBulkhead(), task);
          yield () -> retry.executeCallable(limited);
        }
        case "failsafe-retry+bulkhead" -> {
          dev.failsafe.RetryPolicy<String> retry = dev.failsafe.RetryPolicy.<String>builder()
              .withMaxAttempts(Libraries.MAX_ATTEMPTS).handle(Exception.class).build();
          FailsafeExecutor<String> executor = Failsafe.with(retry, Bulkhead.<String>builder(20).build());
          CheckedSupplier<String> supplier = task::call;
          yield () -> executor.get(supplier);
        }
        default -> throw new IllegalArgumentException("unknown library: " + library);
      };
      task.reset();
      if (!FailingTwice.RESULT.equals(invocation.invoke()) || task.attempts() != 3) {
        throw new IllegalStateException(library + " did not retry twice: " + task.attempts() + " attempts");
      }
    }

    private static Invocation backoff(FailingTwice task, ConcurrencyLimiter limiter) {
      RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
          .maxAttempts(Libraries.MAX_ATTEMPTS).backoff(Backoff.none()).concurrencyLimiter(limiter).build());
      return () -> executor.call(task);
    }
  }

  static io.github.resilience4j.bulkhead.Bulkhead resilience4jBulkhead() {
    return io.github.resilience4j.bulkhead.Bulkhead.of("bench", BulkheadConfig.custom().maxConcurrentCalls(20)
        .maxWaitDuration(Duration.ZERO).build());
  }

  @Benchmark
  public void acquireRelease(Slots slots) {
    slots.acquireRelease.run();
  }

  @Benchmark
  public String retryPath(Calls calls) throws Exception {
    calls.task.reset();
    return calls.invocation.invoke();
  }
}
