package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backoff.ConcurrencyLimiter.AttemptKind;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the concurrency limiter allocates, counted with the JVM's per-thread allocation counter (no timing):
 * nothing per acquisition and completion once its permits exist, alone or through a policy's first-try
 * success. Each count is the quietest of three rounds after a warm-up (a late compilation is not the call's);
 * any object per call would be at least 16 bytes per call in every round.
 */
class ConcurrencyLimiterAllocationTest {
  private static final int CALLS = 50_000;
  private static com.sun.management.ThreadMXBean threads;

  @BeforeAll
  static void allocationCounter() {
    assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean counter
        && counter.isThreadAllocatedMemorySupported(), "no per-thread allocation counter");
    threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    threads.setThreadAllocatedMemoryEnabled(true);
  }

  /** The fewest bytes {@code calls} runs of {@code body} allocated in any of three rounds, after one to warm up. */
  private static long quietestRound(Runnable body) {
    long fewest = Long.MAX_VALUE;
    for (int round = 0; round < 4; round++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < CALLS; i++) {
        body.run();
      }
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;
      if (round > 0) {
        fewest = Math.min(fewest, allocated);
      }
    }
    return fewest;
  }

  @Test
  void acquiringAndCompletingAllocateNothingOnceWarm() {
    long[] now = {0};
    ConcurrencyLimiter limiter = ConcurrencyLimiter.gradient().bounds(1, 8).initialLimit(8).clock(() -> now[0]++)
        .build();
    long[] granted = {0};
    int[] step = {0};
    long bytes = quietestRound(() -> {
      ConcurrencyLimiter.Permit first = limiter.tryAcquire(AttemptKind.FIRST);
      ConcurrencyLimiter.Permit retry = limiter.tryAcquire(AttemptKind.RETRY);
      granted[0]++;
      first.onSuccess();
      if (retry != null && ++step[0] % 7 == 0) {
        retry.onDropped();
      } else if (retry != null) {
        retry.release();
      }
    });
    assertThat(granted[0]).isEqualTo(4L * CALLS);
    assertThat(bytes / (double) CALLS).as("bytes per acquire-complete pair (%d in all)", bytes).isLessThan(1.0);
    assertThat(limiter.inFlight()).isZero();
  }

  @Test
  void aFirstTrySuccessThroughAFixedLimiterAllocatesNothing() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(8).build();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().concurrencyLimiter(limiter).build());
    Callable<String> task = () -> "ok";
    int[] length = {0};
    long bytes = quietestRound(() -> {
      try {
        length[0] += executor.call(task).length();
      } catch (Exception unexpected) {
        throw new AssertionError(unexpected);
      }
    });
    assertThat(length[0]).isEqualTo(4 * CALLS * 2);
    assertThat(bytes / (double) CALLS).as("bytes per first-try success (%d in all)", bytes).isLessThan(1.0);
    assertThat(limiter.inFlight()).isZero();
  }
}
