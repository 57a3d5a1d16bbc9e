package dev.backoff.driver;

import dev.backoff.Pushback;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;

/**
 * The engine's answer, without side effects, to "if this outcome came now, would the call be retried, and
 * after how long at least?", for a driver that must decide something before the engine records the outcome:
 * an HTTP adapter keeps (reads ahead) a response's body only when a retry may follow, and otherwise hands it
 * to the caller as it arrives.
 *
 * <p>It applies the engine's stop rules that follow from the policy, the judged {@link Verdict} and the
 * attempt's {@link AttemptContext} alone, in the engine's order: the driver's stop verdict, the server's
 * "stop" hint ({@link StopReason#PUSHBACK}), the attempts ({@link StopReason#ATTEMPTS_EXHAUSTED}), the
 * maximum pushback ({@link StopReason#PUSHBACK_TOO_LONG}) and the deadline: a retry whose earliest start is
 * past it ({@link StopReason#DEADLINE_EXCEEDED}). Where the preview says the engine stops, the engine stops
 * when it records the same outcome later (time only moves on). Where it says a retry may follow, the engine
 * may still stop on what a preview must not touch: the policy's retry and abort rules for a failure judged
 * {@link Verdict#RETRYABLE}, the policy's own pushback extractor, the budget (asking it would charge it), the
 * circuit breaker and the rate limiter, or a backoff that ends past the deadline. Nothing is asked, charged
 * or told; nothing is allocated for a stop.
 *
 * <p>For a policy without {@linkplain RetryPolicy#hedging() hedging}: a hedged call counts its attempts as
 * they start, so a hedging driver keeps every body until the call has a winner instead.
 *
 * <p>Immutable and thread-safe.
 *
 * @param stopReason why the engine will stop on the outcome, or null: when a retry may follow, or for an
 *     accepted outcome (the call succeeds)
 * @param mayRetry whether the engine may retry after the outcome: false means it will certainly not
 * @param earliestWaitNanos when a retry may follow, the least it waits in nanoseconds: the server's pushback
 *     hint, or zero without one (the engine waits {@code max(hint, backoff)}); zero otherwise
 */
public record RetryPreview(StopReason stopReason, boolean mayRetry, long earliestWaitNanos) {
  private static final RetryPreview[] STOPS = new RetryPreview[StopReason.values().length];
  private static final RetryPreview ACCEPTED = new RetryPreview(null, false, 0);
  private static final RetryPreview RETRY_AT_ONCE = new RetryPreview(null, true, 0);

  static {
    for (StopReason reason : StopReason.values()) {
      STOPS[reason.ordinal()] = new RetryPreview(reason, false, 0);
    }
  }

  /**
   * The preview of an outcome judged {@code verdict}, for attempt number {@code attempt} with
   * {@code nanosLeft} before the policy's deadline.
   *
   * @param policy the call's policy
   * @param verdict the outcome's verdict, as the driver's judge will give it to the engine
   * @param attempt the attempt's number, 1 for the first ({@link AttemptContext#attempt()} as it started)
   * @param nanosLeft the time left before the deadline ({@link AttemptContext#nanosLeft()}, read now), or
   *     {@link AttemptContext#NO_DEADLINE}
   * @throws NullPointerException if {@code policy} or {@code verdict} is null
   * @throws IllegalArgumentException if {@code attempt} is below 1
   */
  public static RetryPreview of(RetryPolicy<?> policy, Verdict verdict, int attempt, long nanosLeft) {
    return preview(policy, verdict, attempt, null, nanosLeft);
  }

  /**
   * As {@link #of(RetryPolicy, Verdict, int, long)}, with the time left read from {@code context} only if
   * the answer depends on it (it reads the loop's clock when the policy has a deadline).
   *
   * @param attempt the attempt's number, 1 for the first, as it started (the context moves on)
   * @throws NullPointerException if {@code policy}, {@code verdict} or {@code context} is null
   * @throws IllegalArgumentException if {@code attempt} is below 1
   */
  public static RetryPreview of(RetryPolicy<?> policy, Verdict verdict, int attempt, AttemptContext context) {
    RetryLoops.requireNonNull("context", context);
    return preview(policy, verdict, attempt, context, 0);
  }

  private static RetryPreview preview(RetryPolicy<?> policy, Verdict verdict, int attempt, AttemptContext context,
      long nanosLeft) {
    RetryLoops.requireNonNull("policy", policy);
    RetryLoops.requireNonNull("verdict", verdict);
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
    }
    if (verdict.isAccept()) {
      return ACCEPTED;
    }
    if (verdict.stopReason() != null) {
      return STOPS[verdict.stopReason().ordinal()];
    }
    // The policy's extractor needs the outcome itself: its hint is unknown here, so it stops nothing.
    long hint = verdict.usesPolicyPushback() ? Pushback.NONE : verdict.pushbackHintNanos();
    if (hint == Pushback.STOP) {
      return STOPS[StopReason.PUSHBACK.ordinal()];
    }
    if (attempt >= policy.maxAttempts()) {
      return STOPS[StopReason.ATTEMPTS_EXHAUSTED.ordinal()];
    }
    if (hint >= 0 && hint > policy.maxPushback().toNanos()) {
      return STOPS[StopReason.PUSHBACK_TOO_LONG.ordinal()];
    }
    long earliest = Math.max(hint, 0);
    long left = context == null ? nanosLeft : context.nanosLeft();
    if (left != AttemptContext.NO_DEADLINE && earliest > left) {
      return STOPS[StopReason.DEADLINE_EXCEEDED.ordinal()];
    }
    return earliest == 0 ? RETRY_AT_ONCE : new RetryPreview(null, true, earliest);
  }

  @Override
  public String toString() {
    return mayRetry ? "may retry after at least " + earliestWaitNanos + " ns"
        : stopReason == null ? "accepted" : "stops: " + stopReason.description();
  }
}
