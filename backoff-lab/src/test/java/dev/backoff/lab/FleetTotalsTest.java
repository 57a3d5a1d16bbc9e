package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The lab's counts are values: an interval's counts compare equal to the counts they should be. */
class FleetTotalsTest {
  @Test
  void anIntervalIsTheDifferenceOfTwoTotals() {
    FleetTotals earlier = new FleetTotals(10, 6, 3, 1, 4, 6, 5, 1);
    FleetTotals later = new FleetTotals(25, 15, 7, 3, 10, 15, 12, 2);
    assertThat(later.minus(earlier)).isEqualTo(new FleetTotals(15, 9, 4, 2, 6, 9, 7, 1));
    assertThat(later.minus(FleetTotals.ZERO)).isEqualTo(later);
  }

  @Test
  void samplesWithTheSameCountsAreEqual() {
    FleetTotals counts = new FleetTotals(3, 2, 1, 0, 1, 2, 2, 0);
    assertThat(new LabSample(4, counts, 30, 0.1, LabSample.ServerState.RUNNING))
        .isEqualTo(new LabSample(4, counts, 30, 0.1, LabSample.ServerState.RUNNING));
  }
}
