/**
 * A retrying {@link java.net.http.HttpClient} wrapper ({@link dev.backoff.http.RetryingHttpClient}) with
 * conservative rules: only what is safe to repeat is retried, and a server's {@code Retry-After} is honoured
 * within the policy's limits.
 *
 * <p>Thread-safety: the client and the rules are immutable and safe for concurrent use, like the
 * {@code HttpClient} they wrap.
 */
package dev.backoff.http;
