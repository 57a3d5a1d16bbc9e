package dev.backoff.bench;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Asynchronous retry scheduling: a call whose first attempt fails, whose retry is scheduled with zero delay
 * on a one-thread scheduler (the same for every library) and succeeds there; the benchmark thread waits for
 * the outcome. Throughput is calls (each with one scheduled retry) per microsecond; the time includes the
 * hand-off to the scheduler thread and back, which every library pays alike.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class AsyncRetryBenchmark {
  static final CompletableFuture<String> FAILED =
      CompletableFuture.failedFuture(new FailingTwice.AttemptFailure("attempt failed"));
  static final CompletableFuture<String> SUCCEEDED = CompletableFuture.completedFuture(FailingTwice.RESULT);

  @Param({AsyncLibraries.BACKOFF, AsyncLibraries.RESILIENCE4J, AsyncLibraries.FAILSAFE})
  public String library;

  ScheduledThreadPoolExecutor scheduler;
  AsyncLibraries.AsyncInvocation invocation;
  /** Attempts of the current call; written by the benchmark thread and, for the retry, the scheduler thread. */
  volatile int attempts;

  @Setup
  public void setUp() {
    scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "bench-scheduler");
      thread.setDaemon(true);
      return thread;
    });
    invocation = AsyncLibraries.wrap(library, scheduler, 2, Duration.ZERO, this::attempt);
  }

  /** The thread that made the last attempt (for the setup test: retries must run on the scheduler). */
  Thread lastAttemptThread;

  private CompletionStage<String> attempt() {
    lastAttemptThread = Thread.currentThread();
    return attempts++ == 0 ? FAILED : SUCCEEDED;
  }

  @TearDown
  public void tearDown() {
    scheduler.shutdownNow();
  }

  @Benchmark
  public String failOnceThenSucceed() {
    attempts = 0;
    return invocation.start().join();
  }
}
