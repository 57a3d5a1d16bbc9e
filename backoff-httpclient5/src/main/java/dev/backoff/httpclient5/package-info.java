/**
 * Backoff inside Apache HttpClient 5: {@link dev.backoff.httpclient5.HttpClient5Retry} puts one retry
 * handler, driven by a {@link dev.backoff.RetryPolicy} and the shared HTTP rules, in the place of the
 * client's own retry element, for the classic and the async client.
 */
package dev.backoff.httpclient5;
