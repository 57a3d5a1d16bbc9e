package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.ConcurrencyLimiter.AttemptKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The limiter over random sequences of acquisitions (first attempts, retries, hedges), completions of any held
 * permit (success, drop, release) and clock steps, for each algorithm: an acquisition is granted only while
 * fewer attempts than the limit allows are in flight, the count of attempts in flight is exactly the permits
 * held, the limit stays within its bounds, every permit is given back once, and at the same pressure a retry or
 * hedge is never granted where a first attempt would be refused.
 */
class ConcurrencyLimiterProperties {

  enum Kind { FIRST, RETRY, HEDGE, SUCCESS, DROP, RELEASE, ADVANCE }

  record Step(Kind kind, int amount) {}

  /** Steps of every kind alike; {@code amount} picks a held permit to complete, or milliseconds to advance. */
  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, 500))
        .as(Step::new).list().ofMinSize(1).ofMaxSize(400);
  }

  @Property(tries = 300)
  void grantsOnlyWithinTheLimitAndItsRetryShare(@ForAll @IntRange(min = 0, max = 2) int algorithm,
      @ForAll @IntRange(min = 1, max = 6) int minLimit, @ForAll @IntRange(min = 0, max = 30) int span,
      @ForAll @DoubleRange(min = 0.05, max = 1.0) double retryShare, @ForAll("steps") List<Step> steps) {
    int maxLimit = minLimit + span;
    AtomicLong now = new AtomicLong(3_000_000_000L);
    ConcurrencyLimiter.Builder builder = switch (algorithm) {
      case 0 -> ConcurrencyLimiter.fixed(maxLimit);
      case 1 -> ConcurrencyLimiter.aimd().bounds(minLimit, maxLimit).initialLimit(maxLimit)
          .latencyThreshold(Duration.ofMillis(300));
      default -> ConcurrencyLimiter.gradient().bounds(minLimit, maxLimit).initialLimit(minLimit)
          .smoothing(0.5).minRttWindow(Duration.ofSeconds(2));
    };
    ConcurrencyLimiter limiter = builder.retryShare(retryShare).clock(now::get).build();
    int lowest = algorithm == 0 ? maxLimit : minLimit;
    List<ConcurrencyLimiter.Permit> held = new ArrayList<>();

    for (Step step : steps) {
      switch (step.kind()) {
        case FIRST, RETRY, HEDGE -> {
          AttemptKind kind = AttemptKind.valueOf(step.kind().name());
          int inFlight = limiter.inFlight();
          int limit = limiter.limit();
          int allowed = kind == AttemptKind.FIRST ? limit : Math.max(1, (int) (limit * retryShare));
          ConcurrencyLimiter.Permit permit = limiter.tryAcquire(kind);
          assertThat(permit != null).as("%s at %d in flight, limit %d", kind, inFlight, limit)
              .isEqualTo(inFlight < allowed);
          if (permit != null) {
            held.add(permit);
          } else if (kind == AttemptKind.FIRST) {
            // At the same pressure, whatever refuses a first attempt refuses a retry and a hedge.
            assertThat(limiter.tryAcquire(AttemptKind.RETRY)).isNull();
            assertThat(limiter.tryAcquire(AttemptKind.HEDGE)).isNull();
          }
        }
        case SUCCESS, DROP, RELEASE -> {
          if (!held.isEmpty()) {
            ConcurrencyLimiter.Permit permit = held.remove(step.amount() % held.size());
            switch (step.kind()) {
              case SUCCESS -> permit.onSuccess();
              case DROP -> permit.onDropped();
              default -> permit.release();
            }
          }
        }
        case ADVANCE -> now.addAndGet(step.amount() * 1_000_000L);
        default -> throw new AssertionError(step);
      }
      assertThat(limiter.inFlight()).as("attempts in flight").isEqualTo(held.size());
      assertThat(limiter.limit()).as("the limit").isBetween(lowest, maxLimit);
    }
    // Each permit given back exactly once brings the count back to zero; none was lost or counted twice.
    held.forEach(ConcurrencyLimiter.Permit::onSuccess);
    assertThat(limiter.inFlight()).isZero();
    ConcurrencyLimiter.Permit again = limiter.tryAcquire(AttemptKind.FIRST);
    assertThat(again).as("a free limiter grants a first attempt").isNotNull();
    again.release();
  }

  enum Move { FIRST, RETRY, HEDGE, SUCCESS, DROP, FAIL, RELEASE, AGAIN }

  record Action(Move move, int pick) {}

  /** Mostly acquisitions, so that even 70 slots fill up; {@code pick} chooses the permit a completion is of. */
  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Move> moves = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of(Move.FIRST)),
        Tuple.of(2, Arbitraries.of(Move.RETRY, Move.HEDGE)),
        Tuple.of(2, Arbitraries.of(Move.SUCCESS, Move.DROP, Move.FAIL, Move.RELEASE)),
        Tuple.of(2, Arbitraries.of(Move.AGAIN)));
    return Combinators.combine(moves, Arbitraries.integers().between(0, 1000)).as(Action::new)
        .list().ofMinSize(1).ofMaxSize(500);
  }

  /**
   * A fixed limiter, small (its slots in a bitmap word) or large (a stack of slots), under any interleaving of
   * acquisitions, completions of held permits and completions again of permits completed before: the count in
   * flight is always the permits held (so never negative, never above the limit), a retry or hedge is granted
   * exactly while fewer than the retry share's slots are taken, a permit is never granted while held, and each
   * hand-out is completed once (its breaker's permit with it): a second completion changes nothing, unless the
   * permit was handed out again meanwhile, when it completes the new hand-out (the documented reuse).
   */
  @Property(tries = 200)
  void aFixedLimiterCountsEachHandOutOnce(@ForAll("limits") int limit,
      @ForAll @DoubleRange(min = 0.05, max = 1.0) double retryShare, @ForAll("actions") List<Action> actions) {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(limit).retryShare(retryShare).build();
    int retries = ConcurrencyLimiter.retryLimit(limit, retryShare);
    List<HandOut> held = new ArrayList<>();
    List<HandOut> all = new ArrayList<>();
    List<ConcurrencyLimiter.Slot> completed = new ArrayList<>();
    for (Action action : actions) {
      switch (action.move()) {
        case FIRST, RETRY, HEDGE -> grant(limiter, AttemptKind.valueOf(action.move().name()),
            held.size() < (action.move() == Move.FIRST ? limit : retries), held, all);
        case SUCCESS, DROP, FAIL, RELEASE -> {
          if (!held.isEmpty()) {
            HandOut handOut = held.remove(action.pick() % held.size());
            complete(handOut.slot, action.move());
            handOut.expected = 1;
            completed.add(handOut.slot);
          }
        }
        case AGAIN -> {
          if (!completed.isEmpty()) {
            ConcurrencyLimiter.Slot slot = completed.get(action.pick() % completed.size());
            for (HandOut again : held) { // handed out again since: this completes that hand-out
              if (again.slot == slot) {
                held.remove(again);
                again.expected = 1;
                break;
              }
            }
            complete(slot, Move.values()[3 + action.pick() % 4]);
          }
        }
        default -> throw new AssertionError(action);
      }
      assertThat(limiter.inFlight()).as("in flight after %s", action).isEqualTo(held.size()).isBetween(0, limit);
      for (HandOut handOut : all) {
        assertThat(handOut.completions).as("completions of a hand-out, after %s", action).isEqualTo(handOut.expected);
      }
    }
    held.forEach(h -> h.slot.release());
    completed.forEach(ConcurrencyLimiter.Slot::release); // each completed already: nothing changes
    assertThat(limiter.inFlight()).isZero();
    assertThat(all).allMatch(h -> h.completions == 1, "every hand-out completed once");
    for (int i = 0; i < limit; i++) {
      assertThat(limiter.tryAcquire(AttemptKind.FIRST)).as("grant %d of %d on a free limiter", i + 1, limit)
          .isNotNull();
    }
    assertThat(limiter.tryAcquire(AttemptKind.FIRST)).isNull();
  }

  /** Asks for a slot of this kind, which must be granted exactly if {@code grants}; records the hand-out. */
  private static void grant(ConcurrencyLimiter limiter, AttemptKind kind, boolean grants, List<HandOut> held,
      List<HandOut> all) {
    HandOut handOut = new HandOut();
    handOut.slot = limiter.acquire(kind, handOut);
    assertThat(handOut.slot != null).as("%s at %d in flight", kind, held.size()).isEqualTo(grants);
    if (handOut.slot != null) {
      assertThat(held).as("granted while held").noneMatch(h -> h.slot == handOut.slot);
      held.add(handOut);
      all.add(handOut);
    }
  }

  /** One grant of a slot, with the breaker's permit it carries, which counts its completions. */
  private static final class HandOut implements CircuitBreaker.Permit {
    ConcurrencyLimiter.Slot slot;
    int completions;
    int expected;

    @Override
    public void onSuccess() {
      completions++;
    }

    @Override
    public void onFailure(FailureClass failureClass) {
      completions++;
    }

    @Override
    public void release() {
      completions++;
    }
  }

  @Provide
  Arbitrary<Integer> limits() {
    return Arbitraries.oneOf(Arbitraries.integers().between(1, 8), Arbitraries.integers().between(60, 70));
  }

  private static void complete(ConcurrencyLimiter.Slot slot, Move how) {
    switch (how) {
      case SUCCESS -> slot.onSuccess();
      case DROP -> slot.onDropped();
      case FAIL -> slot.onFailure(FailureClass.THROTTLED);
      default -> slot.release();
    }
  }
}
