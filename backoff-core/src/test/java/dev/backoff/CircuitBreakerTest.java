package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.CircuitBreaker.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The breaker's states, windows and waits with exact values, on a fake clock; and under many threads. */
class CircuitBreakerTest {
  private static final long SECOND = 1_000_000_000L;
  private final AtomicLong now = new AtomicLong(123);
  private final List<String> transitions = new ArrayList<>();

  private CircuitBreaker.Builder breaker() {
    return CircuitBreaker.builder().name("db").clock(now::get)
        .listener((b, from, to) -> transitions.add(from + "->" + to));
  }

  private static void fail(CircuitBreaker breaker, int times) {
    for (int i = 0; i < times; i++) {
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    }
  }

  private static void succeed(CircuitBreaker breaker, int times) {
    for (int i = 0; i < times; i++) {
      breaker.tryAcquire().onSuccess();
    }
  }

  @Test
  void opensOnlyOnceTheMinimumIsReachedAndTheRateMeetsTheThreshold() {
    CircuitBreaker breaker = breaker().countWindow(10).minimumCalls(5).failureRateThreshold(50).build();
    fail(breaker, 2);
    succeed(breaker, 2);
    assertThat(breaker.metrics()).isEqualTo(new CircuitBreaker.Metrics(State.CLOSED, 4, 2, Double.NaN, 0, 0));
    succeed(breaker, 1); // 2 of 5: 40 %
    assertThat(breaker.metrics().failureRate()).isEqualTo(40.0);
    fail(breaker, 1); // 3 of 6: 50 %, at the threshold
    assertThat(breaker.state()).isEqualTo(State.OPEN);
    assertThat(transitions).containsExactly("CLOSED->OPEN");
    assertThat(breaker.tryAcquire()).isNull();
    assertThat(breaker.metrics()).isEqualTo(new CircuitBreaker.Metrics(State.OPEN, 0, 0, Double.NaN, 1, 1));
  }

  /** The trap of a small count window under the default minimum of 100 calls: it opens after the window's calls. */
  @Test
  void aCountWindowSmallerThanTheDefaultMinimumOpensOnceTheWindowIsFull() {
    CircuitBreaker breaker = breaker().countWindow(10).failureRateThreshold(50).build();
    fail(breaker, 9);
    assertThat(breaker.state()).isEqualTo(State.CLOSED);
    assertThat(breaker.metrics().failureRate()).isNaN();
    fail(breaker, 1); // 10 of 10: the window is full and the minimum (the window's size) reached
    assertThat(breaker.state()).isEqualTo(State.OPEN);
    assertThat(breaker.toString()).contains("of at least 10 calls");
    CircuitBreaker wide = breaker().countWindow(500).build();
    assertThat(wide.toString()).contains("of at least 100 calls");
    CircuitBreaker timed = breaker().timeWindow(Duration.ofSeconds(10), 5).build();
    assertThat(timed.toString()).contains("of at least 100 calls");
  }

  @Test
  void anExplicitMinimumTheCountWindowCannotHoldFailsAtBuildNamingBoth() {
    assertThatThrownBy(() -> breaker().countWindow(10).minimumCalls(20).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minimumCalls(20) exceeds countWindow(10), which holds at most 10 calls, so the breaker would"
            + " never open: set minimumCalls to at most 10 or widen the window");
    // independent of call order, and a time window holds any number of calls
    assertThatThrownBy(() -> breaker().minimumCalls(20).countWindow(10).build())
        .hasMessageStartingWith("minimumCalls(20) exceeds countWindow(10)");
    assertThat(breaker().minimumCalls(20).timeWindow(Duration.ofSeconds(10), 5).build().state())
        .isEqualTo(State.CLOSED);
  }

  @Test
  void aCountWindowForgetsTheOldestCall() {
    CircuitBreaker breaker = breaker().countWindow(4).minimumCalls(4).failureRateThreshold(75).build();
    fail(breaker, 2);
    succeed(breaker, 2); // F F S S: 50 %
    fail(breaker, 1); // F S S F: still 50 %, the first failure has left
    assertThat(breaker.metrics().failures()).isEqualTo(2);
    assertThat(breaker.metrics().calls()).isEqualTo(4);
    fail(breaker, 1); // S S F F
    assertThat(breaker.state()).isEqualTo(State.CLOSED);
    fail(breaker, 1); // S F F F: 75 %
    assertThat(breaker.state()).isEqualTo(State.OPEN);
  }

  @Test
  void aTimeWindowCountsTheLastBuckets() {
    CircuitBreaker breaker = breaker().timeWindow(Duration.ofSeconds(10), 5).minimumCalls(3)
        .failureRateThreshold(100).build();
    fail(breaker, 2); // bucket 0
    now.addAndGet(2 * SECOND);
    succeed(breaker, 1); // bucket 1
    assertThat(breaker.metrics().calls()).isEqualTo(3);
    now.addAndGet(8 * SECOND - 1); // still bucket 4: bucket 0 is among the last five
    assertThat(breaker.metrics().calls()).isEqualTo(3);
    now.addAndGet(1); // bucket 5: bucket 0 has left
    assertThat(breaker.metrics().calls()).isEqualTo(1);
    assertThat(breaker.metrics().failures()).isZero();
    now.addAndGet(2 * SECOND); // bucket 6: bucket 1 has left too
    fail(breaker, 2);
    assertThat(breaker.state()).isEqualTo(State.CLOSED);
    fail(breaker, 1); // 3 of 3
    assertThat(breaker.state()).isEqualTo(State.OPEN);
  }

  @Test
  void waitsInOpenThenLetsTrialsThroughAndClosesAfterKSuccesses() {
    CircuitBreaker breaker = breaker().countWindow(2).minimumCalls(2).trialCalls(2)
        .waitInOpen(Duration.ofSeconds(30)).build();
    fail(breaker, 2);
    now.addAndGet(30 * SECOND - 1);
    assertThat(breaker.tryAcquire()).isNull();
    assertThat(breaker.state()).isEqualTo(State.OPEN);
    now.addAndGet(1);
    CircuitBreaker.Permit first = breaker.tryAcquire();
    CircuitBreaker.Permit second = breaker.tryAcquire();
    assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
    assertThat(first).isNotNull();
    assertThat(second).isNotNull();
    assertThat(breaker.tryAcquire()).as("a third trial").isNull();
    second.release(); // never ran: its place is free again
    CircuitBreaker.Permit third = breaker.tryAcquire();
    assertThat(third).isNotNull();
    first.onSuccess();
    assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
    third.onSuccess();
    assertThat(breaker.state()).isEqualTo(State.CLOSED);
    assertThat(breaker.metrics().calls()).as("closed with an empty window").isZero();
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
  }

  @Test
  void aFailedTrialReopensAndAGrowingWaitGrowsUntilTheBreakerCloses() {
    CircuitBreaker breaker = breaker().countWindow(1).minimumCalls(1).trialCalls(1)
        .waitInOpen(Backoff.exponential(Duration.ofSeconds(10), 2, Duration.ofSeconds(35))).build();
    fail(breaker, 1);
    long[] waits = {10, 20, 35, 35};
    for (long wait : waits) {
      now.addAndGet(wait * SECOND - 1);
      assertThat(breaker.tryAcquire()).as("before %d s", wait).isNull();
      now.addAndGet(1);
      breaker.tryAcquire().onFailure(FailureClass.TIMEOUT); // the trial fails: open again, longer
      assertThat(breaker.state()).isEqualTo(State.OPEN);
    }
    now.addAndGet(35 * SECOND);
    breaker.tryAcquire().onSuccess();
    assertThat(breaker.state()).isEqualTo(State.CLOSED);
    fail(breaker, 1); // a fresh opening waits the first delay again
    now.addAndGet(10 * SECOND);
    assertThat(breaker.tryAcquire()).isNotNull();
    assertThat(breaker.metrics().openings()).isEqualTo(6);
  }

  @Test
  void ignoredClassesCountAsNeither() {
    CircuitBreaker breaker = breaker().countWindow(2).minimumCalls(1).trialCalls(1)
        .ignoring(FailureClass.THROTTLED).build();
    breaker.tryAcquire().onFailure(FailureClass.THROTTLED);
    assertThat(breaker.metrics().calls()).isZero();
    fail(breaker, 1);
    now.addAndGet(60 * SECOND);
    breaker.tryAcquire().onFailure(FailureClass.THROTTLED); // a trial throttled: released, not failed
    assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
    assertThat(breaker.tryAcquire()).as("the released trial's place").isNotNull();
  }

  @Test
  void aPermitFromAnEarlierStateDoesNotCountInTheNextOne() {
    CircuitBreaker breaker = breaker().countWindow(1).minimumCalls(1).trialCalls(1).build();
    CircuitBreaker.Permit slow = breaker.tryAcquire(); // granted while closed, still running
    fail(breaker, 1);
    now.addAndGet(60 * SECOND);
    CircuitBreaker.Permit trial = breaker.tryAcquire();
    slow.onSuccess(); // must not close the half-open breaker
    assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
    slow.release();
    assertThat(breaker.tryAcquire()).as("no extra trial from a stale release").isNull();
    trial.onSuccess();
    assertThat(breaker.state()).isEqualTo(State.CLOSED);
  }

  @Test
  void aThrowingListenerChangesNothing() {
    CircuitBreaker breaker = CircuitBreaker.builder().clock(now::get).countWindow(1).minimumCalls(1)
        .listener((b, from, to) -> { throw new IllegalStateException("listener"); }).build();
    fail(breaker, 1);
    assertThat(breaker.state()).isEqualTo(State.OPEN);
  }

  @Test
  void everyArgumentIsValidatedByName() {
    CircuitBreaker.Builder b = CircuitBreaker.builder();
    assertThatThrownBy(() -> b.countWindow(0)).hasMessage("countWindow calls must be at least 1, was 0");
    assertThatThrownBy(() -> b.minimumCalls(-1)).hasMessage("minimumCalls must be at least 1, was -1");
    assertThatThrownBy(() -> b.trialCalls(0)).hasMessage("trialCalls must be at least 1, was 0");
    assertThatThrownBy(() -> b.failureRateThreshold(0))
        .hasMessage("failureRateThreshold must be in (0, 100] percent, was 0.0");
    assertThatThrownBy(() -> b.failureRateThreshold(Double.NaN))
        .hasMessage("failureRateThreshold must be in (0, 100] percent, was NaN");
    assertThatThrownBy(() -> b.failureRateThreshold(100.5))
        .hasMessage("failureRateThreshold must be in (0, 100] percent, was 100.5");
    assertThatThrownBy(() -> b.waitInOpen(Duration.ofSeconds(-1)))
        .hasMessage("waitInOpen must not be negative, was PT-1S");
    assertThatThrownBy(() -> b.waitInOpen((Duration) null)).hasMessage("waitInOpen must not be null");
    assertThatThrownBy(() -> b.waitInOpen((Backoff) null)).hasMessage("waitInOpen backoff must not be null");
    assertThatThrownBy(() -> b.timeWindow(Duration.ZERO, 1)).hasMessage("timeWindow duration must be positive, was PT0S");
    assertThatThrownBy(() -> b.timeWindow(Duration.ofSeconds(1), 0))
        .hasMessage("timeWindow buckets must be at least 1, was 0");
    assertThatThrownBy(() -> b.timeWindow(Duration.ofMillis(10), 20))
        .hasMessage("timeWindow buckets must be at least 1 ms each, was PT0.01S in 20 buckets");
    assertThatThrownBy(() -> b.name(" ")).hasMessage("name must not be blank, was ' '");
    assertThatThrownBy(() -> b.ignoring((FailureClass) null)).hasMessage("ignoring class must not be null");
    assertThatThrownBy(() -> b.clock(null)).hasMessage("clock must not be null");
    assertThatThrownBy(() -> b.build().tryAcquire().onFailure(null)).hasMessage("failureClass must not be null");
  }

  /** Many threads race for trial permits that are never completed: at most K are ever out at once. */
  @Test
  void halfOpenNeverLetsMoreThanKTrialsOutAtOnce() throws Exception {
    int trials = 3;
    CircuitBreaker breaker = CircuitBreaker.builder().clock(now::get).countWindow(1).minimumCalls(1)
        .trialCalls(trials).build();
    fail(breaker, 1);
    now.addAndGet(60 * SECOND);
    int threads = 8;
    int rounds = 20_000;
    AtomicInteger out = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger granted = new AtomicInteger();
    CyclicBarrier start = new CyclicBarrier(threads);
    CountDownLatch done = new CountDownLatch(threads);
    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      new Thread(() -> {
        try {
          start.await();
          for (int i = 0; i < rounds; i++) {
            CircuitBreaker.Permit permit = breaker.tryAcquire();
            if (permit != null) {
              granted.incrementAndGet();
              most.accumulateAndGet(out.incrementAndGet(), Math::max);
              Thread.onSpinWait();
              out.decrementAndGet();
              permit.release();
            }
          }
        } catch (Throwable e) {
          errors.add(e);
        } finally {
          done.countDown();
        }
      }).start();
    }
    done.await();
    assertThat(errors).isEmpty();
    assertThat(most.get()).isBetween(1, trials);
    assertThat(granted.get()).as("permits were given back and granted again").isGreaterThan(trials);
    assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
  }

  /** Many threads report failures at once: the breaker opens exactly once, and says so once. */
  @Test
  void concurrentFailuresOpenItOnce() throws Exception {
    AtomicInteger opened = new AtomicInteger();
    CircuitBreaker breaker = CircuitBreaker.builder().clock(now::get).countWindow(50).minimumCalls(50)
        .listener((b, from, to) -> opened.incrementAndGet()).build();
    int threads = 8;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        for (int i = 0; i < 1_000; i++) {
          CircuitBreaker.Permit permit = breaker.tryAcquire();
          if (permit != null) {
            permit.onFailure(FailureClass.TRANSIENT);
          }
        }
      });
      running.add(thread);
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    assertThat(breaker.state()).isEqualTo(State.OPEN);
    assertThat(opened.get()).isEqualTo(1);
    assertThat(breaker.metrics().openings()).isEqualTo(1);
    assertThat(breaker.metrics().refusedCalls()).isPositive();
  }
}
