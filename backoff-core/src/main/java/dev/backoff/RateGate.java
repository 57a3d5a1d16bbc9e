package dev.backoff;

import dev.backoff.driver.SyncAttempt;
import java.util.concurrent.CancellationException;

/**
 * The loops' gate in front of every attempt of a policy with an {@link AdaptiveRateLimiter}: takes the
 * attempt's token, and says how long to wait for it or why the call must stop instead. The synchronous loop
 * waits here on the policy's sleeper (or a driver's wait); the asynchronous loop schedules the attempt after
 * the wait itself.
 */
final class RateGate {
  private RateGate() {}

  /**
   * Takes a token for the attempt about to start and waits for it (synchronous loop). Returns null to go
   * ahead, or why the call must stop: {@link StopReason#RATE_LIMITED} (refused),
   * {@link StopReason#DEADLINE_EXCEEDED} (the wait would end past the deadline) or
   * {@link StopReason#CANCELLED} (a driver's wait said the call was cancelled). A call that does not go ahead
   * gives its token back.
   *
   * @param startNanos the call's start, for the deadline
   * @throws InterruptedException if the thread was interrupted while waiting (its flag set again)
   */
  static StopReason await(RetryPolicy<?> policy, Object target, int kind, Sleeper sleeper, long startNanos,
      NanoClock clock) throws InterruptedException {
    AdaptiveRateLimiter limiter = policy.rateLimiter;
    long wait = limiter.reserve();
    if (wait == 0) {
      return null;
    }
    StopReason refusal = refusal(policy, wait, startNanos, clock);
    if (refusal != null) {
      return refusal;
    }
    boolean goOn = true;
    try {
      if (kind == SyncLoop.HOOK) {
        goOn = ((SyncAttempt<?>) target).waitToRetry(wait, sleeper);
      } else {
        sleeper.sleep(wait);
      }
    } catch (InterruptedException interrupted) {
      limiter.unreserve();
      Thread.currentThread().interrupt();
      throw interrupted;
    } catch (RuntimeException | Error unexpected) {
      limiter.unreserve();
      throw unexpected;
    }
    if (!goOn) {
      limiter.unreserve();
      return StopReason.CANCELLED;
    }
    // An interrupt that lands after the wait (or a sleeper that ignores it) must not start the attempt.
    if (Thread.currentThread().isInterrupted()) {
      limiter.unreserve();
      throw new InterruptedException("interrupted while waiting for the rate limiter's token");
    }
    return null;
  }

  /**
   * Why a reservation that returned {@code wait} (non-zero) cannot be waited for: refused by the limiter,
   * or ending past the deadline (its token then given back); null if it can.
   */
  static StopReason refusal(RetryPolicy<?> policy, long wait, long startNanos, NanoClock clock) {
    if (wait < 0) {
      return StopReason.RATE_LIMITED;
    }
    if (policy.maxElapsedNanos != Long.MAX_VALUE
        && Nanos.add(clock.nanoTime() - startNanos, wait) > policy.maxElapsedNanos) {
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
    RateLimitedException refused = policy.rateLimiter.refusal(reason == StopReason.RATE_LIMITED
        ? "refused the first attempt: its wait for a token exceeded the limiter's maximum wait, "
            + Nanos.format(policy.rateLimiter.maxWait().toNanos())
        : "refused the first attempt: its wait for a token would end past the policy's deadline, "
            + Nanos.format(policy.maxElapsedNanos));
    if (recovery == null) {
      throw refused;
    }
    return recovery.recover(null, refused, new RetryHistory(policy.name, 0, 0, reason));
  }
}
