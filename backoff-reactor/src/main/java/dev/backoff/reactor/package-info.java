/**
 * Retrying Project Reactor publishers under a {@link dev.backoff.RetryPolicy}: the operators in
 * {@link dev.backoff.reactor.BackoffOperators} run each attempt as a subscription to the source on the
 * core's asynchronous retry loop, and wait between attempts on a Reactor {@code Scheduler} through
 * {@link dev.backoff.reactor.ReactorRetryScheduler}, so no thread blocks and {@code StepVerifier.withVirtualTime}
 * drives the waits.
 *
 * <p>Thread-safety: every public type here is immutable and safe for concurrent use.
 */
package dev.backoff.reactor;
