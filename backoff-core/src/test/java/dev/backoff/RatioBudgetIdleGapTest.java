package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Expired amounts never count again, whatever the idle gap (the reviewer's reproduction and its relatives). */
class RatioBudgetIdleGapTest {
  private static final long MILLISECOND = 1_000_000L;

  /**
   * The reviewer's case: a 10 ms window (1 ms slots), 5 deposits of one retry each, then an idle gap of
   * exactly 5 x 2^23 slots (11.65 h), the period after which a 22-bit slot epoch and the slot index both
   * repeat. The deposits expired long ago: the level is the floor (0) and no retry is granted.
   */
  @Test
  void reviewersReproductionDepositsDoNotComeBackAfterFiveTimesTwoToTheTwentyThreeSlots() {
    AtomicLong time = new AtomicLong();
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(1.0, 0, Duration.ofMillis(10), time::get);
    for (int i = 0; i < 5; i++) {
      budget.onCall();
    }
    assertThat(budget.level()).isEqualTo(5.0);
    time.addAndGet(5L * (1L << 23) * MILLISECOND); // 11.65 hours
    assertThat(budget.level()).isEqualTo(0.0);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    assertThat(budget.level()).isEqualTo(0.0);
    budget.onCall(); // a fresh deposit is counted once, alone
    assertThat(budget.level()).isEqualTo(1.0);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
  }

  /**
   * Gaps (in 1 ms slots) around the old design's blind spots: 2^21 and beyond (where a modular "is older"
   * comparison turns), multiples of 2^22 and of 5 x 2^23, each plus a few slots so that any slot of the ring
   * can be the one that lines up, and gaps of years to the longest a clock difference can express.
   */
  @ParameterizedTest
  @ValueSource(longs = {10, 11, 2_097_152, 2_097_155, 4_194_304, 4_194_309, 41_943_040, 41_943_043, 41_943_049,
      83_886_080, 125_829_127, 3_155_760_000_000L, 9_223_372_036_853L})
  void afterAnyGapOfAWholeWindowOrMoreOnlyTheFloorRemains(long gapSlots) {
    AtomicLong time = new AtomicLong(Long.MAX_VALUE - 5 * MILLISECOND); // wraps during the gap
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(1.0, 100, Duration.ofMillis(10), time::get);
    // Deposits and withdrawals spread over the whole ring: slot k gets k + 1 calls and, from slot 5 on, retries.
    for (int slot = 0; slot < 10; slot++) {
      for (int call = 0; call <= slot; call++) {
        budget.onCall();
      }
      if (slot >= 5) {
        assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
      }
      time.addAndGet(MILLISECOND);
    }
    // Floor 100/s over 10 ms = 1 retry; deposits 55 of which the first slot's 1 has just expired; 5 withdrawals.
    assertThat(budget.level()).isEqualTo(1.0 + 54 - 5);
    time.addAndGet((gapSlots - 1) * MILLISECOND); // the last slot written is now gapSlots slots back
    assertThat(budget.level()).isEqualTo(1.0);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue(); // the floor's one retry
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    assertThat(budget.level()).isEqualTo(0.0);
    budget.onCall();
    assertThat(budget.level()).isEqualTo(1.0);
  }
}
