package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The limiter's invariants over random sequences of responses (throttled or not), reservations, returned
 * tokens and clock steps, with random constants: once enabled, the fill rate is never below the minimum,
 * never NaN, never infinite; the capacity is never below its minimum; the tokens never exceed the capacity;
 * a throttle never raises the rate (and lowers it unless it is at the minimum); reservations return 0 before
 * the first throttle, and otherwise 0, a positive wait within the maximum wait, or REFUSED.
 */
class AdaptiveRateLimiterProperties {

  enum Kind { SUCCESS, THROTTLE, RESERVE, RECHECK, UNRESERVE, ADVANCE }

  record Step(Kind kind, long amount) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Step> step = Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.just(new Step(Kind.SUCCESS, 0))),
        Tuple.of(2, Arbitraries.just(new Step(Kind.THROTTLE, 0))),
        Tuple.of(4, Arbitraries.just(new Step(Kind.RESERVE, 0))),
        Tuple.of(3, Arbitraries.just(new Step(Kind.RECHECK, 0))),
        Tuple.of(1, Arbitraries.just(new Step(Kind.UNRESERVE, 0))),
        Tuple.of(4, Arbitraries.longs().between(0, 5_000_000_000L).map(n -> new Step(Kind.ADVANCE, n))));
    return step.list().ofMinSize(1).ofMaxSize(400);
  }

  @Property(tries = 500)
  void invariantsHold(@ForAll("steps") List<Step> steps,
      @ForAll @DoubleRange(min = 0.05, max = 0.95) double beta,
      @ForAll @DoubleRange(min = 0.01, max = 10) double scaleConstant,
      @ForAll @DoubleRange(min = 0.05, max = 1) double smoothing,
      @ForAll @DoubleRange(min = 0.01, max = 5) double minFillRate,
      @ForAll @DoubleRange(min = 1, max = 20) double minCapacity,
      @ForAll @IntRange(min = 1, max = 2_000) int bucketMillis,
      @ForAll @IntRange(min = -1, max = 5_000) int maxWaitMillis) {
    AtomicLong now = new AtomicLong(Long.MAX_VALUE - 60_000_000_000L); // near the end: readings may wrap
    AdaptiveRateLimiter.Builder builder = AdaptiveRateLimiter.builder().clock(now::get).beta(beta)
        .scaleConstant(scaleConstant).smoothing(smoothing).minFillRate(minFillRate).minCapacity(minCapacity)
        .timeBucket(Duration.ofMillis(bucketMillis));
    long maxWait = maxWaitMillis < 0 ? Long.MAX_VALUE : maxWaitMillis * 1_000_000L;
    if (maxWaitMillis >= 0) {
      builder.maxWait(Duration.ofMillis(maxWaitMillis));
    }
    AdaptiveRateLimiter limiter = builder.build();
    long bucketNanos = bucketMillis * 1_000_000L;
    long eventEnd = 0;
    long lastDue = now.get() - 1; // when the last firm reservation is due to be sent (none yet)
    for (Step step : steps) {
      double before = limiter.fillRate();
      boolean wasEnabled = limiter.enabled();
      switch (step.kind()) {
        case SUCCESS -> limiter.onResponse(false);
        case THROTTLE -> {
          limiter.onResponse(true);
          // Throttles before every reservation made before a decrease was due, plus one time bucket, are
          // the same congestion event: no second cut.
          boolean decrease = !wasEnabled || now.get() - eventEnd >= 0;
          if (decrease) {
            eventEnd = (lastDue - now.get() > 0 ? lastDue : now.get()) + bucketNanos;
          }
          if (wasEnabled) {
            assertThat(limiter.fillRate()).as("a throttle never raises the rate").isLessThanOrEqualTo(before);
            if (decrease && before > minFillRate) {
              assertThat(limiter.fillRate()).as("and lowers it above the minimum").isLessThan(before);
            }
          }
        }
        case RECHECK -> {
          double tokensBefore = limiter.tokens();
          long result = limiter.reserveOrRecheck();
          if (!wasEnabled) {
            assertThat(result).isZero();
          } else if (AdaptiveRateLimiter.isRecheck(result)) {
            assertThat(maxWait).as("only an unlimited wait re-checks").isEqualTo(Long.MAX_VALUE);
            assertThat(AdaptiveRateLimiter.recheckNanos(result)).as("re-check wait").isPositive();
            assertThat(limiter.tokens()).as("a re-check takes no token").isEqualTo(tokensBefore);
          } else {
            assertThat(result == AdaptiveRateLimiter.REFUSED || (result >= 0 && result <= maxWait))
                .as("wait %d within %d", result, maxWait).isTrue();
            assertSpaced(result, lastDue, now.get(), before);
            lastDue = laterDue(lastDue, now.get(), result);
          }
        }
        case RESERVE -> {
          long wait = limiter.reserve();
          if (!wasEnabled) {
            assertThat(wait).isZero();
          } else {
            assertThat(wait == AdaptiveRateLimiter.REFUSED || (wait >= 0 && wait <= maxWait))
                .as("wait %d within %d", wait, maxWait).isTrue();
            assertSpaced(wait, lastDue, now.get(), before);
            lastDue = laterDue(lastDue, now.get(), wait);
          }
        }
        case UNRESERVE -> limiter.unreserve(); // its slot stays in the schedule
        case ADVANCE -> now.addAndGet(step.amount());
      }
      assertThat(limiter.measuredSendRate()).as("measured").isGreaterThanOrEqualTo(0).isFinite();
      if (limiter.enabled()) {
        assertThat(limiter.fillRate()).as("fill rate").isGreaterThanOrEqualTo(minFillRate).isFinite();
        assertThat(limiter.capacity()).as("capacity").isGreaterThanOrEqualTo(minCapacity).isFinite();
        assertThat(limiter.tokens()).as("tokens").isLessThanOrEqualTo(limiter.capacity()).isNotNaN();
      } else {
        assertThat(limiter.fillRate()).isZero();
      }
    }
  }

  /**
   * While a firm reservation is still to be sent (due at or after {@code now}), no request goes at once and a
   * new firm one is due at least one refill interval (rounded down) after it, at the rate it was priced at.
   */
  private static void assertSpaced(long result, long lastDue, long now, double fillRate) {
    if (lastDue - now < 0 || result < 0) {
      return;
    }
    assertThat(result).as("nothing goes at once while a reservation is pending").isPositive();
    assertThat(now + result - lastDue).as("spaced after the pending reservation")
        .isGreaterThanOrEqualTo((long) Math.floor(1e9 / fillRate));
  }

  /** The later of {@code lastDue} and the end of a firm wait {@code wait} from {@code now} (0: none, REFUSED: none). */
  private static long laterDue(long lastDue, long now, long wait) {
    return wait > 0 && now + wait - lastDue > 0 ? now + wait : lastDue;
  }

  /**
   * The refill's shortcut gives what the refill computes: from any tokens up to the capacity, at any fill rate
   * and capacity, every elapsed time from {@code fillsAfter} on fills the bucket to exactly its capacity by the
   * refill's own expression, and the shortcut is not given up for a refill due within decades.
   */
  @Property(tries = 2000)
  void theRefillShortcutFillsTheBucketExactlyWhenTheRefillWould(
      @ForAll @DoubleRange(min = 1, max = 1e7) double capacity, @ForAll @DoubleRange(min = 0.5, max = 1e12) double fillRate,
      @ForAll @DoubleRange(min = -1e4, max = 1) double fraction, @ForAll @IntRange(min = 0, max = 1000) int later) {
    double from = fraction * capacity; // from far below zero (reservations waiting) to full
    long after = AdaptiveRateLimiter.fillsAfter(from, capacity, fillRate);
    if ((capacity - from) / fillRate < 1e9) { // a refill due within 30 years
      assertThat(after).as("a threshold is found").isLessThan(Long.MAX_VALUE);
    }
    if (after == Long.MAX_VALUE) {
      return; // no shortcut: the refill computes
    }
    long first = Math.max(1, after);
    for (long elapsed : new long[] {first, Nanos.add(first, later), Nanos.add(Nanos.add(first, first), first)}) {
      assertThat(Math.min(capacity, from + elapsed / 1e9 * fillRate)).as("refilled after %d ns", elapsed)
          .isEqualTo(capacity);
    }
  }
}
