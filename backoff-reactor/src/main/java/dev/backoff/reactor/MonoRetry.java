package dev.backoff.reactor;

import dev.backoff.NanoClock;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.Context;

/**
 * Retries a {@link Mono} under a {@link RetryPolicy}: {@code mono.transform(BackoffOperators.retry(policy))}.
 * Each attempt is a new subscription to the source; the core's asynchronous loop decides, and waits on a
 * Reactor {@link Scheduler}. See {@link BackoffOperators} for the outcomes, cancellation and time.
 *
 * <p>Immutable and thread-safe: one operator serves any number of Monos and subscribers.
 *
 * @param <T> the Mono's value type
 */
public final class MonoRetry<T> implements Function<Mono<T>, Mono<T>> {
  private final Driver driver;

  MonoRetry(Driver driver) {
    this.driver = driver;
  }

  /**
   * A copy whose retries wait on {@code scheduler} instead of {@code Schedulers.parallel()}.
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public MonoRetry<T> withScheduler(Scheduler scheduler) {
    return new MonoRetry<>(driver.withScheduler(scheduler));
  }

  /**
   * A copy that reads {@code clock} (for the deadline, elapsed times and listeners) instead of the policy's;
   * {@link ReactorRetryScheduler#clock(Scheduler)} reads a virtual-time scheduler's time.
   *
   * @throws NullPointerException if {@code clock} is null
   */
  public MonoRetry<T> withClock(NanoClock clock) {
    return new MonoRetry<>(driver.withClock(clock));
  }

  /**
   * A copy that draws jitter from {@code random} (thread-safe if subscribers run concurrently) instead of
   * the policy's.
   *
   * @throws NullPointerException if {@code random} is null
   */
  public MonoRetry<T> withRandom(RandomGenerator random) {
    return new MonoRetry<>(driver.withRandom(random));
  }

  /**
   * The retrying Mono: each subscriber to it starts one retried call, whose attempts subscribe to
   * {@code source}.
   *
   * @throws NullPointerException if {@code source} is null
   */
  @Override
  public Mono<T> apply(Mono<T> source) {
    Driver.requireNonNull("source", source);
    return Mono.deferContextual(context -> Mono.fromFuture(
        () -> RetryLoops.async(driver.executor(), new Attempt<T>(source, Context.of(context)),
            OutcomeJudge.policyRules()),
        false));
  }

  @Override
  public String toString() {
    return "MonoRetry[" + driver + "]";
  }

  /** Subscribes to the source once per attempt, with the subscriber's context. */
  private static final class Attempt<T> implements AsyncAttempt<T> {
    private final Mono<T> source;
    private final Context context;

    Attempt(Mono<T> source, Context context) {
      this.source = source;
      this.context = context;
    }

    @Override
    public CompletionStage<T> start(AttemptContext attempt) {
      AttemptSubscriber<T> subscriber = new AttemptSubscriber<>(context);
      source.subscribe(subscriber);
      return subscriber;
    }

    @Override
    public void discard(T result) {
      Operators.onDiscard(result, context); // a value retried after, or arriving after a cancel
    }
  }
}
