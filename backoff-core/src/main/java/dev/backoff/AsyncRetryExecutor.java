package dev.backoff;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Retries calls that return a {@link CompletionStage} under a {@link RetryPolicy}, without holding a thread
 * while it waits: each retry is a task scheduled on a {@link RetryScheduler} (by default a
 * {@link ScheduledExecutorService}). Immutable and
 * thread-safe; it holds no lock, so it is as much at home on virtual threads as on an event loop.
 *
 * <pre>{@code
 * AsyncRetryExecutor<Response> retry = AsyncRetryExecutor.of(policy);
 * CompletableFuture<Response> response = retry.call(() -> client.sendAsync(request));
 * }</pre>
 *
 * <h2>Outcomes</h2>
 * The returned future completes as {@link RetryExecutor}'s call returns or throws: with the first accepted
 * result; with the last result if retries ran out on results; or exceptionally with the last failure,
 * carrying the earlier failures and a {@link RetryHistory} as suppressed exceptions. Failures are unwrapped
 * from {@link java.util.concurrent.CompletionException} and {@link java.util.concurrent.ExecutionException}
 * before the policy sees them (and before they reach the caller). A supplier that throws, or returns null,
 * counts as a failed attempt.
 *
 * <h2>Threads</h2>
 * The first attempt runs on the calling thread; retries run on the scheduler's thread, so the supplier must
 * only start the work and return its stage, not block. Outcomes are handled on whichever thread completes
 * the stage.
 *
 * <h2>Cancellation</h2>
 * Cancelling the returned future, or completing it ({@code complete}, {@code completeExceptionally},
 * {@code orTimeout}, {@code completeOnTimeout}), stops the call: a pending
 * retry is cancelled and never starts, an attempt in flight is cancelled through
 * {@code stage.toCompletableFuture().cancel(...)} where the stage allows it, and listeners are told the call
 * was aborted ({@link StopReason#CANCELLED}). Once {@code cancel} (or an outside completion) has returned
 * true, the supplier is never called again, so a non-idempotent supplier is safe: if a retry was already
 * calling the supplier on the scheduler's thread, {@code cancel} waits (without a lock) for that call to
 * return, then cancels the stage it returned. That is the one attempt that can still run, and the reason
 * suppliers must not block. A retry that never started gives its charge back to the policy's budget.
 *
 * <h2>Attempt timeout</h2>
 * With an {@linkplain RetryPolicy.Builder#attemptTimeout attempt timeout}, each attempt is timed on the
 * scheduler (clipped to what is left before the deadline): when the time is up first, the attempt's stage
 * is cancelled and the attempt fails with a {@link java.util.concurrent.TimeoutException}, classified
 * {@link FailureClass#TIMEOUT}; a result arriving later is dropped.
 *
 * <h2>Listeners</h2>
 * A listener that throws (anything but a {@link VirtualMachineError}) changes no outcome and never escapes
 * from {@code cancel} or {@code complete}; see {@link RetryListener}.
 *
 * <h2>Hedging</h2>
 * A policy with {@linkplain RetryPolicy.Builder#hedging hedging} runs each call as a hedged call: further
 * attempts start alongside a slow one, the first acceptable result wins and the others are cancelled. See
 * {@link Hedging} for the rules; cancellation, the attempt timeout, listeners and outcomes are as above.
 *
 * <h2>Memory</h2>
 * A call waiting for its retry holds three objects besides the caller's failure: the returned future
 * (which is also the scheduled task), the {@link Execution}, and the scheduler's task handle.
 *
 * @param <R> the result type
 */
public final class AsyncRetryExecutor<R> {
  final RetryPolicy<R> policy;
  static final RetryScheduler DEFAULT_SCHEDULER = RetryScheduler.of(SharedScheduler.INSTANCE);

  final RetryScheduler scheduler;
  final NanoClock clock;
  final RandomGenerator random;

  private AsyncRetryExecutor(RetryPolicy<R> policy, RetryScheduler scheduler, NanoClock clock,
      RandomGenerator random) {
    this.policy = policy;
    this.scheduler = scheduler;
    this.clock = clock;
    this.random = random;
  }

  /**
   * An executor scheduling retries on the {@linkplain #defaultScheduler() shared default scheduler}, with
   * the policy's clock and random source.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static <R> AsyncRetryExecutor<R> of(RetryPolicy<R> policy) {
    Nanos.requireNonNull("policy", policy);
    return new AsyncRetryExecutor<>(policy, DEFAULT_SCHEDULER, policy.clock, policy.random);
  }

  /**
   * An executor scheduling retries on {@code scheduler}, with the policy's clock and random source.
   *
   * @throws NullPointerException if an argument is null
   */
  public static <R> AsyncRetryExecutor<R> of(RetryPolicy<R> policy, ScheduledExecutorService scheduler) {
    Nanos.requireNonNull("policy", policy);
    Nanos.requireNonNull("scheduler", scheduler);
    return new AsyncRetryExecutor<>(policy, RetryScheduler.of(scheduler), policy.clock, policy.random);
  }

  /**
   * An executor scheduling retries on {@code scheduler} (a driver's timer: an event loop, a reactive
   * scheduler, a virtual-time test scheduler), with the policy's clock and random source.
   *
   * @throws NullPointerException if an argument is null
   */
  public static <R> AsyncRetryExecutor<R> of(RetryPolicy<R> policy, RetryScheduler scheduler) {
    Nanos.requireNonNull("policy", policy);
    Nanos.requireNonNull("scheduler", scheduler);
    return new AsyncRetryExecutor<>(policy, scheduler, policy.clock, policy.random);
  }

  /**
   * The shared default scheduler: one daemon thread named {@code backoff-retry-scheduler}, started on first
   * use, which removes cancelled retries from its queue at once. It only starts attempts, so one thread
   * serves many calls as long as suppliers do not block. It cannot be shut down (it dies with the JVM):
   * {@code shutdown} and {@code shutdownNow} throw {@link UnsupportedOperationException}.
   */
  public static ScheduledExecutorService defaultScheduler() {
    return SharedScheduler.INSTANCE;
  }

  /**
   * A copy that schedules retries on {@code scheduler}.
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public AsyncRetryExecutor<R> withScheduler(ScheduledExecutorService scheduler) {
    Nanos.requireNonNull("scheduler", scheduler);
    return new AsyncRetryExecutor<>(policy, RetryScheduler.of(scheduler), clock, random);
  }

  /**
   * A copy that schedules retries on {@code scheduler}.
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public AsyncRetryExecutor<R> withScheduler(RetryScheduler scheduler) {
    Nanos.requireNonNull("scheduler", scheduler);
    return new AsyncRetryExecutor<>(policy, scheduler, clock, random);
  }

  /**
   * A copy that reads this clock instead of the policy's.
   *
   * @throws NullPointerException if {@code clock} is null
   */
  public AsyncRetryExecutor<R> withClock(NanoClock clock) {
    Nanos.requireNonNull("clock", clock);
    return new AsyncRetryExecutor<>(policy, scheduler, clock, random);
  }

  /**
   * A copy that draws jitter from this random source (which must be thread-safe) instead of the policy's.
   *
   * @throws NullPointerException if {@code random} is null
   */
  public AsyncRetryExecutor<R> withRandom(RandomGenerator random) {
    Nanos.requireNonNull("random", random);
    return new AsyncRetryExecutor<>(policy, scheduler, clock, random);
  }

  /** This executor with its policy's deadline shortened to {@code maxElapsedNanos} (itself if no longer). */
  AsyncRetryExecutor<R> withMaxElapsedNanos(long maxElapsedNanos) {
    RetryPolicy<R> shortened = policy.withMaxElapsedNanos(maxElapsedNanos);
    return shortened == policy ? this : new AsyncRetryExecutor<>(shortened, scheduler, clock, random);
  }

  /** The policy. */
  public RetryPolicy<R> policy() {
    return policy;
  }

  /** The scheduler retries run on. */
  public RetryScheduler scheduler() {
    return scheduler;
  }

  /**
   * Starts the call: runs {@code supplier} now, and again after each backoff while the policy says retry.
   *
   * @return a future of the call's outcome; cancelling it stops the retries
   * @throws NullPointerException if {@code supplier} is null
   */
  public <T extends R> CompletableFuture<T> call(Supplier<? extends CompletionStage<T>> supplier) {
    Nanos.requireNonNull("supplier", supplier);
    if (policy.hedging != null) {
      HedgedCall<R, T> hedged = new HedgedCall<>(this, HedgedCall.of(supplier), null, null);
      hedged.start();
      return hedged;
    }
    AsyncCall<R, T> call = new AsyncCall<>(this, supplier, null);
    call.start();
    return call;
  }

  /**
   * Starts the call as {@link #call(Supplier)} does; if retrying ends without success for any reason but
   * cancellation, the future completes with what {@code recovery} supplies (or exceptionally with what it
   * throws) instead of the last failure or last retried result. See {@link Recovery}.
   *
   * @return a future of the call's outcome; cancelling it stops the retries, and the recovery does not run
   * @throws NullPointerException if an argument is null
   */
  public <T extends R> CompletableFuture<T> call(Supplier<? extends CompletionStage<T>> supplier,
      Recovery<T> recovery) {
    Nanos.requireNonNull("supplier", supplier);
    Nanos.requireNonNull("recovery", recovery);
    if (policy.hedging != null) {
      HedgedCall<R, T> hedged = new HedgedCall<>(this, HedgedCall.of(supplier), null, recovery);
      hedged.start();
      return hedged;
    }
    AsyncCall<R, T> call = new AsyncCall<>(this, supplier, recovery);
    call.start();
    return call;
  }

  /**
   * Wraps {@code supplier} so that each call of the wrapper is a retried call under this executor.
   *
   * @throws NullPointerException if {@code supplier} is null
   */
  public <T extends R> Supplier<CompletableFuture<T>> decorate(Supplier<? extends CompletionStage<T>> supplier) {
    Nanos.requireNonNull("supplier", supplier);
    return () -> call(supplier);
  }

  @Override
  public String toString() {
    return "AsyncRetryExecutor[" + policy + "]";
  }
}
