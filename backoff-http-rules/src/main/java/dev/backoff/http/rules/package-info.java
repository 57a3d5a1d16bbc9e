/**
 * The one place Backoff's HTTP retry rules live ({@link dev.backoff.http.rules.HttpRules}), with the
 * {@code Retry-After} parser ({@link dev.backoff.http.rules.RetryAfter}) and the two views an adapter fills
 * in from its client's types ({@link dev.backoff.http.rules.HttpRequestView},
 * {@link dev.backoff.http.rules.HttpResponseView}). No HTTP client's types appear here.
 *
 * <p>Thread-safety: the rules and the parser are immutable and safe for concurrent use; a view is what its
 * adapter makes it (usually a short-lived wrapper confined to one attempt).
 */
package dev.backoff.http.rules;
