package dev.backoff.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Answers whose intermediate values overflow a double, or whose digits a double rounds away. */
class PlannerOverflowTest {
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);

  /**
   * {@code a((1 + excess)^n − 1)/excess} in decimal arithmetic with 60 significant digits beyond those
   * {@code 1 + excess} needs: an independent check of the closed form.
   */
  static double exactElapsed(double initialSeconds, double excess, long retries) {
    if (excess == 0) {
      return initialSeconds * retries;
    }
    MathContext context = new MathContext(60 + Math.max(0, (int) -Math.floor(Math.log10(excess))));
    BigDecimal r = BigDecimal.ONE.add(new BigDecimal(excess));
    BigDecimal power = BigDecimal.ONE; // by squaring: BigDecimal.pow takes exponents below 10^9 only
    for (long n = retries; n > 0; n >>= 1) {
      if ((n & 1) != 0) {
        power = power.multiply(r, context);
      }
      r = r.multiply(r, context);
    }
    return new BigDecimal(initialSeconds).multiply(power.subtract(BigDecimal.ONE), context)
        .divide(new BigDecimal(excess), context).doubleValue();
  }

  @Test
  void aHugeMultiplierCountsOneRetryBy100Seconds() {
    // (r − 1)·T/a = 1e310 overflowed, and "more than 2^62 retries" came out; the truth is retry 1 at 1 s.
    GeometricSchedule schedule = GeometricSchedule.of(ONE_SECOND, 1e308);
    assertThat(schedule.retriesBy(100)).isEqualTo(1);
    assertThat(schedule.retryAt(100)).isCloseTo(1 + Math.log(100) / Math.log(1e308), within(1e-12));
    Position position = Solver.positionAt(schedule, Duration.ofSeconds(100));
    assertThat(position.retry()).isEqualTo(1);
    assertThat(position.previousDelaySeconds()).isEqualTo(1);
    assertThat(position.nextDelaySeconds()).isEqualTo(1e308);
    assertThat(position.retryElapsedSeconds()).isEqualTo(1);
  }

  @Test
  void elapsedTimesThatFitADoubleAreGivenEvenWhenRToTheNDoesNot() {
    GeometricSchedule schedule = GeometricSchedule.of(ONE_SECOND, 1e308);
    assertThat(schedule.elapsedSeconds(1)).isEqualTo(1);
    assertThat(schedule.elapsedSeconds(2)).isCloseTo(1e308, within(1e295)); // 1 + 1e308; r^2 = 1e616
    assertThatThrownBy(() -> schedule.elapsedSeconds(3)).isInstanceOf(UnsolvableException.class);
    // 1 + 1e200, where r^2 = 1e400 is beyond a double
    assertThat(GeometricSchedule.of(ONE_SECOND, 1e200).elapsedSeconds(2)).isCloseTo(1e200, within(1e187));
  }

  @Test
  void countsADoubleCannotTellApartAreRefusedNotApproximated() {
    GeometricSchedule linear = GeometricSchedule.of(Duration.ofNanos(1), 1);
    assertThat(linear.retriesBy(1000)).isEqualTo(1_000_000_000_000L); // 1000 s of 1 ns: below 2^40
    assertThatThrownBy(() -> linear.retriesBy(9.2e6))
        .isInstanceOf(UnsolvableException.class).hasMessageContaining("about 9.200e+15").hasMessageContaining("2^40");
    // 1904 ns is no binary fraction of a second: by 6012252791.025853826 s the count from doubles was
    // 3157695793606016, the integer truth (6012252791025853826 ns / 1904 ns) 3157695793606015. Now refused.
    assertThatThrownBy(() -> GeometricSchedule.of(Duration.ofNanos(1904), 1).retriesBy(6.012252791025854E9))
        .isInstanceOf(UnsolvableException.class).hasMessageContaining("2^40");
  }

  @Test
  void aMultiplierBarelyAbove1KeepsItsDigits() {
    // 2·10^9 retries of 1 ns in 106000 days: r − 1 = 1.274e-8, which r itself holds to 8 digits only.
    Duration deadline = Duration.ofDays(106_000);
    MultiplierSolution solution = Solver.multiplierForDeadline(Duration.ofNanos(1), 2_000_000_000, deadline);
    assertThat(solution.excess()).isCloseTo(1.274139689e-8, within(1e-17));
    assertThat(exactElapsed(1e-9, solution.excess(), 2_000_000_000L))
        .isCloseTo(deadline.toSeconds(), within(1e-9 * deadline.toSeconds()));
    assertThat(solution.multiplier()).isEqualTo(1 + solution.excess());
  }

  @Test
  void aMultiplierWithinADoubleOf1IsNotExactly1() {
    // N·a = 10 s, D = 10 s + 1 ns: r − 1 = 2.2e-11. And one below the double spacing near 1:
    MultiplierSolution near = Solver.multiplierForDeadline(ONE_SECOND, 10, Duration.ofNanos(10_000_000_001L));
    // D as a double holds D − N·a = 1 ns to 6 digits only, and so r − 1.
    assertThat(near.excess()).isCloseTo(1e-10 / 4.5, within(1e-6 * 1e-10 / 4.5)).isPositive();
    MultiplierSolution tiny = Solver.multiplierForInterval(Duration.ofNanos(1_000_000_000),
        Duration.ofDays(100_000_000), Duration.ofNanos(1_000_000_001));
    assertThat(tiny.multiplier()).isEqualTo(1); // as a double
    assertThat(tiny.excess()).isCloseTo(1e-9 / 8.64e12, within(1e-30)).isPositive();
    assertThat(Solver.multiplierForDeadline(ONE_SECOND, 10, Duration.ofSeconds(10)).excess()).isZero();
  }
}
