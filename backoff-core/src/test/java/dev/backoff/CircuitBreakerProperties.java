package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The breaker's state machine against a plain reference model, on a fake clock, over random sequences of
 * permission requests, outcomes (of permits held from any earlier state too), releases and clock steps, with
 * count and time windows. After every step the state, the window's calls and failures and every permission
 * decision must agree with the model, and no more than K trial permits may be out at once in half-open.
 */
class CircuitBreakerProperties {

  enum Kind { ACQUIRE, SUCCESS, FAILURE, IGNORED_FAILURE, RELEASE, ADVANCE }

  record Step(Kind kind, int amount) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Step> step = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(4, Arbitraries.just(new Step(Kind.ACQUIRE, 0))),
        net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 20).map(i -> new Step(Kind.SUCCESS, i))),
        net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 20).map(i -> new Step(Kind.FAILURE, i))),
        net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 20).map(i -> new Step(Kind.IGNORED_FAILURE, i))),
        net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 20).map(i -> new Step(Kind.RELEASE, i))),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 3_000).map(ms -> new Step(Kind.ADVANCE, ms))));
    return step.list().ofMinSize(1).ofMaxSize(300);
  }

  @Property(tries = 400)
  void agreesWithTheModel(@ForAll @IntRange(min = 1, max = 8) int window,
      @ForAll @IntRange(min = 1, max = 8) int minimumCalls,
      @ForAll @IntRange(min = 1, max = 100) int threshold,
      @ForAll @IntRange(min = 1, max = 4) int trials,
      @ForAll boolean timeWindow,
      @ForAll("steps") List<Step> steps) {
    AtomicLong now = new AtomicLong(-5_000_000_000L); // anywhere: only differences matter
    CircuitBreaker.Builder builder = CircuitBreaker.builder().clock(now::get).minimumCalls(minimumCalls)
        .failureRateThreshold(threshold).trialCalls(trials).waitInOpen(Duration.ofSeconds(2))
        .ignoring(FailureClass.THROTTLED);
    if (timeWindow) {
      builder.timeWindow(Duration.ofSeconds(window), window); // 1 s buckets
    } else {
      builder.countWindow(window);
    }
    if (!timeWindow && minimumCalls > window) {
      assertThatThrownBy(builder::build).hasMessageStartingWith(
          "minimumCalls(" + minimumCalls + ") exceeds countWindow(" + window + ")");
      return;
    }
    CircuitBreaker breaker = builder.build();
    Model model = new Model(window, timeWindow, minimumCalls, threshold, trials, 2_000_000_000L, now.get());
    List<CircuitBreaker.Permit> held = new ArrayList<>();
    List<Integer> heldGeneration = new ArrayList<>();

    for (Step step : steps) {
      switch (step.kind()) {
        case ACQUIRE -> {
          CircuitBreaker.Permit permit = breaker.tryAcquire();
          int generation = model.acquire(now.get());
          assertThat(permit != null).as("permitted, %s", step).isEqualTo(generation >= 0);
          if (permit != null) {
            held.add(permit);
            heldGeneration.add(generation);
          }
        }
        case ADVANCE -> now.addAndGet(step.amount() * 1_000_000L);
        default -> {
          if (held.isEmpty()) {
            continue;
          }
          int index = step.amount() % held.size();
          CircuitBreaker.Permit permit = held.remove(index);
          int generation = heldGeneration.remove(index);
          switch (step.kind()) {
            case SUCCESS -> {
              permit.onSuccess();
              model.success(generation, now.get());
            }
            case FAILURE -> {
              permit.onFailure(FailureClass.TRANSIENT);
              model.failure(generation, now.get());
            }
            case IGNORED_FAILURE -> {
              permit.onFailure(FailureClass.THROTTLED);
              model.release(generation);
            }
            default -> {
              permit.release();
              model.release(generation);
            }
          }
        }
      }
      assertThat(breaker.state()).as("state after %s", step).isEqualTo(model.state);
      CircuitBreaker.Metrics metrics = breaker.metrics();
      long[] counts = model.counts(now.get());
      assertThat(metrics.calls()).as("calls in the window after %s", step).isEqualTo(counts[0]);
      assertThat(metrics.failures()).as("failures in the window after %s", step).isEqualTo(counts[1]);
      if (model.state == CircuitBreaker.State.HALF_OPEN) {
        long out = heldGeneration.stream().filter(g -> g == model.generation).count();
        assertThat(out).as("trial permits out").isLessThanOrEqualTo(trials);
      }
    }
  }

  /**
   * Never half-open forever: once half-open, K trials reported close the breaker if all succeed, and the
   * first failed trial opens it again, whatever their order.
   */
  @Property(tries = 300)
  void halfOpenEndsAfterItsTrials(@ForAll @IntRange(min = 1, max = 10) int trials,
      @ForAll("outcomes") List<Boolean> outcomes) {
    AtomicLong now = new AtomicLong();
    CircuitBreaker breaker = CircuitBreaker.builder().clock(now::get).countWindow(1).minimumCalls(1)
        .trialCalls(trials).waitInOpen(Duration.ofSeconds(1)).build();
    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    now.addAndGet(1_000_000_000L);
    ArrayDeque<CircuitBreaker.Permit> permits = new ArrayDeque<>();
    for (int i = 0; i < trials; i++) {
      permits.add(breaker.tryAcquire());
    }
    assertThat(permits).doesNotContainNull();
    assertThat(breaker.tryAcquire()).as("trial K+1").isNull();
    boolean failed = false;
    for (int i = 0; i < trials; i++) {
      boolean success = i >= outcomes.size() || outcomes.get(i);
      if (success) {
        permits.poll().onSuccess();
      } else {
        permits.poll().onFailure(FailureClass.TIMEOUT);
        failed = true;
      }
      if (failed) {
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
      }
    }
    assertThat(breaker.state()).isEqualTo(failed ? CircuitBreaker.State.OPEN : CircuitBreaker.State.CLOSED);
  }

  @Provide
  Arbitrary<List<Boolean>> outcomes() {
    return Arbitraries.of(true, true, true, false).list().ofMaxSize(10);
  }

  /** The reference model: the states and windows as lists, written for clarity, not speed. */
  static final class Model {
    final int window;
    final boolean timeWindow;
    final int minimumCalls;
    final int threshold;
    final int trials;
    final long waitNanos;
    CircuitBreaker.State state = CircuitBreaker.State.CLOSED;
    int generation;
    long origin;
    final List<long[]> outcomes = new ArrayList<>(); // {bucket, failed}
    long openedAt;
    int available;
    int successes;

    Model(int window, boolean timeWindow, int minimumCalls, int threshold, int trials, long waitNanos, long now) {
      this.window = window;
      this.timeWindow = timeWindow;
      this.minimumCalls = minimumCalls;
      this.threshold = threshold;
      this.trials = trials;
      this.waitNanos = waitNanos;
      this.origin = now;
    }

    int acquire(long now) {
      if (state == CircuitBreaker.State.OPEN && now - openedAt >= waitNanos) {
        state = CircuitBreaker.State.HALF_OPEN;
        generation++;
        available = trials;
        successes = 0;
      }
      switch (state) {
        case CLOSED:
          return generation;
        case HALF_OPEN:
          if (available > 0) {
            available--;
            return generation;
          }
          return -1;
        default:
          return -1;
      }
    }

    void success(int permitGeneration, long now) {
      if (permitGeneration != generation) {
        return;
      }
      if (state == CircuitBreaker.State.CLOSED) {
        record(false, now);
      } else if (state == CircuitBreaker.State.HALF_OPEN && ++successes == trials) {
        state = CircuitBreaker.State.CLOSED;
        generation++;
        outcomes.clear();
        origin = now;
      }
    }

    void failure(int permitGeneration, long now) {
      if (permitGeneration != generation) {
        return;
      }
      if (state == CircuitBreaker.State.CLOSED) {
        record(true, now);
      } else if (state == CircuitBreaker.State.HALF_OPEN) {
        open(now);
      }
    }

    void release(int permitGeneration) {
      if (permitGeneration == generation && state == CircuitBreaker.State.HALF_OPEN) {
        available++;
      }
    }

    private void open(long now) {
      state = CircuitBreaker.State.OPEN;
      generation++;
      openedAt = now;
    }

    private void record(boolean failed, long now) {
      outcomes.add(new long[] {bucket(now), failed ? 1 : 0});
      long[] counts = counts(now);
      if (counts[0] >= minimumCalls && counts[1] * 100 >= (long) threshold * counts[0]) {
        open(now);
      }
    }

    private long bucket(long now) {
      return (now - origin) / 1_000_000_000L;
    }

    long[] counts(long now) {
      if (state != CircuitBreaker.State.CLOSED) {
        return new long[] {0, 0};
      }
      List<long[]> counted = new ArrayList<>();
      if (timeWindow) {
        long current = bucket(now);
        for (long[] outcome : outcomes) {
          if (outcome[0] > current - window) {
            counted.add(outcome);
          }
        }
      } else {
        counted = outcomes.subList(Math.max(0, outcomes.size() - window), outcomes.size());
      }
      return new long[] {counted.size(), counted.stream().filter(o -> o[1] == 1).count()};
    }
  }
}
