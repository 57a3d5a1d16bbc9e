package dev.backoff;

import java.util.concurrent.CancellationException;

/**
 * The rate limiter's refusals, for the {@link CallMachine}'s gate in front of every attempt of a policy with
 * an {@link AdaptiveRateLimiter}: why a token's wait cannot be waited for, and how a refused first attempt
 * ends.
 */
final class RateGate {
  private RateGate() {}

  /**
   * Why a reservation that returned {@code wait} (non-zero) cannot be waited for: refused by the limiter,
   * or ending past the deadline (its token then given back); null if it can.
   */
  static StopReason refusal(RetryPolicy<?> policy, long wait, long startNanos, NanoClock clock) {
    // The clock is read only when a deadline needs it.
    return refusalAt(policy, wait, startNanos, wait < 0 || policy.maxElapsedNanos == Long.MAX_VALUE ? startNanos
        : clock.nanoTime());
  }

  /** {@link #refusal}, with the clock's reading {@code nowNanos} taken by the caller. */
  static StopReason refusalAt(RetryPolicy<?> policy, long wait, long startNanos, long nowNanos) {
    if (wait < 0) {
      return StopReason.RATE_LIMITED;
    }
    if (policy.maxElapsedNanos != Long.MAX_VALUE
        && Nanos.add(nowNanos - startNanos, wait) > policy.maxElapsedNanos) {
      policy.rateLimiter.unreserve();
      return StopReason.DEADLINE_EXCEEDED;
    }
    return null;
  }

  /**
   * The first attempt was stopped by the gate: the call fails with a {@link RateLimitedException} (or a
   * {@link CancellationException} when a driver cancelled it), or gets its recovery's value.
   */
  static <T> T refusedFirst(RetryPolicy<?> policy, StopReason reason, Recovery<T> recovery) throws Exception {
    if (reason == StopReason.CANCELLED) {
      throw new CancellationException("the call was cancelled while waiting for the rate limiter");
    }
    RateLimitedException refused = refusal(policy, reason);
    if (recovery == null) {
      throw refused;
    }
    return recovery.recover(null, refused, new RetryHistory(policy.name, 0, 0, reason));
  }

  /**
   * The failure of a call whose first attempt the rate limiter refused, for {@code reason}
   * ({@link StopReason#RATE_LIMITED}: its wait exceeded the limiter's maximum; else the wait would end past the
   * policy's deadline).
   */
  static RateLimitedException refusal(RetryPolicy<?> policy, StopReason reason) {
    return policy.rateLimiter.refusal(reason == StopReason.RATE_LIMITED
        ? "refused the first attempt: its wait for a token exceeded the limiter's maximum wait, "
            + Nanos.format(policy.rateLimiter.maxWait().toNanos())
        : "refused the first attempt: its wait for a token would end past the policy's deadline, "
            + Nanos.format(policy.maxElapsedNanos));
  }
}
