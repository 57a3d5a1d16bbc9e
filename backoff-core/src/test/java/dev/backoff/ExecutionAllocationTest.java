package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Events are built only when someone listens: without listeners, the failure path allocates nothing but the
 * retry decision. Measured with the JVM's per-thread allocation counter, which counts every byte this thread
 * allocates (no timing involved). A {@link RetryEvent} is at least 40 bytes with any object layout, a
 * {@link Decision} at most 32, so "fewer than 40 bytes per outcome" can only hold without events.
 */
class ExecutionAllocationTest {
  private static final int OUTCOMES = 20_000;
  private static final long EVENT_MINIMUM_BYTES = 40;

  private static com.sun.management.ThreadMXBean threads() {
    java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "no per-thread allocation counter");
    threads.setThreadAllocatedMemoryEnabled(true);
    return threads;
  }

  @Test
  void retryDecisionsWithoutListenersBuildNoEvent() {
    com.sun.management.ThreadMXBean threads = threads();
    RetryPolicy<String> policy = RetryPolicy.<String>builder().unlimitedAttempts()
        .backoff(Backoff.fixed(Duration.ofMillis(1))).maxSuppressed(0).build();
    IOException failure = new IOException("busy");
    Execution<String> execution = policy.newExecution(0);
    long sum = 0;
    for (int i = 0; i < OUTCOMES; i++) { // warm up, and load every class the path needs
      sum += execution.onFailure(failure, i).delayNanos();
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < OUTCOMES; i++) {
      sum += execution.onFailure(failure, i).delayNanos();
    }
    long bytesPerOutcome = (threads.getCurrentThreadAllocatedBytes() - before) / OUTCOMES;

    assertThat(sum).isEqualTo(2L * OUTCOMES * 1_000_000);
    assertThat(bytesPerOutcome).as("bytes allocated per retry decision").isLessThan(EVENT_MINIMUM_BYTES);
  }

  @Test
  void stopsWithoutListenersBuildNoEvent() {
    com.sun.management.ThreadMXBean threads = threads();
    RetryPolicy<String> policy = RetryPolicy.<String>builder().maxAttempts(1).maxSuppressed(0).build();
    IOException failure = new IOException("busy");
    Execution<?>[] kept = new Execution<?>[OUTCOMES]; // kept, so that no allocation can be optimised away
    for (int i = 0; i < OUTCOMES; i++) {
      kept[i] = policy.newExecution(0);
      kept[i].onFailure(failure, i); // warm up the path
    }
    // The same executions created alone, then created and stopped: the difference is the stop's allocation.
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < OUTCOMES; i++) {
      kept[i] = policy.newExecution(0);
    }
    long creating = threads.getCurrentThreadAllocatedBytes() - before;
    before = threads.getCurrentThreadAllocatedBytes();
    int stops = 0;
    for (int i = 0; i < OUTCOMES; i++) {
      kept[i] = policy.newExecution(0);
      stops += kept[i].onFailure(failure, i).isStop() ? 1 : 0;
    }
    long creatingAndStopping = threads.getCurrentThreadAllocatedBytes() - before;

    assertThat(stops).isEqualTo(OUTCOMES);
    assertThat((creatingAndStopping - creating) / OUTCOMES).as("bytes allocated per stop")
        .isLessThan(EVENT_MINIMUM_BYTES);
  }
}
