package dev.backoff.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.Preset;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduleTest {
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);
  private static final Duration UNBOUNDED = Duration.ofSeconds(Long.MAX_VALUE);

  @Test
  void deterministicScheduleReproducesTheSeedTable() {
    Schedule schedule = Schedule.of(Backoff.exponential(ONE_SECOND, 1.1, UNBOUNDED), 49);
    assertThat(schedule.method()).isEqualTo(Schedule.Method.EXACT);
    assertThat(schedule.samples()).isZero();
    List<ScheduleRow> rows = schedule.rows();
    assertThat(rows).hasSize(49);
    assertThat(rows.get(0).retry()).isEqualTo(1);
    assertThat(rows.get(0).delay().mean()).isEqualTo(1.0);
    assertThat(GeometricScheduleTest.round3(rows.get(47).delay().mean())).isEqualTo(88.197);
    assertThat(GeometricScheduleTest.round3(rows.get(47).elapsed().mean())).isEqualTo(960.172);
    assertThat(GeometricScheduleTest.round3(rows.get(48).delay().mean())).isEqualTo(97.017);
    assertThat(GeometricScheduleTest.round3(rows.get(48).elapsed().mean())).isEqualTo(1057.190);
    assertThat(rows.get(48).delay().isExact()).isTrue();
  }

  @Test
  void multiplierTwoToRetryEleven() {
    List<ScheduleRow> rows = Schedule.of(Backoff.exponential(ONE_SECOND, 2, UNBOUNDED), 11).rows();
    assertThat(rows.get(9).elapsed().mean()).isEqualTo(1023.0);
    assertThat(rows.get(10).delay().mean()).isEqualTo(1024.0);
  }

  @Test
  void fullJitterDelaysAreExactQuantilesOfTheSchedule() {
    Schedule schedule = Schedule.of(Backoff.exponential(ONE_SECOND, 2, Duration.ofSeconds(8), Jitter.full()), 5,
        2000, 7);
    assertThat(schedule.method()).isEqualTo(Schedule.Method.EXACT_DELAYS);
    assertThat(schedule.samples()).isEqualTo(2000);
    Distribution third = schedule.rows().get(2).delay(); // U(0, 4 s)
    assertThat(third.min()).isZero();
    assertThat(third.p5()).isCloseTo(0.2, within(1e-9));
    assertThat(third.median()).isCloseTo(2, within(1e-9));
    assertThat(third.mean()).isCloseTo(2, within(1e-6));
    assertThat(third.p95()).isCloseTo(3.8, within(1e-9));
    assertThat(third.max()).isCloseTo(4, within(1e-6));
    Distribution fifth = schedule.rows().get(4).delay(); // capped: U(0, 8 s)
    assertThat(fifth.median()).isCloseTo(4, within(1e-9));
    // Elapsed mean is the sum of means: (1 + 2 + 4 + 8 + 8)/2.
    Distribution elapsed = schedule.rows().get(4).elapsed();
    assertThat(elapsed.mean()).isCloseTo(11.5, within(1e-5));
    assertThat(elapsed.min()).isZero();
    assertThat(elapsed.max()).isCloseTo(23, within(1e-5));
    assertThat(elapsed.median()).isBetween(8.0, 15.0);
  }

  @Test
  void equalJitterMeanIsThreeQuarters() {
    Distribution delay = Schedule.of(Backoff.exponential(ONE_SECOND, 2, UNBOUNDED, Jitter.equal()), 3).rows().get(2)
        .delay();
    assertThat(delay.mean()).isCloseTo(3, within(1e-6));
    assertThat(delay.min()).isCloseTo(2, within(1e-9));
    assertThat(delay.median()).isCloseTo(3, within(1e-9));
  }

  @Test
  void decorrelatedIsMonteCarloAndSeeded() {
    Backoff decorrelated = Backoff.decorrelated(ONE_SECOND, Duration.ofSeconds(20));
    Schedule first = Schedule.of(decorrelated, 6, 3000, 42);
    Schedule again = Schedule.of(decorrelated, 6, 3000, 42);
    Schedule other = Schedule.of(decorrelated, 6, 3000, 43);
    assertThat(first.method()).isEqualTo(Schedule.Method.MONTE_CARLO);
    assertThat(first.rows().toString()).isEqualTo(again.rows().toString());
    assertThat(first.rows().toString()).isNotEqualTo(other.rows().toString());
    Distribution firstDelay = first.rows().get(0).delay(); // U(1 s, 3 s)
    assertThat(firstDelay.min()).isGreaterThanOrEqualTo(1);
    assertThat(firstDelay.max()).isLessThan(3);
    assertThat(firstDelay.mean()).isCloseTo(2, within(0.05));
    assertThat(first.describeMethod()).contains("3000 samples").contains("seed 42");
  }

  @Test
  void everyPresetHasASchedule() {
    for (Preset preset : Preset.values()) {
      Schedule schedule = Schedule.of(preset.backoff(), 12, 200, 1);
      assertThat(schedule.rows()).as(preset.id()).hasSize(12);
      for (ScheduleRow row : schedule.rows()) {
        assertThat(row.elapsed().min()).as(preset.id()).isGreaterThanOrEqualTo(row.delay().min());
      }
    }
    // Google Cloud: min(2^(n−1) s + U{0..1000} ms, 32 s): retry 3 lies in [4 s, 5 s].
    Distribution third = Schedule.of(Preset.GOOGLE_CLOUD.backoff(), 3).rows().get(2).delay();
    assertThat(third.min()).isEqualTo(4.0);
    assertThat(third.max()).isEqualTo(5.0);
  }

  @Test
  void hugeSchedulesSaturateInsteadOfOverflowing() {
    Schedule schedule = Schedule.of(Backoff.exponential(ONE_SECOND, 10, UNBOUNDED), 40);
    ScheduleRow last = schedule.rows().get(39);
    assertThat(last.elapsed().mean()).isEqualTo(Long.MAX_VALUE / 1e9);
  }

  @Test
  void badArgumentsAreNamed() {
    Backoff backoff = Backoff.fixed(ONE_SECOND);
    assertThatThrownBy(() -> Schedule.of(backoff, 0)).hasMessageContaining("retries");
    assertThatThrownBy(() -> Schedule.of(backoff, 3, 0, 1)).hasMessageContaining("samples");
    assertThatThrownBy(() -> Schedule.of(Backoff.decorrelated(ONE_SECOND, Duration.ofSeconds(9)), 1000, 10_000, 1))
        .hasMessageContaining("retries × samples");
  }
}
