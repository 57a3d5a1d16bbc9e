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
 * </ul>
 *
 * @param <R> the result type
 */
public final class RetryExecutor<R> {
  final RetryPolicy<R> policy;
  final NanoClock clock;
  final Sleeper sleeper;
  final RandomGenerator random;

  private RetryExecutor(RetryPolicy<R> policy, NanoClock clock, Sleeper sleeper, RandomGenerator random) {
    this.policy = policy;
    this.clock = clock;
    this.sleeper = sleeper;
    this.random = random;
  }

  /** An executor using the policy's clock, sleeper and random source. */
  public static <R> RetryExecutor<R> of(RetryPolicy<R> policy) {
    Nanos.requireNonNull("policy", policy);
    return new RetryExecutor<>(policy, policy.clock, policy.sleeper, policy.random);
  }

  /** A copy that reads this clock instead of the policy's. */
  public RetryExecutor<R> withClock(NanoClock clock) {
    Nanos.requireNonNull("clock", clock);
    return new RetryExecutor<>(policy, clock, sleeper, random);
  }

  /** A copy that sleeps with this sleeper instead of the policy's. */
  public RetryExecutor<R> withSleeper(Sleeper sleeper) {
    Nanos.requireNonNull("sleeper", sleeper);
    return new RetryExecutor<>(policy, clock, sleeper, random);
  }

  /** A copy that draws jitter from this random source instead of the policy's. */
  public RetryExecutor<R> withRandom(RandomGenerator random) {
    Nanos.requireNonNull("random", random);
    return new RetryExecutor<>(policy, clock, sleeper, random);
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
   */
  public <T extends R> T call(Callable<T> callable) throws Exception {
    // Checked here: a null callable would otherwise fail inside the attempt and be retried.
    Nanos.requireNonNull("callable", callable);
    return SyncLoop.call(this, callable, SyncLoop.CALLABLE, null);
  }

  /**
   * Runs {@code runnable}, retrying under the policy (its "result" is null).
   *
   * @throws Exception the last failure, unchanged, when retries stop
   * @throws InterruptedException if interrupted while waiting to retry, or before the retry starts (the
   *     interrupt flag is then set)
   * @throws NullPointerException if {@code runnable} is null
   */
  public void run(CheckedRunnable runnable) throws Exception {
    Nanos.requireNonNull("runnable", runnable);
    SyncLoop.call(this, runnable, SyncLoop.RUNNABLE, null);
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
