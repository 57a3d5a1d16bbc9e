package dev.backoff.lab;

import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.http.RetryingHttpClient;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Retries with backoff-http's {@link RetryingHttpClient}, the client users ship: its asynchronous calls wait
 * for retries on the fleet's scheduler without holding a thread, and the policy's listener reports each
 * attempt's outcome to the observer (a failed attempt as the retry it causes or the stop it ends in, a good
 * one as the success).
 */
final class HttpSender implements LogicalRequestSender {
  private final RetryingHttpClient client;
  private final HttpRequest request;
  private volatile boolean closed;

  HttpSender(HttpClient http, HttpRequest request, RetryPolicy.Builder<HttpResponse<?>> policy, Duration timeout,
      ScheduledExecutorService scheduler, AttemptObserver observer) {
    this.request = request;
    this.client = RetryingHttpClient.builder(http)
        .policy(policy.build().toBuilder().listener(new Listener(observer)).maxSuppressed(0).build())
        .attemptTimeout(timeout)
        .scheduler(scheduler)
        .build();
  }

  @Override
  public CompletableFuture<Boolean> send() {
    if (closed) {
      return CompletableFuture.completedFuture(false);
    }
    return client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .handle((response, failure) -> failure == null && response.statusCode() == 200);
  }

  @Override
  public void close() {
    closed = true;
  }

  /** Turns the policy's events into attempt outcomes; one event per attempt. */
  private static final class Listener implements RetryListener<HttpResponse<?>> {
    private final AttemptObserver observer;

    Listener(AttemptObserver observer) {
      this.observer = observer;
    }

    @Override
    public void onRetryScheduled(RetryEvent<HttpResponse<?>> event) {
      attemptEnded(event);
      observer.retryScheduled();
    }

    @Override
    public void onSuccess(RetryEvent<HttpResponse<?>> event) {
      // Judged by its response alone: the succeeding attempt has no failure.
      observer.attemptStarted();
      observer.attemptEnded(outcome(event.result(), null));
    }

    @Override
    public void onExhausted(RetryEvent<HttpResponse<?>> event) {
      attemptEnded(event);
    }

    @Override
    public void onAborted(RetryEvent<HttpResponse<?>> event) {
      attemptEnded(event);
    }

    private void attemptEnded(RetryEvent<HttpResponse<?>> event) {
      observer.attemptStarted();
      observer.attemptEnded(outcome(event.result(), event.failure()));

    }
  }

  static AttemptObserver.Outcome outcome(HttpResponse<?> response, Throwable failure) {
    if (failure != null) {
      for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
        if (cause instanceof HttpTimeoutException) {
          return AttemptObserver.Outcome.TIMEOUT;
        }
      }
      return AttemptObserver.Outcome.ERROR;
    }
    return response != null && response.statusCode() == 200 ? AttemptObserver.Outcome.OK
        : AttemptObserver.Outcome.ERROR;
  }
}
