package dev.backoff.lab;

import dev.backoff.CircuitOpenException;
import dev.backoff.ConcurrencyLimitedException;
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
import java.util.BitSet;
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
 * wait ends the call with a stop event but no attempt of its own; a call cancelled while it waits to retry
 * (the fleet closing) ends the same way; so the listener also hears when attempts start (per call), to
 * count each attempt's outcome once.
 *
 * <p>With hedging, a call has several attempts in flight and only the one that decides it is judged; the
 * others are cancelled without an event. So a hedged policy's listener counts every attempt when it starts
 * (hedges included), its outcome when the call judges it, and, when the call ends, every attempt still in
 * flight as cancelled; the hedge events count the hedges sent and won. The HTTP client the retrying client
 * sends through counts at the sending layer too ({@link CountingHttpClient}): every request handed to it and
 * every response that reached it, a losing hedge's included.
 */
final class HttpSender implements LogicalRequestSender {
  private final RetryingHttpClient client;
  private final HttpRequest request;
  private final AttemptObserver observer;
  private volatile boolean closed;
  /** The calls in flight, for close() to cancel. */
  private final Set<CompletableFuture<?>> calls = ConcurrentHashMap.newKeySet();

  HttpSender(HttpClient http, HttpRequest request, RetryPolicy.Builder<HttpResponse<?>> policy, Duration timeout,
      ScheduledExecutorService scheduler, AttemptObserver observer) {
    this.request = request;
    this.observer = observer;
    RetryPolicy<HttpResponse<?>> built = policy.build();
    RetryListener<HttpResponse<?>> listener = built.hedging() != null ? new HedgeListener(observer)
        : new TrackingListener(observer);
    this.client = RetryingHttpClient.builder(new CountingHttpClient(http, observer))
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
    CompletableFuture<HttpResponse<Void>> call = client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
    calls.add(call);
    if (closed) {
      call.cancel(true); // closed meanwhile, perhaps after close() went through the calls
    }
    return call
        .handle((response, failure) -> {
          calls.remove(call);
          for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof CircuitOpenException || cause instanceof RateLimitedException
                || cause instanceof ConcurrencyLimitedException) {
              observer.refused(); // the first attempt was refused: nothing was sent
              break;
            }
          }
          return failure == null && response.statusCode() == 200;
        });
  }

  /**
   * Stops: no new call starts, and every call in flight is cancelled, which cancels its attempts in flight
   * and its pending retry or hedge (the loop's listener hears of it), so its logical request completes with
   * false at once.
   */
  @Override
  public void close() {
    closed = true;
    for (CompletableFuture<?> call : calls) {
      call.cancel(true);
    }
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
      if (event.stopReason() == StopReason.CIRCUIT_OPEN || event.stopReason() == StopReason.RATE_LIMITED
          || event.stopReason() == StopReason.CONCURRENCY_LIMITED) {
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
   * The {@link Listener} of a policy that does not hedge: counts an event's attempt only if one started since
   * the call's last event (a retry a breaker or limiter refused after its wait ends the call without an
   * attempt, and so does a call cancelled while it waits to retry); an attempt in flight when its call is
   * cancelled (the fleet closing) is counted as cancelled.
   */
  private static final class TrackingListener extends Listener {
    private final Set<Object> attemptsInFlight = ConcurrentHashMap.newKeySet();

    TrackingListener(AttemptObserver observer) {
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
      if (!attemptsInFlight.remove(event.call())) {
        return;
      }
      if (event.stopReason() == StopReason.CANCELLED) {
        observer.attemptStarted();
        observer.attemptCancelled();
      } else {
        super.attemptEnded(event);
      }
    }
  }

  /**
   * The listener of a hedged policy: every attempt counted when it starts, its outcome when its call judges
   * it, and, when the call ends, each attempt still in flight (a loser, cancelled by the call) as cancelled,
   * so every started attempt ends once. Per-call state is keyed by the events' call object (the attempt
   * events make the loop provide it) and dropped when the call ends.
   */
  private static final class HedgeListener implements RetryListener<HttpResponse<?>> {
    private final AttemptObserver observer;
    /**
     * Calls by their token (compared by identity). An ended call stays, marked ended, until its token is
     * collected: a hedge whose start event arrives after the call ended then finds it ended and is counted as
     * started and cancelled, instead of opening an entry that would never end.
     */
    private final java.util.Map<Object, Call> calls =
        java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** One call's attempts in flight, by number. Guarded by its monitor. */
    private static final class Call {
      final BitSet inFlight = new BitSet();
      boolean ended;
    }

    HedgeListener(AttemptObserver observer) {
      this.observer = observer;
    }

    @Override
    public void onAttemptStarted(RetryEvent<HttpResponse<?>> event) {
      Call call = calls.computeIfAbsent(event.call(), key -> new Call());
      boolean late;
      synchronized (call) {
        late = call.ended;
        if (!late) {
          call.inFlight.set(event.attempts());
        }
      }
      observer.attemptStarted();
      if (late) {
        // A hedge whose hook was entered as the call ended: its request goes out (the sending layer counts it)
        // and the loop cancels it at once, so it is counted as started and cancelled, like any loser.
        observer.attemptCancelled();
        return;
      }
      if (event.attempts() > 1) {
        observer.hedgeStarted();
      }
    }

    @Override
    public void onAttemptFinished(RetryEvent<HttpResponse<?>> event) {
      Call call = calls.get(event.call());
      if (call == null) {
        return; // the call has ended: this attempt was counted as cancelled then
      }
      int number = event.attempts();
      synchronized (call) {
        if (call.ended || !call.inFlight.get(number)) {
          return;
        }
        call.inFlight.clear(number);
      }
      observer.attemptEnded(outcome(event.result(), event.failure()));
      if (number > 1) {
        observer.hedgeEnded();
      }
    }

    @Override
    public void onHedgeSent(RetryEvent<HttpResponse<?>> event) {
      observer.hedgeSent();
    }

    @Override
    public void onHedgeWon(RetryEvent<HttpResponse<?>> event) {
      observer.hedgeWon();
    }

    @Override
    public void onRetryScheduled(RetryEvent<HttpResponse<?>> event) {
      observer.retryScheduled();
    }

    @Override
    public void onSuccess(RetryEvent<HttpResponse<?>> event) {
      ended(event);
    }

    @Override
    public void onExhausted(RetryEvent<HttpResponse<?>> event) {
      if (event.stopReason() == StopReason.CIRCUIT_OPEN || event.stopReason() == StopReason.RATE_LIMITED
          || event.stopReason() == StopReason.CONCURRENCY_LIMITED) {
        observer.refused();
      }
      ended(event);
    }

    @Override
    public void onAborted(RetryEvent<HttpResponse<?>> event) {
      ended(event);
    }

    private void ended(RetryEvent<HttpResponse<?>> event) {
      Object key = event.call();
      Call call = key == null ? null : calls.get(key); // kept, marked ended: see calls
      if (call == null) {
        return; // no attempt started
      }
      BitSet losers;
      synchronized (call) {
        call.ended = true;
        losers = (BitSet) call.inFlight.clone();
        call.inFlight.clear();
      }
      for (int number = losers.nextSetBit(0); number >= 0; number = losers.nextSetBit(number + 1)) {
        observer.attemptCancelled();
        if (number > 1) {
          observer.hedgeEnded();
        }
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
