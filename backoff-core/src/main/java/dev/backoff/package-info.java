/**
 * Retrying failed calls: backoff strategies and presets ({@link dev.backoff.Backoff}), the policy
 * ({@link dev.backoff.RetryPolicy}), the synchronous and asynchronous executors, retry budgets, listeners
 * and events, and the seams for time and sleeping ({@link dev.backoff.Sleeper} and the monotonic clock).
 *
 * <p>Thread-safety: strategies, policies, executors and the built-in budgets are immutable or safe for
 * concurrent use and meant to be shared; builders are not thread-safe. Each type's Javadoc says which.
 * The API speaks {@link java.time.Duration}; every builder argument is validated at once.
 */
package dev.backoff;
