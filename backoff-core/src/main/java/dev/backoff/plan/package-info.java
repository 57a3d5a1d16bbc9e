/**
 * Planning math over any backoff: a schedule's sleeps and elapsed times, their distribution under
 * jitter, closed forms for geometric schedules and a solver that answers tuning questions (or says, with
 * {@link dev.backoff.plan.UnsolvableException}, why there is no answer).
 *
 * <p>Thread-safety: every type here is immutable or stateless, and thread-safe.
 */
package dev.backoff.plan;
