package dev.backoff.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SolverTest {
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);

  @Test
  void intervalQuestionOfTheSeed() {
    MultiplierSolution solution =
        Solver.multiplierForInterval(ONE_SECOND, Duration.ofSeconds(1000), Duration.ofSeconds(100));
    assertThat(solution.multiplier()).isCloseTo(1.099, within(1e-12));
    assertThat(solution.estimate()).hasValueCloseTo(1.1, within(1e-12));
  }

  @Test
  void intervalQuestionRoundTripsThroughTheClosedForm() {
    MultiplierSolution solution =
        Solver.multiplierForInterval(ONE_SECOND, Duration.ofSeconds(1023), Duration.ofSeconds(1024));
    assertThat(solution.multiplier()).isCloseTo(2, within(1e-12));
    assertThat(GeometricSchedule.of(ONE_SECOND, solution.multiplier()).nextDelaySeconds(1023))
        .isCloseTo(1024, within(1e-9));
  }

  @Test
  void intervalBelowInitialIsUnsolvable() {
    assertThatThrownBy(() -> Solver.multiplierForInterval(Duration.ofSeconds(2), Duration.ofSeconds(10), ONE_SECOND))
        .isInstanceOf(UnsolvableException.class).hasMessageContaining("shorter than the initial delay");
  }

  @Test
  void deadlineQuestion() {
    MultiplierSolution solution = Solver.multiplierForDeadline(ONE_SECOND, 10, Duration.ofSeconds(1023));
    assertThat(solution.multiplier()).isCloseTo(2, within(1e-12));
    assertThat(solution.estimate()).isEmpty();
    MultiplierSolution five = Solver.multiplierForDeadline(ONE_SECOND, 5, Duration.ofSeconds(60));
    assertThat(GeometricSchedule.of(ONE_SECOND, five.multiplier()).elapsedSeconds(5)).isCloseTo(60, within(1e-9));
    assertThat(Solver.multiplierForDeadline(ONE_SECOND, 5, Duration.ofSeconds(5)).multiplier()).isEqualTo(1);
  }

  @Test
  void unmeetableDeadlineSaysWhy() {
    assertThatThrownBy(() -> Solver.multiplierForDeadline(ONE_SECOND, 10, Duration.ofSeconds(9)))
        .isInstanceOf(UnsolvableException.class).hasMessageContaining("10 retries need at least 10 s");
    assertThatThrownBy(() -> Solver.multiplierForDeadline(ONE_SECOND, 1, Duration.ofSeconds(9)))
        .isInstanceOf(UnsolvableException.class).hasMessageContaining("whatever the multiplier");
    assertThatThrownBy(() -> Solver.multiplierForDeadline(ONE_SECOND, 0, Duration.ofSeconds(9)))
        .hasMessageContaining("retries");
  }

  @Test
  void positionAtTheSeedsTimes() {
    Position exact = Solver.positionAt(GeometricSchedule.of(ONE_SECOND, 2), Duration.ofSeconds(1023));
    assertThat(exact.retry()).isEqualTo(10);
    assertThat(exact.previousDelaySeconds()).isCloseTo(512, within(1e-9));
    assertThat(exact.nextDelaySeconds()).isCloseTo(1024, within(1e-9));
    Position between = Solver.positionAt(GeometricSchedule.of(ONE_SECOND, 2), Duration.ofSeconds(1000));
    assertThat(between.retry()).isEqualTo(9);
    assertThat(between.retryElapsedSeconds()).isCloseTo(511, within(1e-9));
    assertThat(between.previousDelaySeconds()).isCloseTo(256, within(1e-9));
    assertThat(between.nextDelaySeconds()).isCloseTo(512, within(1e-9));
    assertThat(between.nextRetryElapsedSeconds()).isCloseTo(1023, within(1e-9));
    Position slow = Solver.positionAt(GeometricSchedule.of(ONE_SECOND, 1.1), Duration.ofSeconds(1000));
    assertThat(slow.retry()).isEqualTo(48);
    assertThat(GeometricScheduleTest.round3(slow.previousDelaySeconds())).isEqualTo(88.197);
    assertThat(GeometricScheduleTest.round3(slow.nextDelaySeconds())).isEqualTo(97.017);
    Position start = Solver.positionAt(GeometricSchedule.of(ONE_SECOND, 2), Duration.ofMillis(500));
    assertThat(start.retry()).isZero();
    assertThat(start.previousDelaySeconds()).isZero();
    assertThat(start.nextDelaySeconds()).isEqualTo(1);
  }

  @Test
  void compareRetriesAsTheSeed() {
    RetryComparison comparison = Solver.compareRetries(ONE_SECOND, 2, 1.1, Duration.ofSeconds(1000));
    assertThat(comparison.retries()).isEqualTo(9);
    assertThat(comparison.compareRetries()).isEqualTo(48);
    assertThat(comparison.ratio()).hasValueCloseTo(48 / 9.0, within(1e-12)); // "about 5 in practice"
    assertThat(comparison.estimatedRatio()).hasValueCloseTo(Math.log(2) / Math.log(1.1), within(1e-12)); // ≈ 7.27
    RetryComparison fixed = Solver.compareRetries(ONE_SECOND, 2, 1, Duration.ofSeconds(10));
    assertThat(fixed.compareRetries()).isEqualTo(10);
    assertThat(fixed.estimatedRatio()).isEmpty();
    RetryComparison none = Solver.compareRetries(Duration.ofSeconds(20), 2, 1.5, Duration.ofSeconds(10));
    assertThat(none.ratio()).isEmpty();
  }
}
