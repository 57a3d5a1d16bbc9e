/**
 * OpenTelemetry for Backoff: {@link dev.backoff.opentelemetry.RetryTelemetry} makes a
 * {@link dev.backoff.RetryListener} that traces each retried call as one span with a child span per
 * attempt, and records Backoff's metrics on an OpenTelemetry {@code Meter}. Micrometer
 * ({@code backoff-micrometer}) stays the primary metrics path; this module is for applications that
 * export through OpenTelemetry.
 *
 * <p>Thread-safety: a {@code RetryTelemetry} and its listeners are safe for concurrent use.
 */
package dev.backoff.opentelemetry;
