/**
 * Retry metrics on a Micrometer {@code MeterRegistry}: attempts, retries and outcomes per policy, through
 * a listener ({@link dev.backoff.micrometer.BackoffMetrics}).
 *
 * <p>Thread-safety: the binder and its listeners are safe for concurrent use.
 */
package dev.backoff.micrometer;
