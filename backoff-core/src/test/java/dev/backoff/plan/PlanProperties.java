package dev.backoff.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.backoff.Backoff;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class PlanProperties {

  @Property
  void closedFormsAgreeWithSummingTheSchedule(@ForAll @LongRange(min = 1, max = 10_000) long initialMillis,
      @ForAll @DoubleRange(min = 1, max = 3) double multiplier, @ForAll @IntRange(min = 1, max = 120) int retries,
      @ForAll @LongRange(min = 1, max = 1000) long capFactor) {
    Duration initial = Duration.ofMillis(initialMillis);
    Duration cap = initial.multipliedBy(capFactor);
    GeometricSchedule closed = GeometricSchedule.of(initial, multiplier, cap);
    double sum = 0;
    for (int n = 1; n <= retries; n++) {
      double delay = Math.min(cap.toNanos() / 1e9, initialMillis / 1e3 * Math.pow(multiplier, n - 1));
      sum += delay;
      assertThat(closed.delaySeconds(n)).isCloseTo(delay, within(1e-9 * delay));
      assertThat(closed.elapsedSeconds(n)).isCloseTo(sum, within(1e-9 * sum));
      // t_(n+1) = a + (r − 1)·T_n, limited to the cap.
      assertThat(closed.nextDelaySeconds(closed.elapsedSeconds(n)))
          .isCloseTo(closed.delaySeconds(n + 1), within(1e-8 * closed.delaySeconds(n + 1)));
      assertThat(closed.retriesBy(closed.elapsedSeconds(n))).isEqualTo(n);
      assertThat(closed.retryAt(closed.elapsedSeconds(n))).isCloseTo(n, within(1e-6 * n));
    }
    // The core strategy, summed by the planner in nanoseconds, agrees up to its nanosecond rounding.
    List<ScheduleRow> rows = Schedule.of(Backoff.exponential(initial, multiplier, cap), retries).rows();
    ScheduleRow last = rows.get(retries - 1);
    assertThat(last.elapsed().mean()).isCloseTo(closed.elapsedSeconds(retries), within(1e-9 * retries + 1e-9 * sum));
  }

  @Property
  void retriesByIsTheLastRetryAtOrBefore(@ForAll @LongRange(min = 1, max = 10_000) long initialMillis,
      @ForAll @DoubleRange(min = 1, max = 4) double multiplier,
      @ForAll @DoubleRange(min = 0, max = 1e7) double elapsed) {
    GeometricSchedule schedule = GeometricSchedule.of(Duration.ofMillis(initialMillis), multiplier);
    long n = schedule.retriesBy(elapsed);
    double slack = 1e-9 * Math.max(elapsed, initialMillis / 1e3);
    assertThat(schedule.elapsedSeconds(n)).isLessThanOrEqualTo(elapsed + slack);
    assertThat(schedule.elapsedSeconds(n + 1)).isGreaterThan(elapsed - slack);
  }

  @Property
  void deadlineAnswersRoundTrip(@ForAll @LongRange(min = 1, max = 60_000) long initialMillis,
      @ForAll @IntRange(min = 2, max = 60) int retries, @ForAll @DoubleRange(min = 1, max = 1000) double slack) {
    Duration initial = Duration.ofMillis(initialMillis);
    Duration deadline = Duration.ofNanos((long) (initialMillis * 1e6 * retries * slack));
    MultiplierSolution solution = Solver.multiplierForDeadline(initial, retries, deadline);
    assertThat(solution.multiplier()).isGreaterThanOrEqualTo(1).isFinite();
    double reached = GeometricSchedule.of(initial, solution.multiplier()).elapsedSeconds(retries);
    double wanted = deadline.toNanos() / 1e9;
    assertThat(reached).isCloseTo(wanted, within(1e-9 * wanted));
  }

  @Property
  void intervalAnswersRoundTrip(@ForAll @LongRange(min = 1, max = 60_000) long initialMillis,
      @ForAll @LongRange(min = 1, max = 10_000_000) long elapsedMillis,
      @ForAll @DoubleRange(min = 1, max = 1000) double intervalFactor) {
    Duration initial = Duration.ofMillis(initialMillis);
    Duration interval = Duration.ofNanos((long) (initialMillis * 1e6 * intervalFactor));
    Assume.that(interval.compareTo(initial) >= 0);
    MultiplierSolution solution = Solver.multiplierForInterval(initial, Duration.ofMillis(elapsedMillis), interval);
    double next = GeometricSchedule.of(initial, solution.multiplier()).nextDelaySeconds(elapsedMillis / 1e3);
    assertThat(next).isCloseTo(interval.toNanos() / 1e9, within(1e-9 * next));
    assertThat(solution.estimate().getAsDouble()).isGreaterThanOrEqualTo(solution.multiplier());
  }

  @Property
  void answersAreNeverNanOrInfinite(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 2) long initialNanos,
      @ForAll @DoubleRange(min = 1, max = 1e6) double multiplier,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long elapsedNanos,
      @ForAll @IntRange(min = 1, max = Integer.MAX_VALUE) int retries) {
    Duration initial = Duration.ofNanos(initialNanos);
    Duration elapsed = Duration.ofNanos(elapsedNanos);
    GeometricSchedule schedule = GeometricSchedule.of(initial, multiplier);
    finiteOrUnsolvable(() -> schedule.elapsedSeconds(retries));
    finiteOrUnsolvable(() -> schedule.delaySeconds(retries));
    finiteOrUnsolvable(() -> schedule.retryAt(elapsedNanos / 1e9));
    finiteOrUnsolvable(() -> schedule.nextDelaySeconds(elapsedNanos / 1e9));
    finiteOrUnsolvable(() -> (double) schedule.retriesBy(elapsedNanos / 1e9));
    finiteOrUnsolvable(() -> {
      Position position = Solver.positionAt(schedule, elapsed);
      return position.previousDelaySeconds() + position.nextDelaySeconds() + position.retryElapsedSeconds();
    });
    if (elapsedNanos > 0) {
      finiteOrUnsolvable(() -> Solver.multiplierForDeadline(initial, retries, elapsed).multiplier());
      finiteOrUnsolvable(() -> Solver.multiplierForInterval(initial, elapsed, elapsed).multiplier());
      finiteOrUnsolvable(() -> {
        RetryComparison comparison = Solver.compareRetries(initial, multiplier, 1 + 1 / multiplier, elapsed);
        return comparison.ratio().orElse(0) + comparison.estimatedRatio().orElse(0);
      });
    }
  }

  private static void finiteOrUnsolvable(java.util.function.DoubleSupplier answer) {
    double value;
    try {
      value = answer.getAsDouble();
    } catch (UnsolvableException unsolvable) {
      assertThat(unsolvable.getMessage()).isNotBlank();
      return;
    }
    assertThat(value).isFinite();
  }

  /** Question 3 at extreme inputs (multipliers to 1e308, times to 292 years): the position's claim holds. */
  @Property(tries = 2000)
  void positionsHoldForExtremeInputs(@ForAll @LongRange(min = 1, max = 1_000_000_000_000L) long initialNanos,
      @ForAll @DoubleRange(min = 1, max = 1e308) double multiplier,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long elapsedNanos) {
    GeometricSchedule schedule = GeometricSchedule.of(Duration.ofNanos(initialNanos), multiplier);
    Position position;
    try {
      position = Solver.positionAt(schedule, Duration.ofNanos(elapsedNanos));
    } catch (UnsolvableException unsolvable) {
      if (unsolvable.getMessage().contains("2^40")) {
        assertThat(schedule.retryAt(elapsedNanos / 1e9)).isGreaterThan(0x1p39);
      } else {
        // The sleep after the last retry is beyond a double: then so is the next retry's time.
        assertThat(unsolvable).hasMessageContaining("beyond the range of a double");
        assertThatThrownBy(() -> schedule.elapsedSeconds(schedule.retriesBy(elapsedNanos / 1e9) + 1))
            .isInstanceOf(UnsolvableException.class);
      }
      return;
    }
    double t = position.elapsedSeconds(); // the solver's reading of the duration, to the last bit
    double a = initialNanos / 1e9;
    double slack = Math.min(1e-9 * Math.max(t, a), a / 1000);
    long n = position.retry();
    assertThat(schedule.elapsedSeconds(n)).isLessThanOrEqualTo(t + slack);
    double next;
    try {
      next = schedule.elapsedSeconds(n + 1);
    } catch (UnsolvableException beyondDouble) {
      return; // the next retry is past any double, so past t
    }
    assertThat(next).isGreaterThan(t - slack);
  }

  /** Question 2 at extreme inputs: r − 1 checked back in 60-digit arithmetic gives the deadline. */
  @Property(tries = 500)
  void deadlineAnswersRoundTripForExtremeInputs(@ForAll @LongRange(min = 1, max = 1_000_000_000_000L) long initialNanos,
      @ForAll @IntRange(min = 2, max = Integer.MAX_VALUE) int retries,
      @ForAll @DoubleRange(min = 1, max = 1e12) double factor) {
    double minimum = initialNanos / 1e9 * retries;
    double deadlineSeconds = minimum * factor;
    Assume.that(deadlineSeconds < 9e18);
    Duration deadline = Duration.ofSeconds((long) deadlineSeconds, (long) ((deadlineSeconds % 1) * 1e9));
    Duration initial = Duration.ofNanos(initialNanos);
    Assume.that(initial.multipliedBy(retries).compareTo(deadline) <= 0);
    MultiplierSolution solution = Solver.multiplierForDeadline(initial, retries, deadline);
    double d = deadline.getSeconds() + deadline.getNano() / 1e9;
    assertThat(solution.excess()).isGreaterThanOrEqualTo(0);
    assertThat(PlannerOverflowTest.exactElapsed(initialNanos / 1e9, solution.excess(), retries))
        .isCloseTo(d, within(1e-9 * d));
  }
}
