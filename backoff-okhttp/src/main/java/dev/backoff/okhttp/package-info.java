/**
 * Backoff for OkHttp ({@link dev.backoff.okhttp.BackoffOkHttp}): an application
 * {@link okhttp3.Interceptor} for calls run with {@code execute()}, and a non-blocking asynchronous call
 * ({@link dev.backoff.okhttp.BackoffOkHttp#enqueue}) that waits on a scheduler instead of a thread. Both
 * judge through {@link dev.backoff.http.rules.HttpRules}, the rules every Backoff HTTP adapter shares.
 *
 * <p>Thread-safety: {@code BackoffOkHttp} and its interceptor are immutable and safe for concurrent use,
 * like the {@code OkHttpClient} they serve.
 */
package dev.backoff.okhttp;
