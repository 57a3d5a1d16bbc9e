package dev.backoff.lab;

import dev.backoff.Clock;
import dev.backoff.Decision;
import dev.backoff.Execution;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Retries with the core's decision engine: each attempt is an asynchronous {@code java.net.http} call with a
 * per-attempt timeout; a failed attempt (an exception, or a status the policy retries) goes to the
 * {@link Execution}, and a retry is a task on the shared scheduler. No thread is held while a request is in
 * flight or waiting to retry.
 */
final class EngineSender implements LogicalRequestSender {
  private final HttpClient client;
  private final HttpRequest request;
  private final RetryPolicy<Integer> policy;
  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private volatile boolean closed;

  EngineSender(HttpClient client, HttpRequest request, RetryPolicy<Integer> policy,
      ScheduledExecutorService scheduler, Clock clock) {
    this.client = client;
    this.request = request;
    this.policy = policy;
    this.scheduler = scheduler;
    this.clock = clock;
  }

  @Override
  public CompletableFuture<Boolean> send(AttemptObserver observer) {
    Call call = new Call(observer);
    call.attempt();
    return call.done;
  }

  @Override
  public void close() {
    closed = true;
  }

  /** One logical request: its attempts happen one after another, so its execution is never shared. */
  private final class Call {
    final AttemptObserver observer;
    final CompletableFuture<Boolean> done = new CompletableFuture<>();
    final long startNanos = clock.nanoTime();
    Execution<Integer> execution;

    Call(AttemptObserver observer) {
      this.observer = observer;
    }

    void attempt() {
      if (closed) {
        stop();
        return;
      }
      observer.attemptStarted();
      CompletableFuture<HttpResponse<Void>> response;
      try {
        response = client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
      } catch (RuntimeException e) {
        onOutcome(null, e);
        return;
      }
      response.whenComplete(this::onOutcome);
    }

    void onOutcome(HttpResponse<Void> response, Throwable failure) {
      long now = clock.nanoTime();
      Decision decision;
      if (failure != null) {
        Throwable cause = unwrap(failure);
        observer.attemptEnded(cause instanceof HttpTimeoutException
            ? AttemptObserver.Outcome.TIMEOUT : AttemptObserver.Outcome.ERROR);
        if (closed) {
          stop();
          return;
        }
        if (execution == null) {
          execution = policy.newExecution(startNanos);
        }
        decision = execution.onFailure(cause, now);
      } else {
        int status = response.statusCode();
        observer.attemptEnded(status == 200 ? AttemptObserver.Outcome.OK : AttemptObserver.Outcome.ERROR);
        if (execution == null) {
          if (!LabPolicies.isRetryableStatus(status)) {
            policy.recordFirstTrySuccess(status, startNanos, now);
            done.complete(status == 200);
            return;
          }
          execution = policy.newExecution(startNanos);
        }
        decision = execution.onResult(status, now);
        if (decision.isStop() || decision.isSuccess()) {
          done.complete(status == 200);
          return;
        }
      }
      if (decision.isSuccess()) {
        done.complete(true);
      } else if (decision.isRetry() && !closed) {
        observer.retryScheduled();
        try {
          scheduler.schedule(this::attempt, decision.delayNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
          stop();
        }
      } else {
        stop();
      }
    }

    void stop() {
      if (execution != null && !execution.isDone()) {
        execution.abort(StopReason.CANCELLED, clock.nanoTime());
      }
      done.complete(false);
    }
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof java.util.concurrent.ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
