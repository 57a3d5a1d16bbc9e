/**
 * Kotlin coroutines driver for Backoff: {@code policy.retrying { ... }} (a suspending call retried under a
 * {@link dev.backoff.RetryPolicy}, waiting with {@code delay}), {@code flow.retry(policy)}, and the
 * {@code retryPolicy { ... }} builder DSL. Every retry decision is the core asynchronous loop's.
 *
 * <p>The sources are Kotlin ({@code Retrying.kt}, {@code FlowRetry.kt}, {@code PolicyDsl.kt}); the jar has no
 * module descriptor, and names itself {@code dev.backoff.kotlin} in its manifest for the module path.
 * Thread-safety: the functions are stateless; a policy is immutable.
 */
package dev.backoff.kotlin;
