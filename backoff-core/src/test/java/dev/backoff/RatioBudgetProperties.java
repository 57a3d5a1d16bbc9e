package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The ratio budget against a plain reference model of the sliding window, over random calls, retries, level
 * reads, short steps and idle gaps from an hour to the longest a clock difference can express (292 years),
 * including the exact periods after which a small slot epoch would repeat. The model keeps every event with
 * its slot number, computed from the total elapsed time as a BigInteger (it outgrows a long); the budget
 * sees only a wrapping long clock that may start anywhere.
 */
class RatioBudgetProperties {
  private static final long HOUR = 3_600_000_000_000L;

  /** One step of a scenario: what to do and, for the clock steps, by how many nanoseconds (or slots). */
  record Step(Kind kind, long amount) {}

  enum Kind { CALL, RETRY, LEVEL, STEP_NANOS, GAP_NANOS, GAP_SLOTS }

  @Property(tries = 300)
  void everyDecisionAndLevelAgreesWithTheModel(
      @ForAll @IntRange(min = 0, max = 10_000) int milliRatio,
      @ForAll @IntRange(min = 0, max = 200) int minRetriesPerSecond,
      @ForAll @LongRange(min = 10, max = 3_600_000) long windowMillis,
      @ForAll long clockStart,
      @ForAll("scenarios") List<Step> steps) {
    AtomicLong clock = new AtomicLong(clockStart);
    Duration window = Duration.ofMillis(windowMillis);
    RatioBudget budget = (RatioBudget) RetryBudgets.ratio(milliRatio / 1000.0, minRetriesPerSecond, window,
        clock::get);
    long slotNanos = window.toNanos() / RatioBudget.SLOTS;
    long reserve = Math.round(minRetriesPerSecond * (window.toNanos() / 1e6));
    Model model = new Model(reserve, slotNanos);

    for (Step step : steps) {
      switch (step.kind()) {
        case CALL -> {
          model.moveHead();
          budget.onCall();
          model.add(milliRatio);
        }
        case RETRY -> {
          model.moveHead();
          boolean expected = model.balance(model.head) >= RatioBudget.MILLI;
          assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).as("retry granted at slot %s", model.head)
              .isEqualTo(expected);
          if (expected) {
            model.add(-RatioBudget.MILLI);
          }
        }
        case LEVEL -> {
          // the level is checked below, after every step
        }
        default -> {
          long nanos = step.kind() == Kind.GAP_SLOTS ? multiplyCapped(step.amount(), slotNanos) : step.amount();
          long advance = model.cappedAdvance(nanos);
          clock.addAndGet(advance); // wraps past Long.MAX_VALUE, as System.nanoTime() may
          model.elapsed = model.elapsed.add(BigInteger.valueOf(advance));
        }
      }
      // After every step, moved or not, the level is the model's at the current time.
      assertThat(budget.balanceMilli()).as("balance after %s", step)
          .isEqualTo(model.balance(Math.max(model.head, model.slotNow())));
    }
  }

  private static long multiplyCapped(long slots, long slotNanos) {
    return slots > Long.MAX_VALUE / slotNanos ? Long.MAX_VALUE : slots * slotNanos;
  }

  /** Every event with its absolute slot number; the window is the head slot and the nine before it. */
  private static final class Model {
    final long reserve;
    final long slotNanos;
    final List<long[]> events = new ArrayList<>(); // {slot, amount}
    BigInteger elapsed = BigInteger.ZERO;
    long head;

    Model(long reserve, long slotNanos) {
      this.reserve = reserve;
      this.slotNanos = slotNanos;
    }

    long slotNow() {
      return elapsed.divide(BigInteger.valueOf(slotNanos)).longValueExact();
    }

    void moveHead() {
      head = Math.max(head, slotNow());
    }

    void add(long amount) {
      events.add(new long[] {head, amount});
    }

    long balance(long atSlot) {
      long sum = reserve;
      for (long[] event : events) {
        if (event[0] > atSlot - RatioBudget.SLOTS) {
          sum += event[1];
        }
      }
      return sum;
    }

    /**
     * The advance, shortened if needed so that the time since the head slot began stays below 2^63 ns: the
     * documented limit of any clock whose readings wrap (a longer silence reads as time going back).
     */
    long cappedAdvance(long nanos) {
      BigInteger sinceHeadStart = elapsed.subtract(BigInteger.valueOf(head).multiply(BigInteger.valueOf(slotNanos)));
      long room = Long.MAX_VALUE - sinceHeadStart.longValueExact();
      return Math.min(nanos, room);
    }
  }

  @Provide
  Arbitrary<List<Step>> scenarios() {
    Arbitrary<Step> call = Arbitraries.just(new Step(Kind.CALL, 0));
    Arbitrary<Step> retry = Arbitraries.just(new Step(Kind.RETRY, 0));
    Arbitrary<Step> level = Arbitraries.just(new Step(Kind.LEVEL, 0));
    // Short steps from nothing to about three slots of the longest window (3 x 6 minutes).
    Arbitrary<Step> shortStep = Arbitraries.longs().between(0, 1_080_000_000_000L).map(n -> new Step(Kind.STEP_NANOS, n));
    // Idle gaps from an hour to 2^63 - 1 ns (292 years), i.e. hours to centuries.
    Arbitrary<Step> gap = Arbitraries.longs().between(HOUR, Long.MAX_VALUE).map(n -> new Step(Kind.GAP_NANOS, n));
    // Gaps of whole slots near the periods at which small slot epochs alias: 2^21, 2^22, 5 x 2^23, their
    // multiples, each plus up to a window, so that any slot of the ring can line up.
    Arbitrary<Step> aliasGap = Arbitraries.of(1L << 21, 1L << 22, 5L << 23, 10L << 23, 5L << 33, 5L << 40)
        .flatMap(period -> Arbitraries.integers().between(1, 3).flatMap(multiple ->
            Arbitraries.longs().between(-10, 10).map(offset -> new Step(Kind.GAP_SLOTS, period * multiple + offset))));
    return Arbitraries.frequencyOf(
            Tuple.of(6, call), Tuple.of(6, retry), Tuple.of(1, level), Tuple.of(3, shortStep), Tuple.of(1, gap),
            Tuple.of(1, aliasGap))
        .list().ofMaxSize(300);
  }
}
