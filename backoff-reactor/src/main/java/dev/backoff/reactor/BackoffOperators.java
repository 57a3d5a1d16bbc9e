package dev.backoff.reactor;

import dev.backoff.RetryPolicy;

/**
 * Reactor operators that retry under a Backoff {@link RetryPolicy}, driven by the core's asynchronous retry
 * loop (the same decisions as {@link dev.backoff.AsyncRetryExecutor}: classification, per-class backoff,
 * budgets, pushback, deadline, listeners).
 *
 * <pre>{@code
 * Mono<String> body = webClient.get().uri(uri).retrieve().bodyToMono(String.class)
 *     .transform(BackoffOperators.retry(policy));
 * }</pre>
 *
 * <h2>Attempts</h2>
 * Each attempt is a new subscription to the source (so the source must be cold: a Mono that does its work
 * per subscriber, as {@code Mono.fromCallable} or a WebClient exchange does), with the downstream subscriber's
 * context. An empty Mono is a {@code null} result, judged like any result. The first attempt is subscribed when
 * the subscriber subscribes, on its thread.
 *
 * <h2>Outcomes</h2>
 * As the executors': the first accepted value (or completion); the last value if retries stop on results;
 * or the last failure, unchanged, with the earlier failures and a {@link dev.backoff.RetryHistory} attached as
 * suppressed exceptions. A result retried after is handed to Reactor's discard hook.
 *
 * <h2>Time</h2>
 * Retries wait on a Reactor {@code Scheduler}, {@code Schedulers.parallel()} unless given one
 * ({@code withScheduler}), without blocking a thread; under {@code StepVerifier.withVirtualTime} the waits are
 * virtual. The deadline and listeners' elapsed times read the policy's clock unless given one
 * ({@code withClock}; {@link ReactorRetryScheduler#clock} reads a virtual-time scheduler's).
 *
 * <h2>Cancellation</h2>
 * Cancelling the subscription stops the call: a pending retry is disposed and never subscribes, the attempt in
 * flight is cancelled, and listeners hear {@link dev.backoff.StopReason#CANCELLED}. There are no further
 * subscriptions to the source.
 *
 * <h2>Why not a {@code reactor.util.retry.Retry}</h2>
 * {@code retryWhen} gives the decision to a companion publisher that reacts to a stream of failure signals;
 * driving Backoff's engine from there would be a second retry loop beside the core's, with its own timing,
 * cancellation and budget bookkeeping, which Backoff keeps in one place. These operators hand the attempts to
 * the core's loop instead, so a policy behaves here exactly as in the executors.
 *
 * <p>Stateless; the operators are immutable and thread-safe.
 */
public final class BackoffOperators {
  private BackoffOperators() {}

  /**
   * An operator retrying a Mono under {@code policy}: {@code mono.transform(BackoffOperators.retry(policy))}.
   *
   * @param policy the policy; its type may be any supertype of the Mono's
   * @throws NullPointerException if {@code policy} is null
   */
  public static <T> MonoRetry<T> retry(RetryPolicy<? super T> policy) {
    return new MonoRetry<>(new Driver(policy, null, null, null));
  }

  /**
   * An operator retrying a Flux under {@code policy} until it emits its first element:
   * {@code flux.transform(BackoffOperators.retryFlux(policy))}. See {@link FluxRetry} for why elements already
   * emitted end the retrying.
   *
   * @param policy the policy; its type may be any supertype of the Flux's elements
   * @throws NullPointerException if {@code policy} is null
   * @throws IllegalArgumentException if the policy hedges (a Flux cannot be hedged)
   */
  public static <T> FluxRetry<T> retryFlux(RetryPolicy<? super T> policy) {
    return new FluxRetry<>(new Driver(policy, null, null, null));
  }
}
