package dev.backoff.lab;

import dev.backoff.CircuitOpenException;
import dev.backoff.RateLimitedException;
import dev.backoff.StopReason;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.http.RetryingHttpClient;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Retries with backoff-http's {@link RetryingHttpClient}, the client users ship: its asynchronous calls wait
 * for retries on the fleet's scheduler without holding a thread, and the policy's listener reports each
 * attempt's outcome to the observer (a failed attempt as the retry it causes or the stop it ends in, a good
 * one as the success).
 *
 * <p>With a circuit breaker or an adaptive rate limiter, a refused first attempt fails the call with a
 * {@link CircuitOpenException} or {@link RateLimitedException} and no event, and a retry refused after its
 * wait ends the call with a stop event but no attempt of its own; so such a policy's listener also hears when
 * attempts start (per call), to count each attempt's outcome once.
 */
final class HttpSender implements LogicalRequestSender {
  private final RetryingHttpClient client;
  private final HttpRequest request;
  private final AttemptObserver observer;
  private volatile boolean closed;

  HttpSender(HttpClient http, HttpRequest request, RetryPolicy.Builder<HttpResponse<?>> policy, Duration timeout,
      ScheduledExecutorService scheduler, AttemptObserver observer) {
    this.request = request;
    this.observer = observer;
    RetryPolicy<HttpResponse<?>> built = policy.build();
    Listener listener = built.circuitBreaker() != null || built.rateLimiter() != null
        ? new BreakerListener(observer) : new Listener(observer);
    this.client = RetryingHttpClient.builder(http)
        .policy(built.toBuilder().listener(listener).maxSuppressed(0).build())
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
        .handle((response, failure) -> {
          for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof CircuitOpenException || cause instanceof RateLimitedException) {
              observer.refused(); // the first attempt was refused: nothing was sent
              break;
            }
          }
          return failure == null && response.statusCode() == 200;
        });
  }

  @Override
  public void close() {
    closed = true;
  }

  /** Turns the policy's events into attempt outcomes; one event per attempt. */
  private static class Listener implements RetryListener<HttpResponse<?>> {
    final AttemptObserver observer;

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
      if (event.stopReason() == StopReason.CIRCUIT_OPEN || event.stopReason() == StopReason.RATE_LIMITED) {
        observer.refused();
      }
      attemptEnded(event);
    }

    @Override
    public void onAborted(RetryEvent<HttpResponse<?>> event) {
      attemptEnded(event);
    }

    void attemptEnded(RetryEvent<HttpResponse<?>> event) {
      observer.attemptStarted();
      observer.attemptEnded(outcome(event.result(), event.failure()));
    }
  }

  /**
   * A {@link Listener} for a policy with a breaker: counts an event's attempt only if one started since the
   * call's last event (a retry the breaker refused after its wait ends the call without an attempt).
   */
  private static final class BreakerListener extends Listener {
    private final Set<Object> attemptsInFlight = ConcurrentHashMap.newKeySet();

    BreakerListener(AttemptObserver observer) {
      super(observer);
    }

    @Override
    public void onAttemptStarted(RetryEvent<HttpResponse<?>> event) {
      attemptsInFlight.add(event.call());
    }

    @Override
    public void onSuccess(RetryEvent<HttpResponse<?>> event) {
      attemptsInFlight.remove(event.call());
      super.onSuccess(event);
    }

    @Override
    void attemptEnded(RetryEvent<HttpResponse<?>> event) {
      if (attemptsInFlight.remove(event.call())) {
        super.attemptEnded(event);
      }
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
