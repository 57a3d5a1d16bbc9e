package dev.backoff.driver;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryExecutor;
import java.util.concurrent.CompletableFuture;

/**
 * The core's two retry loops, which every driver plugs into with two hooks: an attempt
 * ({@link SyncAttempt} or {@link AsyncAttempt}) and an {@link OutcomeJudge}. The executors run on them
 * ({@code RetryExecutor.call} is {@code sync(executor, attempt, OutcomeJudge.policyRules())}), and so do
 * the HTTP client and any other driver: a driver translates its client's types and adds its rules to the
 * judge; it never owns a loop.
 *
 * <p>Both loops apply the first-attempt rule in one place: the clock is read before the first attempt only
 * when the policy has a deadline or listeners, and a call that succeeds at once tells the budget and
 * listeners without creating an {@link CallState}, so a first-try success allocates nothing.
 * Both also give every driver the policy's attempt timeout (the asynchronous loop always; the synchronous
 * one when the policy interrupts on timeout) and attempt events for its listeners, so a driver adds
 * neither. Thread-safe (stateless).
 */
public final class RetryLoops {
  private RetryLoops() {}

  /**
   * Runs a call on the calling thread: the attempt, then, while the engine says retry, a sleep with the
   * executor's sleeper and another attempt. Uses the executor's policy, clock, sleeper and random source.
   *
   * <p>Outcomes are the executor's: the accepted result; the last result if retries stop on a result; the
   * last failure, unchanged, with earlier failures and a {@code RetryHistory} attached, if they stop on a
   * failure. A failed attempt while the thread is interrupted stops the call ({@code INTERRUPTED}); an
   * interrupted sleep stops it and throws the {@link InterruptedException}. The interrupt flag is set
   * again whenever the call stops as {@code INTERRUPTED}.
   *
   * @throws Exception the last failure, when retries stop on a failure
   * @throws InterruptedException if interrupted while sleeping
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the policy {@linkplain dev.backoff.RetryPolicy#hedging() hedges} (a
   *     synchronous call cannot run attempts side by side)
   */
  public static <R, T extends R> T sync(RetryExecutor<R> executor, SyncAttempt<T> attempt, OutcomeJudge<R> judge)
      throws Exception {
    requireNonNull("executor", executor);
    requireNonNull("attempt", attempt);
    requireNonNull("judge", judge);
    return Bridge.core().sync(executor, attempt, judge);
  }

  /**
   * Starts a call whose attempts complete stages: the first attempt runs now on the calling thread, each
   * retry is a task on the executor's scheduler, and no thread waits in between. Cancelling or completing
   * the returned future stops the call: no attempt starts after it, the attempt in flight is cancelled
   * where its stage allows, and a result that still arrives goes to {@link AsyncAttempt#discard}.
   *
   * <p>When the policy {@linkplain dev.backoff.RetryPolicy#hedging() hedges}, several attempts of the call
   * may be in flight at once (see {@link dev.backoff.Hedging}): the attempt hook is then called again while
   * earlier stages are pending, and {@code discard} and the judge may see any attempt's outcome. A driver
   * must keep per-attempt state in the attempt (or find it from the outcome), not in one field of the call.
   *
   * @return the call's future; also the handle to cancel it
   * @throws NullPointerException if an argument is null
   */
  public static <R, T extends R> CompletableFuture<T> async(AsyncRetryExecutor<R> executor, AsyncAttempt<T> attempt,
      OutcomeJudge<R> judge) {
    requireNonNull("executor", executor);
    requireNonNull("attempt", attempt);
    requireNonNull("judge", judge);
    return Bridge.core().async(executor, attempt, judge);
  }

  /**
   * An executor like {@code executor} whose policy's deadline is at most {@code nanosLeft}, for a call that
   * carries its own deadline (a gRPC call's): the engine then starts no wait that would end past it. Returns
   * {@code executor} itself when its policy's deadline is no longer; otherwise a copy sharing the policy's
   * settings (two small objects, nothing copied), with the same scheduler, clock and random source.
   *
   * @param nanosLeft the call's time left, in nanoseconds of the executor's clock
   * @throws IllegalArgumentException if {@code nanosLeft} is not positive
   * @throws NullPointerException if {@code executor} is null
   */
  public static <R> AsyncRetryExecutor<R> within(AsyncRetryExecutor<R> executor, long nanosLeft) {
    requireNonNull("executor", executor);
    if (nanosLeft <= 0) {
      throw new IllegalArgumentException("nanosLeft must be positive, was " + nanosLeft);
    }
    return Bridge.core().within(executor, nanosLeft);
  }

  /**
   * An executor like {@code executor} whose policy's deadline is at most {@code nanosLeft}, for a call that
   * carries its own deadline (an OkHttp call's timeout): the engine then starts no sleep that would end past
   * it. Returns {@code executor} itself when its policy's deadline is no longer; otherwise a copy sharing the
   * policy's settings (two small objects, nothing copied), with the same clock, sleeper, random source and
   * watchdog scheduler. The synchronous twin of {@link #within(AsyncRetryExecutor, long)}.
   *
   * @param nanosLeft the call's time left, in nanoseconds of the executor's clock
   * @throws IllegalArgumentException if {@code nanosLeft} is not positive
   * @throws NullPointerException if {@code executor} is null
   */
  public static <R> RetryExecutor<R> within(RetryExecutor<R> executor, long nanosLeft) {
    requireNonNull("executor", executor);
    if (nanosLeft <= 0) {
      throw new IllegalArgumentException("nanosLeft must be positive, was " + nanosLeft);
    }
    return Bridge.core().within(executor, nanosLeft);
  }

  static void requireNonNull(String name, Object value) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
  }
}
