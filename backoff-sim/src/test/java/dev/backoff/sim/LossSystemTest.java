package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Erlang B against values worked by hand and against the closed form summed directly; the send rate for a
 * number of rejections against its own inverse; and the numbers docs/storm-protection.md quotes for the steady
 * overload's server with no queue (10 slots of 100 ms, plain retries drawing 677.1 429s a second).
 */
class LossSystemTest {

  @Test
  void blockingWorkedByHand() {
    assertThat(LossSystem.blocking(1, 1)).as("a / (1 + a)").isEqualTo(0.5);
    assertThat(LossSystem.blocking(1, 3)).isEqualTo(0.75);
    // (1/2) / (1 + 1 + 1/2)
    assertThat(LossSystem.blocking(2, 1)).isCloseTo(0.2, within(1e-15));
    // (8/6) / (1 + 2 + 2 + 8/6) = (4/3) / (19/3)
    assertThat(LossSystem.blocking(3, 2)).isCloseTo(4.0 / 19, within(1e-15));
    assertThat(LossSystem.blocking(10, 0)).isZero();
  }

  @Test
  void blockingIsTheClosedForm() {
    for (int slots : new int[] {1, 2, 5, 10, 20, 50}) {
      for (double a : new double[] {0.1, 1, 5, 10, 15.69, 40}) {
        double term = 1;
        double sum = 1;
        for (int k = 1; k <= slots; k++) {
          term *= a / k;
          sum += term;
        }
        assertThat(LossSystem.blocking(slots, a)).as("B(%d, %s)", slots, a)
            .isCloseTo(term / sum, within(1e-12 * (term / sum)));
      }
    }
    // The textbook table: 10 lines offered 10 erlangs lose 21.46% of the calls.
    assertThat(LossSystem.blocking(10, 10)).isCloseTo(0.2146, within(0.00005));
  }

  @Test
  void theRateForRejectionsIsTheInverseOfTheRejections() {
    double previous = 0;
    for (double target : new double[] {0, 0.7, 5, 67.71, 500}) {
      double rate = LossSystem.rateForRejections(10, 0.1, target);
      assertThat(LossSystem.rejections(10, 0.1, rate)).as("rejections at %s/s", rate)
          .isCloseTo(target, within(1e-9 * Math.max(1, target)));
      assertThat(rate).as("more rejections need a higher rate").isGreaterThanOrEqualTo(previous);
      previous = rate;
    }
    assertThat(LossSystem.rateForRejections(10, 0.1, 0)).isZero();
  }

  /**
   * docs/storm-protection.md: at 10% of plain retries' 677.1 429s a second, a Poisson sender may send 156.9/s,
   * of which 43.2% are rejected, for 89.2 successes a second: 89.2% of the 100/s capacity. At the adaptive
   * limiter's 74.8 successes a second (before its reservations were spaced) it would send 89.8/s and draw 15.0
   * 429s a second; at its 0.8 429s a second (after) it gets 48.1 successes a second, and for the limiter's
   * 91.5 it would send 184.8/s and draw 93.3 429s a second, 13.8% of plain retries'.
   */
  @Test
  void theSteadyOverloadWithNoQueue() {
    double rate = LossSystem.rateForRejections(10, 0.1, 0.1 * 677.1);
    assertThat(rate).isCloseTo(156.9, within(0.05));
    assertThat(LossSystem.blocking(10, rate * 0.1)).isCloseTo(0.432, within(0.0005));
    assertThat(LossSystem.goodput(10, 0.1, rate)).isCloseTo(89.2, within(0.05));
    double sameGoodput = bisectGoodput(74.8);
    assertThat(sameGoodput).isCloseTo(89.8, within(0.05));
    assertThat(LossSystem.rejections(10, 0.1, sameGoodput)).isCloseTo(15.0, within(0.05));
    assertThat(LossSystem.goodput(10, 0.1, 200)).as("all of the offered 200/s").isCloseTo(92.4, within(0.05));
    assertThat(LossSystem.goodput(10, 0.1, LossSystem.rateForRejections(10, 0.1, 0.8))).isCloseTo(48.1, within(0.05));
    double limiterGoodput = bisectGoodput(91.5);
    assertThat(limiterGoodput).isCloseTo(184.8, within(0.05));
    assertThat(LossSystem.rejections(10, 0.1, limiterGoodput)).isCloseTo(93.3, within(0.05));
    assertThat(LossSystem.rejections(10, 0.1, limiterGoodput) / 677.1).isCloseTo(0.138, within(0.0005));
  }

  /**
   * The lab's runs of the same server (docs/storm-protection.md, "The limiter against that bound"): for each
   * run's goodput, the rate and the 429s a random sender would need for it. The waiting limiter's three runs
   * on a busy machine (65.6, 51.7, 53.6 req/s) drew 1.1, 2.0 and 1.1 429s a second where a random sender draws
   * 6.2, 1.3 and 1.7 for the same goodput; its two on a quiet one (84.4, 84.9 req/s) drew 0.6 against 38.7 and
   * 40.9; the concurrency limiter's (84.4 busy; 88.4, 88.6 quiet) drew 42.7, 48.2, 48.8 against 38.7, 61.2, 62.7.
   */
  @Test
  void theLabsRunsAgainstTheRandomSendersCurve() {
    double[][] runs = {{65.6, 71.76, 6.17}, {51.7, 53.00, 1.30}, {53.6, 55.25, 1.65}, {84.4, 123.14, 38.74},
        {84.9, 125.77, 40.88}, {88.4, 149.58, 61.18}, {88.6, 151.32, 62.72}};
    for (double[] run : runs) {
      double rate = bisectGoodput(run[0]);
      assertThat(rate).as("the rate for %s/s", run[0]).isCloseTo(run[1], within(0.01));
      assertThat(LossSystem.rejections(10, 0.1, rate)).as("its 429s").isCloseTo(run[2], within(0.01));
    }
  }

  private static double bisectGoodput(double goodput) {
    double low = 0;
    double high = 1_000;
    for (int i = 0; i < 200; i++) {
      double middle = (low + high) / 2;
      if (LossSystem.goodput(10, 0.1, middle) < goodput) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return low;
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> LossSystem.blocking(0, 1)).hasMessage("slots must be at least 1, was 0");
    assertThatThrownBy(() -> LossSystem.blocking(1, -1))
        .hasMessage("offeredErlangs must be non-negative and finite, was -1.0");
    assertThatThrownBy(() -> LossSystem.blocking(1, Double.NaN))
        .hasMessage("offeredErlangs must be non-negative and finite, was NaN");
    assertThatThrownBy(() -> LossSystem.goodput(1, 0, 1))
        .hasMessage("meanServiceSeconds must be positive and finite, was 0.0");
    assertThatThrownBy(() -> LossSystem.rejections(1, 0.1, Double.POSITIVE_INFINITY))
        .hasMessage("rate must be non-negative and finite, was Infinity");
    assertThatThrownBy(() -> LossSystem.rateForRejections(1, 0.1, -2))
        .hasMessage("rejectionsPerSecond must be non-negative and finite, was -2.0");
  }
}
