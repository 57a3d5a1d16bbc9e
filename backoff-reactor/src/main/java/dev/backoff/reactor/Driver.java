package dev.backoff.reactor;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.NanoClock;
import dev.backoff.RetryPolicy;
import java.util.random.RandomGenerator;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * What the Mono and Flux operators share: the policy and the seams, and the executor built from them. With no
 * scheduler given, retries wait on {@link Schedulers#parallel()} as it is when a subscriber arrives (so a
 * virtual-time test, which replaces it, drives them); the executor for it is cached while it stays the same
 * instance. Immutable apart from that cache, and thread-safe.
 */
final class Driver {
  final RetryPolicy<Object> policy;
  final Scheduler scheduler; // null: Schedulers.parallel() at subscription
  final NanoClock clock; // null: the policy's
  final RandomGenerator random; // null: the policy's
  private final AsyncRetryExecutor<Object> fixed; // when scheduler is given
  private volatile AsyncRetryExecutor<Object> cached; // for the default scheduler, which it names

  @SuppressWarnings("unchecked")
  Driver(RetryPolicy<?> policy, Scheduler scheduler, NanoClock clock, RandomGenerator random) {
    if (policy == null) {
      throw new NullPointerException("policy must not be null");
    }
    // The policy judges values of the operator's type T, which are values of its own R (T extends R).
    this.policy = (RetryPolicy<Object>) policy;
    this.scheduler = scheduler;
    this.clock = clock;
    this.random = random;
    this.fixed = scheduler == null ? null : executor(scheduler);
  }

  /** A copy waiting on {@code scheduler}; the operators' {@code withScheduler}. */
  Driver withScheduler(Scheduler scheduler) {
    return new Driver(policy, requireNonNull("scheduler", scheduler), clock, random);
  }

  /** A copy reading {@code clock}; the operators' {@code withClock}. */
  Driver withClock(NanoClock clock) {
    return new Driver(policy, scheduler, requireNonNull("clock", clock), random);
  }

  /** A copy drawing jitter from {@code random}; the operators' {@code withRandom}. */
  Driver withRandom(RandomGenerator random) {
    return new Driver(policy, scheduler, clock, requireNonNull("random", random));
  }

  static <V> V requireNonNull(String name, V value) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    return value;
  }

  /** The executor for a subscription arriving now. */
  AsyncRetryExecutor<Object> executor() {
    if (fixed != null) {
      return fixed;
    }
    Scheduler current = Schedulers.parallel();
    AsyncRetryExecutor<Object> executor = cached;
    if (executor != null && ((ReactorRetryScheduler) executor.scheduler()).scheduler() == current) {
      return executor;
    }
    executor = executor(current);
    cached = executor; // one write: a racing subscriber may replace it with one for its own scheduler
    return executor;
  }

  private AsyncRetryExecutor<Object> executor(Scheduler on) {
    AsyncRetryExecutor<Object> executor = AsyncRetryExecutor.of(policy, ReactorRetryScheduler.of(on));
    if (clock != null) {
      executor = executor.withClock(clock);
    }
    if (random != null) {
      executor = executor.withRandom(random);
    }
    return executor;
  }

  @Override
  public String toString() {
    return policy.name() + (scheduler == null ? "" : " on " + scheduler);
  }
}
