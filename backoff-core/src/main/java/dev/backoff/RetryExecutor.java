package dev.backoff;

import java.util.concurrent.Callable;
import java.util.random.RandomGenerator;

/**
 * Runs blocking calls under a {@link RetryPolicy}, sleeping on the calling thread between attempts.
 * Immutable and thread-safe; one executor serves any number of threads, platform or virtual (it holds no
 * lock while sleeping or calling).
 *
 * <pre>{@code
 * RetryExecutor<String> retry = RetryExecutor.of(RetryPolicy.<String>builder()
 *     .maxAttempts(5)
 *     .retryOn(IOException.class)
 *     .build());
 * String body = retry.call(() -> fetch(uri));
 * }</pre>
 *
 * <h2>Outcomes</h2>
 * <ul>
 *   <li>Success: the result is returned. The success path allocates nothing and reads no clock unless the
 *       policy has a deadline or listeners.
 *   <li>Retries stop on a failure: that last failure is rethrown unchanged (checked exceptions too), with the
 *       earlier failures and a {@link RetryHistory} (attempts, elapsed time, reason) attached as suppressed
 *       exceptions.
 *   <li>Retries stop on a retryable result: the last result is returned.
 *   <li>Interruption while sleeping, or before the next attempt starts: the call stops at once, the thread's
 *       interrupt flag is set again, and an {@link InterruptedException} is thrown with the last failure
 *       attached as suppressed. An attempt that fails because it was interrupted is never retried, and the
 *       flag is set when the call ends, even if the attempt cleared it and threw the interruption wrapped in
 *       another exception.
 *   <li>A listener that throws never changes the outcome (see {@link RetryListener}).
 *   <li>A retry budget is charged only for retries that start: an interrupted wait gives the charge back.
 *   <li>With {@link #call(Callable, Recovery)}, a call that stops without success (for any reason but an
 *       interrupt) returns the recovery's value instead.
 *   <li>With an {@linkplain RetryPolicy.Builder#attemptTimeout attempt timeout} and
 *       {@linkplain RetryPolicy.Builder#interruptOnAttemptTimeout interruptOnAttemptTimeout}, an attempt
 *       that outlives its timeout is interrupted and fails with a
 *       {@link java.util.concurrent.TimeoutException}; the caller's own interrupt state is kept.
 *   <li>A policy with {@linkplain RetryPolicy.Builder#hedging hedging} needs attempts side by side, which one
 *       thread cannot run: a call under it throws an {@link IllegalArgumentException} before any attempt
 *       (use {@link AsyncRetryExecutor}). The executor itself can be built, so that a driver holding both
 *       executors for one policy still serves its asynchronous calls.
 * </ul>
 *
 * @param <R> the result type
 */
public final class RetryExecutor<R> {
  final RetryPolicy<R> policy;
  final NanoClock clock;
  final Sleeper sleeper;
  final RandomGenerator random;
  final RetryScheduler scheduler;

  private RetryExecutor(RetryPolicy<R> policy, NanoClock clock, Sleeper sleeper, RandomGenerator random,
      RetryScheduler scheduler) {
    this.policy = policy;
    this.clock = clock;
    this.sleeper = sleeper;
    this.random = random;
    this.scheduler = scheduler;
  }

  /**
   * An executor using the policy's clock, sleeper and random source; attempt-timeout watchdogs (see
   * {@link RetryPolicy.Builder#interruptOnAttemptTimeout}) run on the shared default scheduler.
   */
  public static <R> RetryExecutor<R> of(RetryPolicy<R> policy) {
    Nanos.requireNonNull("policy", policy);
    return new RetryExecutor<>(policy, policy.clock, policy.sleeper, policy.random, AsyncRetryExecutor.DEFAULT_SCHEDULER);
  }

  /**
   * A copy whose attempt-timeout watchdogs run on {@code scheduler} (a test's virtual-time scheduler, or
   * one of yours) instead of the shared default one. Used only when the policy
   * {@linkplain RetryPolicy.Builder#interruptOnAttemptTimeout interrupts attempts on timeout}.
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public RetryExecutor<R> withScheduler(RetryScheduler scheduler) {
    Nanos.requireNonNull("scheduler", scheduler);
    return new RetryExecutor<>(policy, clock, sleeper, random, scheduler);
  }

  /** A copy that reads this clock instead of the policy's. */
  public RetryExecutor<R> withClock(NanoClock clock) {
    Nanos.requireNonNull("clock", clock);
    return new RetryExecutor<>(policy, clock, sleeper, random, scheduler);
  }

  /** A copy that sleeps with this sleeper instead of the policy's. */
  public RetryExecutor<R> withSleeper(Sleeper sleeper) {
    Nanos.requireNonNull("sleeper", sleeper);
    return new RetryExecutor<>(policy, clock, sleeper, random, scheduler);
  }

  /** A copy that draws jitter from this random source instead of the policy's. */
  public RetryExecutor<R> withRandom(RandomGenerator random) {
    Nanos.requireNonNull("random", random);
    return new RetryExecutor<>(policy, clock, sleeper, random, scheduler);
  }

  /** This executor with its policy's deadline shortened to {@code maxElapsedNanos} (itself if no longer). */
  RetryExecutor<R> withMaxElapsedNanos(long maxElapsedNanos) {
    RetryPolicy<R> shortened = policy.withMaxElapsedNanos(maxElapsedNanos);
    return shortened == policy ? this : new RetryExecutor<>(shortened, clock, sleeper, random, scheduler);
  }

  /** The policy. */
  public RetryPolicy<R> policy() {
    return policy;
  }

  /**
   * Calls {@code callable}, retrying under the policy.
   *
   * @return the first accepted result, or the last result if retries ran out on results
   * @throws Exception the last failure, unchanged, when retries stop on a failure
   * @throws InterruptedException if interrupted while waiting to retry, or before the retry starts (the
   *     interrupt flag is then set)
   * @throws NullPointerException if {@code callable} is null
   * @throws IllegalArgumentException if the policy hedges
   */
  public <T extends R> T call(Callable<T> callable) throws Exception {
    // Checked here: a null callable would otherwise fail inside the attempt and be retried.
    Nanos.requireNonNull("callable", callable);
    return SyncLoop.call(this, callable, SyncLoop.CALLABLE, null, null);
  }

  /**
   * Calls {@code callable}, retrying under the policy, and, if retrying ends without success for any
   * reason but an interrupt, returns what {@code recovery} supplies instead of throwing the last failure
   * (or returning the last retried result). See {@link Recovery}.
   *
   * @return the first accepted result, or the recovery's value
   * @throws Exception what the recovery throws
   * @throws IllegalArgumentException if the policy hedges
   * @throws InterruptedException if interrupted while waiting to retry, or before the retry starts (the
   *     interrupt flag is then set); the recovery does not run
   * @throws NullPointerException if an argument is null
   */
  public <T extends R> T call(Callable<T> callable, Recovery<T> recovery) throws Exception {
    Nanos.requireNonNull("callable", callable);
    Nanos.requireNonNull("recovery", recovery);
    return SyncLoop.call(this, callable, SyncLoop.CALLABLE, null, recovery);
  }

  /**
   * Runs {@code runnable}, retrying under the policy (its "result" is null).
   *
   * @throws Exception the last failure, unchanged, when retries stop
   * @throws InterruptedException if interrupted while waiting to retry, or before the retry starts (the
   *     interrupt flag is then set)
   * @throws NullPointerException if {@code runnable} is null
   * @throws IllegalArgumentException if the policy hedges
   */
  public void run(CheckedRunnable runnable) throws Exception {
    Nanos.requireNonNull("runnable", runnable);
    SyncLoop.call(this, runnable, SyncLoop.RUNNABLE, null, null);
  }

  /** Wraps {@code callable} so that each call of the wrapper retries under this executor. */
  public <T extends R> Callable<T> decorate(Callable<T> callable) {
    Nanos.requireNonNull("callable", callable);
    return () -> call(callable);
  }

  /** A block of code that may throw, for {@link #run}. */
  @FunctionalInterface
  public interface CheckedRunnable {
    /** Runs the block. */
    void run() throws Exception;
  }

}
