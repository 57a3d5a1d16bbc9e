package dev.backoff.http;

import dev.backoff.Clock;
import dev.backoff.Decision;
import dev.backoff.Execution;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One asynchronous call: drives the decision engine over {@code HttpClient.sendAsync}, scheduling each
 * retry on the scheduler so no thread waits. Attempts happen one after another; the lock only guards the
 * hand-over of state between the attempt's completion, the scheduler and a cancelling caller, and is never
 * held while sending or completing the caller's future.
 */
final class AsyncCall<T> {
  private final RetryingHttpClient owner;
  private final RetryPolicy<HttpResponse<?>> policy;
  private final HttpRequest request;
  private final boolean repeatable;
  private final BodyHandler<T> handler;
  private final Clock clock;
  private final CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
  private final long start;

  // Guarded by this.
  private Execution<HttpResponse<?>> execution;
  private Future<?> pending; // the scheduled retry or the attempt in flight
  private Attempt<T> current; // the attempt in flight, or whose last response is being handed over
  private int attempts;
  private boolean cancelled;

  AsyncCall(RetryingHttpClient owner, RetryPolicy<HttpResponse<?>> policy, HttpRequest request, boolean repeatable,
      BodyHandler<T> handler) {
    this.owner = owner;
    this.policy = policy;
    this.request = request;
    this.repeatable = repeatable;
    this.handler = handler;
    this.clock = policy.clock();
    this.start = policy.needsStartTime() ? clock.nanoTime() : 0;
    // Whoever completes the future (cancel, orTimeout, complete...) ends the call: the pending retry or the
    // attempt in flight is cancelled and the listeners hear of it. After this call's own completion it finds
    // nothing left to stop.
    result.whenComplete((response, failure) -> stopRetrying());
  }

  CompletableFuture<HttpResponse<T>> result() {
    return result;
  }

  void start() {
    attempt();
  }

  private void attempt() {
    Attempt<T> attempt;
    synchronized (this) {
      if (cancelled || result.isDone()) {
        return; // cancelled while the retry was pending: no further attempt
      }
      attempt = new Attempt<>(owner, policy, request, repeatable, ++attempts, start, handler);
      current = attempt;
    }
    CompletableFuture<HttpResponse<Object>> inFlight;
    attempt.startTimer();
    try {
      inFlight = owner.httpClient().sendAsync(attempt.request(request), attempt);
    } catch (RuntimeException e) {
      inFlight = CompletableFuture.failedFuture(e); // a rejected request: decided like any failure
    }
    synchronized (this) {
      pending = inFlight;
      if (cancelled) {
        attempt.cancel();
        inFlight.cancel(true);
        return;
      }
    }
    inFlight.whenComplete((response, failure) -> onAttemptComplete(attempt, response, failure));
  }

  private void onAttemptComplete(Attempt<T> attempt, HttpResponse<Object> response, Throwable failure) {
    try {
      decide(attempt, response, failure);
    } catch (Throwable unexpected) {
      attempt.discard(response);
      // A policy callback (classifier, backoff, budget...) or the caller's body handler threw. The synchronous
      // send would throw it to the caller; here it must complete the future, which would otherwise hang (a
      // callback of whenComplete has nobody to throw to).
      result.completeExceptionally(unexpected);
    }
  }

  private void decide(Attempt<T> attempt, HttpResponse<Object> response, Throwable failure) {
    if (failure != null) {
      attempt.close();
    }
    Throwable cause = failure == null ? null : attempt.failure(unwrap(failure));
    long now = clock.nanoTime();
    Decision decision;
    Throwable terminal = null;
    synchronized (this) {
      if (cancelled) {
        // Nobody will read this response: close its body (a stream the caller's handler made, or the part
        // read ahead) so that its connection is freed rather than held until garbage collection.
        attempt.discard(response);
        return;
      }
      if (execution == null) {
        if (cause == null && !owner.isRetryStatus(response.statusCode())) {
          policy.recordFirstTrySuccess(response, start, now);
          decision = null;
        } else {
          execution = policy.newExecution(policy.needsStartTime() ? start : now);
          decision = owner.decide(execution, request, repeatable, response, cause, now, false, attempt.wallNow());
        }
      } else {
        decision = owner.decide(execution, request, repeatable, response, cause, now, false, attempt.wallNow());
      }
      if (cancelled) {
        // A listener, told of the decision on this thread, cancelled the call: schedule nothing.
        attempt.discard(response);
        return;
      }
      if (decision != null && decision.isRetry()) {
        attempt.discard(response);
        try {
          // A scheduler may run the retry before schedule() returns (inline, holding this lock already), and
          // that retry records its attempt in flight as pending: keep it rather than the spent task's handle.
          Future<?> before = pending;
          Future<?> task = owner.scheduler().schedule(this::attempt, decision.delayNanos(), TimeUnit.NANOSECONDS);
          if (pending == before) {
            pending = task;
          }
          return;
        } catch (RejectedExecutionException rejected) {
          // The scheduler was shut down: the call cannot wait, so it ends here with that reason.
          execution.abort(StopReason.CANCELLED, clock.nanoTime());
          Throwable last = execution.finalFailure();
          if (last != null) {
            rejected.addSuppressed(last);
          }
          terminal = rejected;
        }
      } else if (cause != null) {
        terminal = execution == null ? cause : execution.finalFailure();
      }
    }
    if (terminal != null) {
      result.completeExceptionally(terminal);
      return;
    }
    attempt.finish(response).whenComplete((converted, conversionFailure) -> {
      synchronized (this) {
        current = null; // handed over: completing the result below must not cancel the caller's body
      }
      if (conversionFailure != null) {
        result.completeExceptionally(unwrap(conversionFailure));
      } else if (!result.complete(converted)) {
        Attempt.release(converted); // the caller gave up meanwhile (cancel, orTimeout)
      }
    });
  }

  private void stopRetrying() {
    Future<?> toCancel;
    Attempt<T> toEnd;
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      toCancel = pending;
      pending = null;
      toEnd = current;
      if (execution != null && !execution.isDone()) {
        execution.abort(StopReason.CANCELLED, clock.nanoTime());
      }
    }
    if (toCancel != null) {
      toCancel.cancel(true);
    }
    if (toEnd != null) {
      toEnd.cancel(); // its body, if one is still arriving: a call that ended reads no more of it
    }
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    // Bounded: causes can form a cycle.
    for (int depth = 0; depth < HttpRetryRules.MAX_CAUSE_DEPTH
        && (t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null; depth++) {
      t = t.getCause();
    }
    return t;
  }
}
