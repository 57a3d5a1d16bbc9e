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
}
