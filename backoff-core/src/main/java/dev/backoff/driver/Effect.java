package dev.backoff.driver;

import dev.backoff.StopReason;

/**
 * The call state machine's effects, as the numbers {@link Engine}'s machine inputs answer with, so that no
 * path allocates: a wait ({@code >= 0}, its length in nanoseconds, then the timer's input), {@link #START},
 * a completion ({@link #SUCCEEDED}, {@link #STOPPED}, and the {@code REFUSED_*} of a first attempt refused by
 * a gate before the call has an execution), or a re-check ({@link #isRecheck}). A driver carries out the
 * effect and decides nothing itself. Constants and pure functions only: thread-safe.
 */
public final class Effect {
  /** The call completed with the accepted result (the execution's last result, or the first attempt's). */
  public static final long SUCCEEDED = -1;
  /**
   * The call completed without success; its execution says why ({@link CallState#stopReason()})
   * and holds its last outcome (a retried result the call ends with, or the last failure).
   */
  public static final long STOPPED = -2;
  /** Start the next attempt now, with the breaker's permit the gate was asked with. */
  public static final long START = -3;
  /** The circuit breaker refused the first attempt: the call completes without an execution. */
  public static final long REFUSED_CIRCUIT_OPEN = -4;
  /** The rate limiter refused the first attempt: its wait would exceed the limiter's maximum wait. */
  public static final long REFUSED_RATE_LIMITED = -5;
  /** The rate limiter's wait for the first attempt would end past the policy's deadline. */
  public static final long REFUSED_DEADLINE = -6;
  /** The concurrency limiter refused the first attempt. */
  public static final long REFUSED_CONCURRENCY_LIMITED = -8;
  // -7 is hedging's NO_MORE_HEDGES (Engine); a re-check is below -9.
  private static final long RECHECK = -9;

  private Effect() {}

  /** Whether the effect is a wait ({@code >= 0} nanoseconds) after which the timer's input is due. */
  public static boolean isWait(long effect) {
    return effect >= 0;
  }

  /**
   * Whether the effect is a re-check (the rate limiter's wait is beyond its horizon): wait
   * {@link #recheckNanos} holding no breaker permit, no concurrency slot and no limiter token, then ask the
   * whole gate again (priced at the rate of that moment).
   */
  public static boolean isRecheck(long effect) {
    return effect < RECHECK;
  }

  /**
   * The wait of a re-check effect, in nanoseconds.
   *
   * @throws IllegalArgumentException if {@code effect} is not a re-check
   */
  public static long recheckNanos(long effect) {
    if (!isRecheck(effect)) {
      throw new IllegalArgumentException("not a re-check: " + effect);
    }
    return RECHECK - effect;
  }

  /**
   * Why a first attempt refused by a gate was refused: the stop reason of a {@code REFUSED_*} effect
   * ({@link #REFUSED_CIRCUIT_OPEN}: {@code CIRCUIT_OPEN}, {@link #REFUSED_RATE_LIMITED}: {@code RATE_LIMITED},
   * {@link #REFUSED_DEADLINE}: {@code DEADLINE_EXCEEDED}, {@link #REFUSED_CONCURRENCY_LIMITED}:
   * {@code CONCURRENCY_LIMITED}).
   *
   * @throws IllegalArgumentException if {@code effect} is not a first attempt's refusal
   */
  public static StopReason refusal(long effect) {
    if (effect == REFUSED_CIRCUIT_OPEN) {
      return StopReason.CIRCUIT_OPEN;
    }
    if (effect == REFUSED_RATE_LIMITED) {
      return StopReason.RATE_LIMITED;
    }
    if (effect == REFUSED_DEADLINE) {
      return StopReason.DEADLINE_EXCEEDED;
    }
    if (effect == REFUSED_CONCURRENCY_LIMITED) {
      return StopReason.CONCURRENCY_LIMITED;
    }
    throw new IllegalArgumentException("not a refusal: " + effect);
  }
}
