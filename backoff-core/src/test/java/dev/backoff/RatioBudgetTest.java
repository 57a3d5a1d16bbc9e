package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Example;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class RatioBudgetTest {
  private static final long SECOND = 1_000_000_000L;

  @Example
  void finagleDefaultsGiveAFloorOf100RetriesPlusAFifthOfCalls() {
    AtomicLong time = new AtomicLong(Long.MAX_VALUE - 3 * SECOND); // near the wrap, to check subtraction only
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.2, 10, Duration.ofSeconds(10), time::get);
    assertThat(budget.level()).isEqualTo(100.0);
    for (int i = 0; i < 100; i++) {
      assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    }
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    for (int i = 0; i < 4; i++) {
      budget.onCall();
    }
    assertThat(budget.balanceMilli()).isEqualTo(800);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    budget.onCall(); // the fifth call pays for one retry
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    assertThat(budget.balanceMilli()).isZero();

    // After a whole window, the withdrawals have expired: the floor is back.
    time.addAndGet(10 * SECOND);
    assertThat(budget.level()).isEqualTo(100.0);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
  }

  @Example
  void depositsExpireBeforeLaterWithdrawalsSoTheBalanceCanFallBelowZero() {
    AtomicLong time = new AtomicLong();
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.2, 10, Duration.ofSeconds(10), time::get);
    for (int i = 0; i < 1000; i++) {
      budget.onCall(); // 200 retries' worth, at t = 0
    }
    time.set(9 * SECOND);
    for (int i = 0; i < 300; i++) {
      assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    }
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    time.set(10 * SECOND + 1); // the deposits of t = 0 have left the window; the withdrawals of t = 9 s have not
    assertThat(budget.level()).isEqualTo(-200.0);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    time.set(19 * SECOND);
    assertThat(budget.level()).isEqualTo(100.0);
  }

  @Example
  void aLongIdleGapForgetsEverything() {
    AtomicLong time = new AtomicLong();
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.5, 1, Duration.ofSeconds(10), time::get);
    for (int i = 0; i < 10; i++) {
      budget.onCall();
      time.addAndGet(SECOND / 2);
    }
    assertThat(budget.level()).isEqualTo(15.0);
    time.addAndGet(100L * 24 * 3600 * SECOND); // 100 days idle: every slot long expired
    assertThat(budget.level()).isEqualTo(10.0);
    budget.onCall();
    assertThat(budget.level()).isEqualTo(10.5);
  }

  @Example
  void badParametersAreRejectedWithTheirNameAndValue() {
    NanoClock clock = () -> 0;
    Duration window = Duration.ofSeconds(10);
    assertThatThrownBy(() -> RetryBudgets.ratio(-0.1, 10, window, clock))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("retryRatio must be in [0, 10], was -0.1");
    assertThatThrownBy(() -> RetryBudgets.ratio(Double.POSITIVE_INFINITY, 10, window, clock))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("retryRatio must be a finite number, was Infinity");
    assertThatThrownBy(() -> RetryBudgets.ratio(0.12345, 10, window, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryRatio must have at most three decimal places, was 0.12345");
    assertThatThrownBy(() -> RetryBudgets.ratio(0.2, -1, window, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minRetriesPerSecond must be in [0, 100000], was -1");
    assertThatThrownBy(() -> RetryBudgets.ratio(0.2, 10, Duration.ofMillis(5), clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must be between 10 ms and 1 hour, was PT0.005S");
    assertThatThrownBy(() -> RetryBudgets.ratio(0.2, 10, null, clock))
        .isInstanceOf(NullPointerException.class).hasMessage("window must not be null");
    assertThatThrownBy(() -> RetryBudgets.ratio(0.2, 10, window, null))
        .isInstanceOf(NullPointerException.class).hasMessage("clock must not be null");
  }

  /** One thread against a plain reference model of the sliding window: every decision and level agree. */
  @Property(tries = 200)
  void agreesWithAReferenceModel(@ForAll("operations") List<Integer> operations) {
    AtomicLong time = new AtomicLong();
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.25, 2, Duration.ofSeconds(1), time::get);
    long slot = SECOND / 10;
    long reserve = 2000; // 2 retries per second over 1 s, in thousandths
    List<long[]> events = new ArrayList<>(); // {epoch, amount}
    long head = 0;
    for (int operation : operations) {
      if (operation >= 0) {
        time.addAndGet(operation); // a step forward in time, from 0 to 3 slots
        continue;
      }
      head = Math.max(head, time.get() / slot);
      long balance = reserve;
      for (long[] event : events) {
        if (event[0] > head - 10) {
          balance += event[1];
        }
      }
      if (operation == -1) {
        budget.onCall();
        events.add(new long[] {head, 250});
      } else {
        boolean expected = balance >= 1000;
        assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isEqualTo(expected);
        if (expected) {
          events.add(new long[] {head, -1000});
        }
      }
      long after = reserve;
      for (long[] event : events) {
        if (event[0] > head - 10) {
          after += event[1];
        }
      }
      assertThat(budget.balanceMilli()).isEqualTo(after);
    }
  }

  @Provide
  Arbitrary<List<Integer>> operations() {
    Arbitrary<Integer> call = Arbitraries.just(-1);
    Arbitrary<Integer> retry = Arbitraries.just(-2);
    Arbitrary<Integer> step = Arbitraries.integers().between(0, (int) (3 * SECOND / 10));
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(5, call), net.jqwik.api.Tuple.of(5, retry), net.jqwik.api.Tuple.of(1, step))
        .list().ofMaxSize(400);
  }

  /** All in one window (the clock stands still): conservation is exact and retries never overdraw. */
  @Example
  void concurrentCallsAndRetriesInOneWindowConserveExactly() throws Exception {
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.2, 10, Duration.ofSeconds(10), () -> 42);
    int threads = 4;
    int iterations = 20_000;
    AtomicLong granted = new AtomicLong();
    AtomicBoolean negative = new AtomicBoolean();
    runConcurrently(threads, () -> {
      for (int i = 0; i < iterations; i++) {
        budget.onCall();
        for (int r = 0; r < 2; r++) {
          if (budget.tryAcquire(FailureClass.TRANSIENT)) {
            granted.incrementAndGet();
          }
        }
        if (budget.balanceMilli() < 0) {
          negative.set(true);
        }
      }
    });
    assertThat(negative).isFalse();
    long calls = (long) threads * iterations;
    // Deposits and the reserve cover exactly the retries granted plus what is left.
    assertThat(budget.balanceMilli()).isEqualTo(100_000 + calls * 200 - granted.get() * 1000);
    // Each call is followed by attempts to take two retries, so the budget is drained to below one retry.
    assertThat(budget.balanceMilli()).isBetween(0L, 999L);
  }

  /**
   * The clock moves while threads call and retry. Every grant saw at least one retry in its window, so in
   * each block of 10 slots the retries granted are at most the reserve plus the deposits of that block and
   * the one before it; summed: retries <= blocks x reserve + 2 x deposits.
   */
  @Example
  void concurrentUseWithAMovingClockNeverOverdraws() throws Exception {
    AtomicLong time = new AtomicLong();
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.2, 10, Duration.ofSeconds(10), time::get);
    int threads = 3;
    int iterations = 20_000;
    AtomicLong granted = new AtomicLong();
    AtomicLong calls = new AtomicLong();
    runConcurrently(threads + 1, new Runnable() {
      final AtomicLong started = new AtomicLong();

      @Override
      public void run() {
        if (started.getAndIncrement() == 0) {
          for (int i = 0; i < 2000; i++) {
            time.addAndGet(SECOND / 20); // 100 s in all, in steps of half a slot
            Thread.yield();
          }
          return;
        }
        for (int i = 0; i < iterations; i++) {
          budget.onCall();
          calls.incrementAndGet();
          if (budget.tryAcquire(FailureClass.TRANSIENT)) {
            granted.incrementAndGet();
          }
        }
      }
    });
    long blocks = time.get() / (10 * SECOND) + 1;
    assertThat(granted.get() * 1000).isLessThanOrEqualTo(blocks * 100_000 + 2 * calls.get() * 200);
    assertThat(granted.get()).isPositive();
  }

  /**
   * As above, but the clock also jumps by exactly 5 x 2^23 slots (plus 0 to 9), the period at which a 22-bit
   * slot epoch aliased, while threads call and retry. Blocks here are the aligned windows the clock visited
   * (a jump skips the rest), and after the last jump and a whole window more only the floor remains.
   */
  @Example
  void concurrentUseAcrossHugeClockJumpsNeverOverdrawsAndForgetsEverything() throws Exception {
    long windowNanos = 10_000_000L; // 1 ms slots, the smallest window
    long slot = windowNanos / 10;
    AtomicLong time = new AtomicLong(Long.MAX_VALUE - 3 * windowNanos);
    long start = time.get();
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.2, 1000, Duration.ofNanos(windowNanos), time::get);
    long reserve = 10_000; // 1000 retries per second over 10 ms, in thousandths
    int threads = 3;
    int iterations = 20_000;
    AtomicLong granted = new AtomicLong();
    AtomicLong calls = new AtomicLong();
    AtomicLong blocksVisited = new AtomicLong(1);
    runConcurrently(threads + 1, new Runnable() {
      final AtomicLong started = new AtomicLong();

      @Override
      public void run() {
        if (started.getAndIncrement() == 0) {
          long block = 0;
          for (int i = 1; i <= 2000; i++) {
            long step = i % 100 == 0 ? (5L << 23) * slot + (i / 100 % 10) * slot : slot / 2;
            long elapsed = time.addAndGet(step) - start; // wraps back to the true elapsed time
            if (elapsed / windowNanos != block) {
              block = elapsed / windowNanos;
              blocksVisited.incrementAndGet();
            }
            Thread.yield();
          }
          return;
        }
        for (int i = 0; i < iterations; i++) {
          budget.onCall();
          calls.incrementAndGet();
          if (budget.tryAcquire(FailureClass.TRANSIENT)) {
            granted.incrementAndGet();
          }
        }
      }
    });
    assertThat(granted.get() * 1000).isLessThanOrEqualTo(blocksVisited.get() * reserve + 2 * calls.get() * 200);
    assertThat(granted.get()).isPositive();
    time.addAndGet(10 * slot); // a quiet window, then deposits in the current slot
    for (int i = 0; i < 5; i++) {
      budget.onCall();
    }
    assertThat(budget.balanceMilli()).isEqualTo(reserve + 1000);
    time.addAndGet((5L << 23) * slot); // exactly the old aliasing period: nothing from before may come back
    assertThat(budget.balanceMilli()).isEqualTo(reserve);
    budget.onCall();
    assertThat(budget.balanceMilli()).isEqualTo(reserve + 200);
  }

  /**
   * Calls and retries allocate nothing while the clock stays in one slot; moving to the next slot allocates one
   * window snapshot. Measured with the JVM's per-thread allocation counter (bytes, no timing involved).
   */
  @Example
  void callsAndRetriesAllocateNothingButOneSnapshotPerSlot() {
    java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean,
        "no per-thread allocation counter");
    com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) bean;
    org.junit.jupiter.api.Assumptions.assumeTrue(counter.isThreadAllocatedMemorySupported(),
        "no per-thread allocation counter");
    counter.setThreadAllocatedMemoryEnabled(true);
    AtomicLong time = new AtomicLong();
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(0.5, 10, Duration.ofSeconds(10), time::get);
    int operations = 20_000;
    long granted = 0;
    for (int i = 0; i < operations; i++) { // warm up, and load every class the path needs
      budget.onCall();
      granted += budget.tryAcquire(FailureClass.TRANSIENT) ? 1 : 0;
      time.addAndGet(SECOND / 100);
    }
    long before = counter.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < operations; i++) {
      budget.onCall();
      granted += budget.tryAcquire(FailureClass.TRANSIENT) ? 1 : 0;
    }
    long stillClock = counter.getCurrentThreadAllocatedBytes() - before;
    before = counter.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < operations; i++) {
      budget.onCall();
      granted += budget.tryAcquire(FailureClass.TRANSIENT) ? 1 : 0;
      time.addAndGet(SECOND / 100); // a new slot every 100 iterations: 200 slots
    }
    long movingClock = counter.getCurrentThreadAllocatedBytes() - before;

    assertThat(granted).isPositive();
    assertThat(stillClock).as("bytes allocated by %s calls and retries in one slot", 2 * operations)
        .isLessThan(2L * operations / 10);
    assertThat(movingClock / 200).as("bytes allocated per slot moved").isLessThan(256);
  }

  private static void runConcurrently(int threads, Runnable task) throws InterruptedException {
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        task.run();
      });
      workers.add(worker);
      worker.start();
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
  }
}
