package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.ConcurrencyLimiter.AttemptKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The concurrency limiter alone: each algorithm's limit trajectory for explicit samples (exact values), the
 * priority rule, the clock it times attempts with, its builder's validation, and its reuse of permits under
 * contention.
 */
class ConcurrencyLimiterTest {
  private static final long MS = 1_000_000L;

  @Test
  void aimdAddsOneAfterALimitsWorthOfSuccessesAndMultipliesOnADrop() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.aimd().initialLimit(4).bounds(1, 6)
        .backoffRatio(0.5).latencyThreshold(Duration.ofMillis(100)).build();
    List<Integer> limits = new ArrayList<>();
    for (int i = 0; i < 4; i++) { // 4 successes with the limit used (4 in flight of 4): +1 after the 4th
      limits.add(limiter.update(0, 10 * MS, 4, false));
    }
    limits.add(limiter.update(0, 10 * MS, 2, false)); // 2 in flight of 5: lightly used, not counted
    for (int i = 0; i < 5; i++) { // 3 of 5 in flight: used; +1 after the 5th
      limits.add(limiter.update(0, 10 * MS, 3, false));
    }
    for (int i = 0; i < 6; i++) { // at the maximum, 6
      limits.add(limiter.update(0, 10 * MS, 6, false));
    }
    limits.add(limiter.update(0, 10 * MS, 6, true)); // a drop: floor(6 × 0.5)
    limits.add(limiter.update(0, 150 * MS, 3, false)); // slower than the threshold: a drop, floor(3 × 0.5)
    limits.add(limiter.update(0, 10 * MS, 1, true)); // floor(1 × 0.5) = 0, held at the minimum

    assertThat(limits).containsExactly(4, 4, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 3, 1, 1);
    assertThat(limiter.limit()).isEqualTo(1);
  }

  @Test
  void aimdForgetsTheSuccessesCountedBeforeADrop() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.aimd().initialLimit(4).backoffRatio(0.5).build();
    limiter.update(0, MS, 4, false);
    limiter.update(0, MS, 4, false);
    limiter.update(0, MS, 4, false);
    assertThat(limiter.update(0, MS, 4, true)).isEqualTo(2);
    assertThat(limiter.update(0, MS, 2, false)).as("1 of the 2 successes a limit of 2 needs").isEqualTo(2);
    assertThat(limiter.update(0, MS, 2, false)).isEqualTo(3);
  }

  @Test
  void gradientFollowsMinRttOverRttPlusTheQueueAllowance() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.gradient().initialLimit(20).bounds(5, 22)
        .smoothing(0.5).queueAllowance(4).minRttWindow(Duration.ofSeconds(10)).backoffRatio(0.5).build();
    List<Integer> limits = new ArrayList<>();
    // minRtt 100 ms, rtt 100 ms: target 20 × 1 + 4 = 24; 20 × 0.5 + 24 × 0.5 = 22 (the maximum)
    limits.add(limiter.update(0, 100 * MS, 20, false));
    // rtt 200 ms: target 22 × 0.5 + 4 = 15; 11 + 7.5 = 18.5
    limits.add(limiter.update(1_000 * MS, 200 * MS, 20, false));
    // 5 in flight of 18.5 (under half): no growth toward 22.5
    limits.add(limiter.update(2_000 * MS, 100 * MS, 5, false));
    // rtt 400 ms: the ratio 0.25 is held at 0.5: target 9.25 + 4 = 13.25; 9.25 + 6.625 = 15.875 (shrinking is
    // allowed however lightly the limit is used)
    limits.add(limiter.update(3_000 * MS, 400 * MS, 5, false));
    // a drop: 15.875 × 0.5 = 7.9375
    limits.add(limiter.update(4_000 * MS, 400 * MS, 5, true));
    // 11 s: the 10 s window has ended, so 300 ms is the new minimum: target 7.9375 + 4; 3.96875 + 5.96875 = 9.9375
    limits.add(limiter.update(11_000 * MS, 300 * MS, 7, false));
    // 150 ms is a new minimum in the window: target 9.9375 + 4; 4.96875 + 6.96875 = 11.9375
    limits.add(limiter.update(12_000 * MS, 150 * MS, 9, false));
    // two drops: 5.96875, then 2.98 held at the minimum, 5
    limits.add(limiter.update(13_000 * MS, 150 * MS, 9, true));
    limits.add(limiter.update(14_000 * MS, 150 * MS, 9, true));

    assertThat(limits).containsExactly(22, 18, 18, 15, 7, 9, 11, 5, 5);
  }

  @Test
  void aFixedLimitNeverMovesAndReadsNoClock() {
    AtomicInteger reads = new AtomicInteger();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(3).clock(() -> reads.incrementAndGet()).build();
    for (int i = 0; i < 10; i++) {
      ConcurrencyLimiter.Permit permit = limiter.tryAcquire(AttemptKind.FIRST);
      if (i % 2 == 0) {
        permit.onDropped();
      } else {
        permit.onSuccess();
      }
    }
    assertThat(limiter.limit()).isEqualTo(3);
    assertThat(reads).hasValue(0);
  }

  @Test
  void attemptsAreTimedWithTheLimitersClock() {
    AtomicLong now = new AtomicLong(-7_000 * MS); // anywhere: only differences matter
    ConcurrencyLimiter limiter = ConcurrencyLimiter.aimd().initialLimit(2).backoffRatio(0.5)
        .latencyThreshold(Duration.ofMillis(100)).clock(now::get).build();
    ConcurrencyLimiter.Permit slow = limiter.tryAcquire(AttemptKind.FIRST);
    now.addAndGet(150 * MS);
    slow.onSuccess(); // 150 ms > 100 ms: a drop
    assertThat(limiter.limit()).isEqualTo(1);

    ConcurrencyLimiter.Permit fast = limiter.tryAcquire(AttemptKind.FIRST);
    now.addAndGet(100 * MS);
    fast.onSuccess(); // 100 ms is within the threshold: one success of the one a limit of 1 needs
    assertThat(limiter.limit()).isEqualTo(2);
  }

  @Test
  void retriesAndHedgesTakeSlotsOnlyWithinTheRetryShare() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(10).retryShare(0.8).build();
    List<ConcurrencyLimiter.Permit> held = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      held.add(limiter.tryAcquire(AttemptKind.RETRY));
    }
    held.add(limiter.tryAcquire(AttemptKind.HEDGE)); // the 8th: 7 in flight < floor(10 × 0.8)
    assertThat(held).doesNotContainNull();
    assertThat(limiter.tryAcquire(AttemptKind.RETRY)).as("a retry at 8 in flight").isNull();
    assertThat(limiter.tryAcquire(AttemptKind.HEDGE)).as("a hedge at 8 in flight").isNull();
    held.add(limiter.tryAcquire(AttemptKind.FIRST));
    held.add(limiter.tryAcquire(AttemptKind.FIRST));
    assertThat(held).doesNotContainNull().hasSize(10);
    assertThat(limiter.tryAcquire(AttemptKind.FIRST)).as("a first attempt at the limit").isNull();
    assertThat(limiter.inFlight()).isEqualTo(10);
    assertThat(limiter.refusedFirstAttempts()).isEqualTo(1);
    assertThat(limiter.refusedRetriesAndHedges()).isEqualTo(2);

    held.forEach(ConcurrencyLimiter.Permit::release);
    assertThat(limiter.inFlight()).isZero();
  }

  @Test
  void aLoneCallMayAlwaysRetry() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).retryShare(0.1).build();
    ConcurrencyLimiter.Permit retry = limiter.tryAcquire(AttemptKind.RETRY);
    assertThat(retry).as("floor(1 × 0.1) = 0, but at least one slot").isNotNull();
    assertThat(ConcurrencyLimiter.retryLimit(100, 0.8)).isEqualTo(80);
    assertThat(ConcurrencyLimiter.retryLimit(2, 0.3)).isEqualTo(1);
    retry.release();
  }

  @Test
  void aSecondCompletionOfTheSamePermitChangesNothing() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.aimd().initialLimit(2).backoffRatio(0.5).build();
    ConcurrencyLimiter.Permit permit = limiter.tryAcquire(AttemptKind.FIRST);
    permit.onDropped();
    permit.onDropped();
    permit.release();
    assertThat(limiter.inFlight()).isZero();
    assertThat(limiter.limit()).as("one drop: floor(2 × 0.5)").isEqualTo(1);
  }

  @Test
  void theBuilderNamesEveryBadParameter() {
    assertThatThrownBy(() -> ConcurrencyLimiter.fixed(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must be within [1, 65536], was 0");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().bounds(1, 65_537))
        .hasMessage("maxLimit must be within [1, 65536], was 65537");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().bounds(0, 5)).hasMessage("minLimit must be within [1, 65536], was 0");
    assertThatThrownBy(() -> ConcurrencyLimiter.gradient().initialLimit(-1))
        .hasMessage("initialLimit must be within [1, 65536], was -1");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().backoffRatio(1.0))
        .hasMessage("backoffRatio must be within (0, 1), was 1.0");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().backoffRatio(Double.NaN))
        .hasMessage("backoffRatio must be within (0, 1), was NaN");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().retryShare(0)).hasMessage("retryShare must be within (0, 1], was 0.0");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().retryShare(1.5)).hasMessage("retryShare must be within (0, 1], was 1.5");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().latencyThreshold(Duration.ZERO))
        .hasMessage("latencyThreshold must be positive, was PT0S");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().latencyThreshold(null))
        .isInstanceOf(NullPointerException.class).hasMessage("latencyThreshold must not be null");
    assertThatThrownBy(() -> ConcurrencyLimiter.gradient().smoothing(0)).hasMessage("smoothing must be within (0, 1], was 0.0");
    assertThatThrownBy(() -> ConcurrencyLimiter.gradient().queueAllowance(-1))
        .hasMessage("queueAllowance must be within [0, 65536], was -1.0");
    assertThatThrownBy(() -> ConcurrencyLimiter.gradient().queueAllowance(Double.POSITIVE_INFINITY))
        .hasMessage("queueAllowance must be within [0, 65536], was Infinity");
    assertThatThrownBy(() -> ConcurrencyLimiter.gradient().minRttWindow(Duration.ofSeconds(-1)))
        .hasMessage("minRttWindow must be positive, was PT-1S");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().name(" ")).hasMessage("name must not be blank, was ' '");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().clock(null)).hasMessage("clock must not be null");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().overloadOn(FailureClass.THROTTLED, null))
        .hasMessage("overloadOn classes[1] must not be null");
    assertThatThrownBy(() -> ConcurrencyLimiter.fixed(2).build().tryAcquire(null)).hasMessage("kind must not be null");
  }

  @Test
  void theBuilderRefusesParametersOfAnotherAlgorithmAndBoundsOutOfOrder() {
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().smoothing(0.5)).isInstanceOf(IllegalStateException.class)
        .hasMessage("smoothing does not apply to a aimd() limiter");
    assertThatThrownBy(() -> ConcurrencyLimiter.gradient().latencyThreshold(Duration.ofSeconds(1)))
        .hasMessage("latencyThreshold does not apply to a gradient() limiter");
    assertThatThrownBy(() -> ConcurrencyLimiter.fixed(3).bounds(1, 5))
        .hasMessage("bounds does not apply to a fixed(n) limiter");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().bounds(10, 5))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("minLimit (10) must not exceed maxLimit (5)");
    assertThatThrownBy(() -> ConcurrencyLimiter.aimd().bounds(30, 1000).build()) // the default initial limit is 20
        .hasMessage("initialLimit (20) must be within [minLimit 30, maxLimit 1000]");
    assertThat(ConcurrencyLimiter.aimd().bounds(30, 1000).initialLimit(30).build().limit()).isEqualTo(30);
  }

  @Test
  void describesItself() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.gradient().name("users").build();
    assertThat(limiter).hasToString("ConcurrencyLimiter[users: gradient, smoothing 0.2, queue allowance 4.0, "
        + "min-RTT window 30s, backoff ratio 0.9, limit 20 in [1, 1000], 0 in flight, retry share 0.8]");
    assertThat(ConcurrencyLimiter.aimd().build().toString()).contains("aimd, backoff ratio 0.9, latency threshold 5s");
    assertThat(limiter.refusal()).hasMessage("concurrency limiter 'users' refused the first attempt: 0 attempts in "
        + "flight, limit 20");
  }

  @Test
  void contendedThreadsNeverShareASlotNorExceedTheLimit() throws Exception {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(4).build();
    Set<ConcurrencyLimiter.Permit> held = ConcurrentHashMap.newKeySet();
    AtomicInteger shared = new AtomicInteger();
    AtomicInteger mostInFlight = new AtomicInteger();
    Callable<Integer> worker = () -> {
      int granted = 0;
      for (int i = 0; i < 20_000; i++) {
        ConcurrencyLimiter.Permit permit = limiter.tryAcquire(i % 3 == 0 ? AttemptKind.RETRY : AttemptKind.FIRST);
        if (permit != null) {
          granted++;
          shared.addAndGet(held.add(permit) ? 0 : 1); // 1: another thread holds this very permit
          mostInFlight.accumulateAndGet(limiter.inFlight(), Math::max);
          held.remove(permit);
          permit.onSuccess();
        }
      }
      return granted;
    };
    ExecutorService pool = Executors.newFixedThreadPool(6);
    int granted = 0;
    try {
      for (Future<Integer> done : pool.invokeAll(Collections.nCopies(6, worker))) {
        granted += done.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(granted).isPositive();
    assertThat(shared).hasValue(0);
    assertThat(mostInFlight.get()).isBetween(1, 4);
    assertThat(limiter.inFlight()).isZero();
  }
}
