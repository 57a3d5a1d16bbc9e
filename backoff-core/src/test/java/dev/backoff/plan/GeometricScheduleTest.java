package dev.backoff.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GeometricScheduleTest {
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);

  @Test
  void seedTableWithMultiplierTwo() {
    GeometricSchedule schedule = GeometricSchedule.of(ONE_SECOND, 2);
    assertThat(schedule.elapsedSeconds(10)).isCloseTo(1023, within(1e-9));
    assertThat(schedule.delaySeconds(10)).isCloseTo(512, within(1e-9));
    assertThat(schedule.delaySeconds(11)).isCloseTo(1024, within(1e-9));
    assertThat(schedule.elapsedSeconds(11)).isCloseTo(2047, within(1e-9));
    // t_(n+1) = a + (r − 1)·T_n and n = log_r(1 + (r − 1)·T_n/a), the seed's check.
    assertThat(schedule.nextDelaySeconds(1023)).isCloseTo(1024, within(1e-9));
    assertThat(schedule.retryAt(1023)).isCloseTo(10, within(1e-9));
    assertThat(schedule.retriesBy(1023)).isEqualTo(10);
    assertThat(schedule.retriesBy(1022.9)).isEqualTo(9);
    assertThat(schedule.elapsedSeconds(0)).isZero();
  }

  @Test
  void seedTableWithMultiplierOnePointOne() {
    GeometricSchedule schedule = GeometricSchedule.of(ONE_SECOND, 1.1);
    assertThat(schedule.delaySeconds(1)).isEqualTo(1.0);
    assertThat(schedule.elapsedSeconds(3)).isCloseTo(3.31, within(1e-12));
    assertThat(round3(schedule.delaySeconds(48))).isEqualTo(88.197);
    assertThat(round3(schedule.elapsedSeconds(48))).isEqualTo(960.172);
    assertThat(round3(schedule.delaySeconds(49))).isEqualTo(97.017);
    assertThat(round3(schedule.elapsedSeconds(49))).isEqualTo(1057.190);
    // The seed's remark: the sleep after T = 960.172 is about T/10, exactly a more.
    assertThat(schedule.nextDelaySeconds(schedule.elapsedSeconds(48)))
        .isCloseTo(1 + 0.1 * schedule.elapsedSeconds(48), within(1e-9));
    assertThat(schedule.retriesBy(1000)).isEqualTo(48);
    // The table rounds T_48 = 960.17233… down: 960.172 s is still before retry 48.
    assertThat(schedule.retriesBy(960.172)).isEqualTo(47);
    assertThat(schedule.retriesBy(960.173)).isEqualTo(48);
  }

  @Test
  void multiplierOneIsTheLinearLimit() {
    GeometricSchedule schedule = GeometricSchedule.of(Duration.ofMillis(500), 1);
    assertThat(schedule.elapsedSeconds(7)).isEqualTo(3.5);
    assertThat(schedule.delaySeconds(1_000_000)).isEqualTo(0.5);
    assertThat(schedule.retriesBy(3.4)).isEqualTo(6);
    assertThat(schedule.retryAt(3.5)).isEqualTo(7);
    assertThat(schedule.firstCappedRetry()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void capIsPiecewiseLinearAfterwards() {
    GeometricSchedule schedule = GeometricSchedule.of(ONE_SECOND, 2, Duration.ofSeconds(10));
    // 1, 2, 4, 8, then 10 for ever: retry 5 is the first at the cap.
    assertThat(schedule.firstCappedRetry()).isEqualTo(5);
    assertThat(schedule.delaySeconds(4)).isEqualTo(8);
    assertThat(schedule.delaySeconds(5)).isEqualTo(10);
    assertThat(schedule.elapsedSeconds(4)).isCloseTo(15, within(1e-12));
    assertThat(schedule.elapsedSeconds(7)).isCloseTo(45, within(1e-12));
    assertThat(schedule.retriesBy(44.9)).isEqualTo(6);
    assertThat(schedule.retriesBy(45)).isEqualTo(7);
    assertThat(schedule.retryAt(40)).isCloseTo(6.5, within(1e-12));
    assertThat(schedule.nextDelaySeconds(15)).isEqualTo(10);
    assertThat(schedule.nextDelaySeconds(7)).isCloseTo(8, within(1e-12));
  }

  @Test
  void capAtTheInitialDelayIsFixed() {
    GeometricSchedule schedule = GeometricSchedule.of(ONE_SECOND, 3, ONE_SECOND);
    assertThat(schedule.firstCappedRetry()).isEqualTo(1);
    assertThat(schedule.elapsedSeconds(5)).isEqualTo(5);
  }

  @Test
  void overflowIsRefusedNotInfinite() {
    GeometricSchedule schedule = GeometricSchedule.of(ONE_SECOND, 2);
    assertThatThrownBy(() -> schedule.elapsedSeconds(5000)).isInstanceOf(UnsolvableException.class)
        .hasMessageContaining("retry 5000");
    assertThatThrownBy(() -> schedule.delaySeconds(5000)).isInstanceOf(UnsolvableException.class);
    assertThat(GeometricSchedule.of(ONE_SECOND, 1.0000001).retriesBy(Double.MAX_VALUE / 2)).isPositive();
  }

  @Test
  void badArgumentsNameTheParameter() {
    assertThatThrownBy(() -> GeometricSchedule.of(Duration.ZERO, 2)).hasMessageContaining("initial");
    assertThatThrownBy(() -> GeometricSchedule.of(ONE_SECOND, 0.9)).hasMessageContaining("multiplier")
        .hasMessageContaining("0.9");
    assertThatThrownBy(() -> GeometricSchedule.of(ONE_SECOND, Double.NaN)).hasMessageContaining("multiplier");
    assertThatThrownBy(() -> GeometricSchedule.of(ONE_SECOND, 2, Duration.ofMillis(10)))
        .hasMessageContaining("cap");
    assertThatThrownBy(() -> GeometricSchedule.of(ONE_SECOND, 2).retriesBy(-1)).hasMessageContaining("-1");
    assertThatThrownBy(() -> GeometricSchedule.of(ONE_SECOND, 2).delaySeconds(0)).hasMessageContaining("retry");
  }

  static double round3(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
