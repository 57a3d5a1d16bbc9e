package dev.backoff.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The planner's small value classes are records: equal when their values are, with the accessors they had. */
class ValueRecordsTest {
  @Test
  void positionsWithTheSameValuesAreEqual() {
    GeometricSchedule schedule = GeometricSchedule.of(Duration.ofSeconds(1), 1.1);
    Position position = Solver.positionAt(schedule, Duration.ofSeconds(1000));
    assertThat(Position.class.isRecord()).isTrue();
    assertThat(Solver.positionAt(schedule, Duration.ofSeconds(1000))).isEqualTo(position)
        .hasSameHashCodeAs(position);
    assertThat(new Position(position.elapsedSeconds(), position.retry(), position.retryElapsedSeconds(),
        position.previousDelaySeconds(), position.nextDelaySeconds())).isEqualTo(position);
    assertThat(position.nextRetryElapsedSeconds())
        .isEqualTo(position.retryElapsedSeconds() + position.nextDelaySeconds());
  }

  @Test
  void comparisonsWithTheSameValuesAreEqual() {
    RetryComparison comparison = Solver.compareRetries(Duration.ofSeconds(1), 1.1, 2, Duration.ofSeconds(1000));
    assertThat(RetryComparison.class.isRecord()).isTrue();
    assertThat(Solver.compareRetries(Duration.ofSeconds(1), 1.1, 2, Duration.ofSeconds(1000)))
        .isEqualTo(comparison).hasSameHashCodeAs(comparison);
    assertThat(comparison.ratio()).isPresent();
  }

  @Test
  void scheduleRowsAreRecordsAndRefuseNullDistributions() {
    assertThat(ScheduleRow.class.isRecord()).isTrue();
    Distribution one = Distribution.exactly(1);
    assertThat(new ScheduleRow(1, one, one)).isEqualTo(new ScheduleRow(1, one, one));
    assertThatThrownBy(() -> new ScheduleRow(1, null, one)).isInstanceOf(NullPointerException.class)
        .hasMessage("delay");
  }
}
