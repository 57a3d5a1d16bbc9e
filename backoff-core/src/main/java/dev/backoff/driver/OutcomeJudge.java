package dev.backoff.driver;

import dev.backoff.RetryPolicy;

/**
 * A loop's outcome hook: judges one attempt's outcome before the decision engine sees it. It runs exactly
 * once per attempt, before any per-call state exists for a first attempt, so a judge that accepts keeps
 * the success path free of allocation. A driver adds its own rules and falls back on
 * {@link #policyRules()} (the HTTP driver stops on a request that must not be repeated, and reads
 * {@code Retry-After} as a pushback hint).
 *
 * <p>Must be thread-safe if shared by calls; an asynchronous loop calls it on whichever thread completes an
 * attempt. A judge that throws ends the call with that exception.
 *
 * @param <R> the policy's result type
 */
@FunctionalInterface
public interface OutcomeJudge<R> {
  /**
   * Judges an attempt's outcome.
   *
   * @param policy the call's policy
   * @param result the attempt's result, or null if it failed
   * @param failure the attempt's failure (unwrapped from {@code CompletionException}), or null
   * @return the verdict; never {@link Verdict#ACCEPT} for a failure
   */
  Verdict judge(RetryPolicy<R> policy, R result, Throwable failure);

  /**
   * The policy's own rules, the executors' judge: a failure is {@link Verdict#RETRYABLE} (the engine
   * applies the retry and abort rules), a result is {@link Verdict#RETRYABLE} when the policy's
   * {@code retryOnResult} predicate matches it (tested once), else {@link Verdict#ACCEPT}.
   */
  @SuppressWarnings("unchecked")
  static <R> OutcomeJudge<R> policyRules() {
    return (OutcomeJudge<R>) PolicyRules.INSTANCE;
  }
}

/** The policy's rules; one instance, so every loop's judge call site sees it. */
enum PolicyRules implements OutcomeJudge<Object> {
  INSTANCE;

  @Override
  public Verdict judge(RetryPolicy<Object> policy, Object result, Throwable failure) {
    if (failure != null) {
      return Verdict.RETRYABLE;
    }
    return Bridge.core().retriesResult(policy, result) ? Verdict.RETRYABLE : Verdict.ACCEPT;
  }
}
