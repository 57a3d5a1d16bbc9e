package dev.backoff.reactor;

import dev.backoff.NanoClock;
import dev.backoff.RetryPolicy;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * Retries a {@link Flux} under a {@link RetryPolicy} until it emits its first element:
 * {@code flux.transform(BackoffOperators.retryFlux(policy))}. Each attempt is a new subscription to the source;
 * the core's asynchronous loop decides, and waits on a Reactor {@link Scheduler}.
 *
 * <h2>What is retried</h2>
 * An attempt that fails before emitting anything is retried as the policy says. The first element (or an empty
 * completion) commits the attempt: from then on the source's elements, completion and error pass straight
 * through, and a later error is not retried, because resubscribing would emit the elements the subscriber has
 * already seen a second time. This is the contract of a stream whose consumer cannot be told "forget what you
 * saw" (gRPC commits a streaming call the same way once a response message arrives). For a source that may
 * fail mid-stream and can resume, resume it in the source (from the last element seen) and retry that.
 * The policy's result rules ({@code retryOnResult}) do not apply: a Flux has no single result.
 *
 * <h2>Backpressure</h2>
 * The subscriber's demand goes to the current attempt's subscription; a failed attempt emitted nothing, so
 * no demand is lost between attempts.
 *
 * <p>Outcomes, cancellation and time are as for {@link MonoRetry}; see {@link BackoffOperators}. Immutable
 * and thread-safe.
 *
 * <p>A Flux is not hedged: its elements are relayed from one committed attempt, and a second subscription
 * racing the first would have no single stream to relay. A policy with
 * {@linkplain RetryPolicy#hedging() hedging} is refused with an {@link IllegalArgumentException}.
 *
 * @param <T> the element type
 */
public final class FluxRetry<T> implements Function<Flux<T>, Flux<T>> {
  private final Driver driver;

  FluxRetry(Driver driver) {
    if (driver.policy.hedging() != null) {
      throw new IllegalArgumentException("policy '" + driver.policy.name() + "' hedges, and a Flux cannot be "
          + "hedged (its elements come from one attempt): use a policy without hedging, or hedge a Mono");
    }
    this.driver = driver;
  }

  /**
   * A copy whose retries wait on {@code scheduler} instead of {@code Schedulers.parallel()}.
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public FluxRetry<T> withScheduler(Scheduler scheduler) {
    return new FluxRetry<>(driver.withScheduler(scheduler));
  }

  /**
   * A copy that reads {@code clock} (for the deadline, elapsed times and listeners) instead of the policy's.
   *
   * @throws NullPointerException if {@code clock} is null
   */
  public FluxRetry<T> withClock(NanoClock clock) {
    return new FluxRetry<>(driver.withClock(clock));
  }

  /**
   * A copy that draws jitter from {@code random} instead of the policy's.
   *
   * @throws NullPointerException if {@code random} is null
   */
  public FluxRetry<T> withRandom(RandomGenerator random) {
    return new FluxRetry<>(driver.withRandom(random));
  }

  /**
   * The retrying Flux: each subscriber to it starts one retried call, whose attempts subscribe to
   * {@code source}.
   *
   * @throws NullPointerException if {@code source} is null
   */
  @Override
  public Flux<T> apply(Flux<T> source) {
    Driver.requireNonNull("source", source);
    return new RetryingFlux<>(source, driver);
  }

  @Override
  public String toString() {
    return "FluxRetry[" + driver + "]";
  }
}
