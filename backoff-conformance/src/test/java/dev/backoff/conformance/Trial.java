package dev.backoff.conformance;

import dev.backoff.ConcurrencyLimiter;
import dev.backoff.NanoClock;
import dev.backoff.Recovery;
import dev.backoff.RetryBudget;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * One run of one scenario through one driver: hands the runner a fresh policy (fresh scripted random source
 * and budget, a recording listener) on the runner's clock, answers the attempts from the scenario's script,
 * and records what the engine and the driver did. Runners may call it from any thread, one attempt at a time.
 */
public final class Trial {
  private final Scenario scenario;
  private final List<Long> attemptNanos = new ArrayList<>();
  private final List<Duration> scheduled = new ArrayList<>();
  private final List<String> ends = new ArrayList<>();
  private final Supplier<RandomGenerator> random;
  private NanoClock clock;
  private RetryBudget budget;
  private int cancelledAttempts;
  private long originNanos;
  private final List<String> recoveries = new ArrayList<>();
  private ConcurrencyLimiter concurrencyLimiter;
  private final List<ConcurrencyLimiter.Permit> heldSlots = new ArrayList<>();

  /**
   * Thrown by {@link #attempt()} for an attempt that never completes ({@link ConformanceTable#hang()}): the
   * runner turns it into its runtime's attempt that never ends (a future never completed, {@code Mono.never()},
   * {@code awaitCancellation()}, a thread blocked until interrupted) and calls {@link #attemptCancelled()}
   * when the driver stops it. A runner that does not catch it fails the row (it aborts the call).
   */
  public static final class Hang extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Hang(int attempt) {
      super("attempt " + attempt + " never completes", null, false, false);
    }
  }

  Trial(Scenario scenario) {
    this(scenario, ConformanceTable::random);
  }

  /** A trial drawing jitter from a fresh {@code random.get()}. */
  Trial(Scenario scenario, Supplier<RandomGenerator> random) {
    this.scenario = scenario;
    this.random = random;
  }

  /** The scenario's policy, reading {@code clock} (the driver's virtual time). Call once, first. */
  public synchronized RetryPolicy<String> policy(NanoClock clock) {
    this.clock = clock;
    this.originNanos = clock.nanoTime();
    RetryPolicy.Builder<String> builder = scenario.policy().toBuilder()
        .clock(clock)
        .random(random.get())
        .listener(new RetryListener<String>() {
          @Override
          public void onRetryScheduled(RetryEvent<String> event) {
            synchronized (Trial.this) {
              scheduled.add(event.delay());
              Trial.this.notifyAll();
            }
          }

          @Override
          public void onSuccess(RetryEvent<String> event) {
            end("success after " + event.attempts());
          }

          @Override
          public void onExhausted(RetryEvent<String> event) {
            end(event.stopReason() + " after " + event.attempts());
          }

          @Override
          public void onAborted(RetryEvent<String> event) {
            end(event.stopReason() + " after " + event.attempts());
          }
        });
    if (scenario.budget() != null) {
      budget = scenario.budget().get();
      builder.budget(budget);
    }
    if (scenario.breaker() != null) {
      builder.circuitBreaker(scenario.breaker().apply(clock));
    }
    if (scenario.limiter() != null) {
      builder.rateLimiter(scenario.limiter().apply(clock));
    }
    if (scenario.concurrency() != null) {
      concurrencyLimiter = scenario.concurrency().apply(clock);
      for (int i = 0; i < scenario.heldSlots(); i++) { // another call's attempts, in flight during this one
        ConcurrencyLimiter.Permit slot = concurrencyLimiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
        if (slot == null) {
          throw new AssertionError("the other call could not take slot " + (i + 1) + " of " + concurrencyLimiter);
        }
        heldSlots.add(slot);
      }
      builder.concurrencyLimiter(concurrencyLimiter);
    }
    return builder.build();
  }

  private synchronized void end(String what) {
    ends.add(what);
    notifyAll();
  }

  /**
   * Waits until listeners have heard the call end, at most {@code bound}: a client may hand the caller its
   * response on one thread while the loop tells the listeners on another.
   */
  synchronized void awaitEnd(Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    for (long left = bound.toNanos(); ends.isEmpty() && left > 0; left = deadline - System.nanoTime()) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** One attempt: records its time and answers from the script (the last entry repeats). */
  public String attempt() throws Exception {
    int index;
    int number;
    synchronized (this) {
      if (clock == null) {
        throw new IllegalStateException("policy(clock) must be called before the first attempt");
      }
      attemptNanos.add(clock.nanoTime());
      number = attemptNanos.size();
      index = Math.min(number, scenario.script().size()) - 1;
    }
    return scenario.script().get(index).answer(number);
  }

  /**
   * The call's recovery, or null when the row has none: it records that it ran and answers
   * {@code "recovered from <stop reason>"}.
   */
  public Recovery<String> recovery() {
    if (scenario.recoveries() == null) {
      return null;
    }
    return (lastResult, lastFailure, history) -> {
      synchronized (Trial.this) {
        recoveries.add(history.stopReason() + " after " + history.attempts());
      }
      return "recovered from " + history.stopReason();
    };
  }

  /** What the recovery heard, once per run ("ATTEMPTS_EXHAUSTED after 4"). */
  synchronized List<String> recoveries() {
    return List.copyOf(recoveries);
  }

  /**
   * The other call gives its slots back; returns the row's concurrency limiter (null if it has none), on
   * which the call itself must then hold no slot.
   */
  synchronized ConcurrencyLimiter releaseHeldSlots() {
    heldSlots.forEach(ConcurrencyLimiter.Permit::release);
    heldSlots.clear();
    return concurrencyLimiter;
  }

  /** When each attempt started, measured from {@link #policy}. */
  synchronized List<Duration> arrivals() {
    return attemptNanos.stream().map(nanos -> Duration.ofNanos(nanos - originNanos)).toList();
  }

  /** When the first attempt started, measured from {@link #policy}; null if none did. */
  synchronized Duration firstAttemptAt() {
    return attemptNanos.isEmpty() ? null : Duration.ofNanos(attemptNanos.get(0) - originNanos);
  }

  /** Records that the driver stopped an attempt that would never have completed. */
  public synchronized void attemptCancelled() {
    cancelledAttempts++;
  }

  synchronized int cancelledAttempts() {
    return cancelledAttempts;
  }

  /** The row's budget for this trial, or null for the policy's. */
  synchronized RetryBudget budget() {
    return budget;
  }

  /**
   * Waits until the engine has scheduled every delay the scenario expects, at most {@code bound}: a driver in
   * real time stops the call then, in its last backoff, whatever the machine's load made the attempts take
   * (stopping at {@link #cancelAfter} from the start would come before the last attempt on a busy machine).
   */
  synchronized void awaitScheduled(Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    int expected = scenario.scheduled().size();
    for (long left = bound.toNanos(); scheduled.size() < expected && left > 0; left = deadline - System.nanoTime()) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** When the caller stops the call, measured from its start; null if it never does. */
  public Duration cancelAfter() {
    return scenario.cancelAfter();
  }

  synchronized int attempts() {
    return attemptNanos.size();
  }

  /** The time between consecutive attempts, as the driver waited it. */
  synchronized List<Duration> waits() {
    List<Duration> waits = new ArrayList<>();
    for (int i = 1; i < attemptNanos.size(); i++) {
      waits.add(Duration.ofNanos(attemptNanos.get(i) - attemptNanos.get(i - 1)));
    }
    return waits;
  }

  /** The delays the engine scheduled, as listeners heard them. */
  synchronized List<Duration> scheduled() {
    return List.copyOf(scheduled);
  }

  /** How the call ended, as listeners heard it ("success after 3", "ABORTED after 2"). */
  synchronized List<String> ends() {
    return List.copyOf(ends);
  }

  static String end(StopReason reason, int attempts) {
    return reason == null ? "success after " + attempts : reason + " after " + attempts;
  }
}
