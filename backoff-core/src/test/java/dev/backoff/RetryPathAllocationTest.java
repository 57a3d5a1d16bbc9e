package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.backoff.driver.Verdict;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a call that retries allocates, counted with the JVM's per-thread allocation counter (every byte this
 * thread allocates; no timing involved). The retry path's one per-call object is the {@link Execution}: its
 * decisions travel to the loops as numbers, so a call that fails twice and then succeeds allocates the
 * execution and nothing else. A waiting asynchronous retry holds the call's future and its execution.
 *
 * <p>The sizes are those of HotSpot with compressed references (any heap under 32 GB, the default): 12-byte
 * object headers, 4-byte references, objects aligned to 8 bytes. Without them the test is skipped. They are
 * upper bounds, so a layout with smaller headers passes too.
 */
class RetryPathAllocationTest {
  private static final int CALLS = 50_000;
  /** The execution: a 12-byte header, four longs, three ints' worth of references, two ints, two bytes. */
  private static final long EXECUTION_BYTES = 72;
  /** An asynchronous call: CompletableFuture's two fields, the call's own seven and the start time. */
  private static final long ASYNC_CALL_BYTES = 56;
  /** The fewest bytes a peer allocates for the same retry path (Resilience4j, in docs/benchmarks.md). */
  private static final long FEWEST_PEER_BYTES = 80;

  private static com.sun.management.ThreadMXBean threads;

  @BeforeAll
  static void allocationCounter() {
    java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
    threads = (com.sun.management.ThreadMXBean) bean;
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "no per-thread allocation counter");
    threads.setThreadAllocatedMemoryEnabled(true);
    HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    assumeTrue(hotspot != null, "not HotSpot");
    assumeTrue("true".equals(hotspot.getVMOption("UseCompressedOops").getValue())
        && "true".equals(hotspot.getVMOption("UseCompressedClassPointers").getValue()),
        "the sizes below assume compressed references");
  }

  /** A reusable failure without a stack trace or suppressed exceptions. */
  static final class CheapFailure extends Exception {
    CheapFailure(String message) {
      super(message, null, false, false);
    }
  }

  /** Fails on its first two attempts (distinct exceptions without stack traces), then succeeds. */
  static final class FailingTwice implements Callable<String> {
    private static final Exception FIRST = new CheapFailure("first");
    private static final Exception SECOND = new CheapFailure("second");
    int attempts;

    @Override
    public String call() throws Exception {
      int attempt = ++attempts;
      if (attempt == 1) {
        throw FIRST;
      }
      if (attempt == 2) {
        throw SECOND;
      }
      return "ok";
    }
  }

  @Test
  void aCallThatFailsTwiceThenSucceedsAllocatesItsExecutionOnly() throws Exception {
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().maxAttempts(3)
        .backoff(Backoff.none()).build());
    FailingTwice task = new FailingTwice();
    int results = 0;
    for (int i = 0; i < CALLS; i++) { // warm up: class loading, linking and compilation allocate
      task.attempts = 0;
      results += executor.call(task).length();
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < CALLS; i++) {
      task.attempts = 0;
      results += executor.call(task).length();
    }
    double bytesPerCall = (threads.getCurrentThreadAllocatedBytes() - before) / (double) CALLS;

    assertThat(results).isEqualTo(2 * CALLS * "ok".length());
    assertThat(task.attempts).isEqualTo(3);
    // One more field anywhere on the path would be 8 more bytes per call: 80, the fewest any peer allocates.
    assertThat(bytesPerCall).as("bytes per call that fails twice, then succeeds")
        .isLessThanOrEqualTo(EXECUTION_BYTES + 2.0).isLessThan(FEWEST_PEER_BYTES);
  }

  @Test
  void theLoopsDecisionsAllocateNothing() {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().unlimitedAttempts().backoff(Backoff.none())
        .maxSuppressed(0).build();
    Exception failure = new CheapFailure("busy");
    Execution<String> execution = policy.newExecution(0);
    long sum = 0;
    for (int i = 0; i < CALLS; i++) { // warm up
      sum += execution.recordNanos(null, failure, Verdict.RETRYABLE, i, null);
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < CALLS; i++) {
      sum += execution.recordNanos(null, failure, Verdict.RETRYABLE, i, null);
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertThat(sum).as("every decision a zero-delay retry").isZero();
    assertThat(execution.retries()).isEqualTo(2 * CALLS);
    // A retry Decision object would be 24 bytes × 50 000; allow only the counter's own noise.
    assertThat(allocated).as("bytes allocated by %d retry decisions", CALLS).isLessThan(4 * 1024);
  }

  @Test
  void anExecutionWithoutBreakerBudgetOrListenersIsSeventyTwoBytes() {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().build();
    Execution<?>[] kept = new Execution<?>[CALLS]; // kept, so that no allocation can be optimised away
    for (int i = 0; i < CALLS; i++) {
      kept[i] = new Execution<>(policy, i, policy.random);
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < CALLS; i++) {
      kept[i] = new Execution<>(policy, i, policy.random);
    }
    double bytes = (threads.getCurrentThreadAllocatedBytes() - before) / (double) CALLS;

    assertThat(kept[CALLS - 1].startNanos()).isEqualTo(CALLS - 1);
    assertThat(bytes).as("bytes per execution").isLessThanOrEqualTo(EXECUTION_BYTES + 1.0);
  }

  @Test
  void anAsyncCallIsFiftySixBytesWithOrWithoutABreaker() {
    Supplier<CompletionStage<String>> supplier = () -> CompletableFuture.completedFuture("ok");
    for (RetryPolicy<String> policy : java.util.List.of(RetryPolicy.<String>builder().build(),
        RetryPolicy.<String>builder().circuitBreaker(CircuitBreaker.builder().build()).build())) {
      AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy);
      AsyncCall<?, ?>[] kept = new AsyncCall<?, ?>[CALLS];
      for (int i = 0; i < CALLS; i++) {
        kept[i] = new AsyncCall<>(executor, supplier, null);
      }
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < CALLS; i++) {
        kept[i] = new AsyncCall<>(executor, supplier, null);
      }
      double bytes = (threads.getCurrentThreadAllocatedBytes() - before) / (double) CALLS;

      assertThat(kept[CALLS - 1].isDone()).isFalse();
      assertThat(bytes).as("bytes per asynchronous call, breaker %s", policy.breaker)
          .isLessThanOrEqualTo(ASYNC_CALL_BYTES + 1.0);
    }
  }

  @Test
  void anAdaptiveHedgeDelaysMachineStepsAllocateNothing() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().window(1000).warmUp(10).build();
    RetryPolicy<String> policy = RetryPolicy.<String>builder().hedging(Hedging.adaptive(delay)).build();
    long sum = 0;
    for (int round = 0; round < 2; round++) { // the first warms up
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < CALLS; i++) { // a first attempt that wins: its start, its latency recorded
        sum += CallMachine.nextHedge(policy, null, i);
        CallMachine.hedgeWon(policy, null, "ok", null, 1, null, i, i + 1000 + i % 97, null);
        if (delay.tryHedge()) {
          sum++;
        }
      }
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;
      if (round == 1) {
        assertThat(allocated).as("bytes allocated by %d adaptive first-attempt wins", CALLS).isLessThan(4 * 1024);
      }
    }
    assertThat(delay.latenciesRecorded()).isEqualTo(2 * CALLS);
    assertThat(sum).isPositive();
  }

  @Test
  void aHedgedCallAllocatesAsMuchWithAnAdaptiveDelayAsWithAFixedOne() {
    java.util.concurrent.Future<?> never = new CompletableFuture<>(); // a timer that does not fire
    RetryScheduler scheduler = (task, delayNanos) -> never;
    Supplier<CompletionStage<String>> supplier = () -> CompletableFuture.completedFuture("ok");
    double[] bytes = new double[2];
    for (int kind = 0; kind < 2; kind++) {
      Hedging hedging = kind == 0 ? Hedging.after(java.time.Duration.ofMillis(50)) : Hedging.atQuantile(0.95);
      AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(RetryPolicy.<String>builder().hedging(hedging)
          .build(), scheduler);
      CompletableFuture<?>[] kept = new CompletableFuture<?>[CALLS];
      long fewest = Long.MAX_VALUE;
      for (int round = 0; round < 4; round++) { // the quietest of three rounds after one to warm up
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < CALLS; i++) {
          kept[i] = executor.call(supplier);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        if (round > 0) {
          fewest = Math.min(fewest, allocated);
        }
      }
      assertThat(kept[CALLS - 1].join()).isEqualTo("ok");
      bytes[kind] = fewest / (double) CALLS;
    }
    assertThat(bytes[1]).as("bytes per adaptive hedged call against a fixed one's %.1f", bytes[0])
        .isLessThanOrEqualTo(bytes[0] + 1.0);
    assertThat(bytes[0]).as("a hedged call's objects are bounded").isLessThan(1024);
  }
}
