package dev.backoff.http;

import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * One HTTP call as the core's retry loops see it: the attempt hook (one {@code send} or {@code sendAsync}
 * of the request, its timeout cut to the time left before the deadline) and the outcome judge (HTTP's rules:
 * a retryable status, {@code Retry-After} as the pushback hint, a request that must not be repeated). The
 * loops do the rest: waiting, scheduling, cancellation, the first-attempt rule, the engine.
 *
 * <p>Per call; the loops run its attempts one after another, so it needs no lock.
 */
final class Exchange<T> implements SyncAttempt<HttpResponse<Object>>, AsyncAttempt<HttpResponse<Object>>,
    OutcomeJudge<HttpResponse<?>> {
  private final RetryingHttpClient owner;
  private final HttpRequest request;
  private final boolean repeatable;
  private final boolean callerThread;
  private final BodyHandler<Object> attemptHandler;

  Exchange(RetryingHttpClient owner, HttpRequest request, boolean repeatable, BodyHandler<T> handler,
      boolean callerThread) {
    this.owner = owner;
    this.request = request;
    this.repeatable = repeatable;
    this.callerThread = callerThread;
    this.attemptHandler = BufferedBody.forStatuses(repeatable ? owner.retryStatusSet() : Set.of(), handler);
  }

  @Override
  public HttpResponse<Object> run(AttemptContext context) throws IOException, InterruptedException {
    return owner.httpClient().send(owner.attemptRequest(request, context.nanosLeft()), attemptHandler);
  }

  @Override
  public CompletionStage<HttpResponse<Object>> start(AttemptContext context) {
    // A request the client rejects at once (IllegalArgumentException) fails the attempt like any failure.
    return owner.httpClient().sendAsync(owner.attemptRequest(request, context.nanosLeft()), attemptHandler);
  }

  /** A response that is retried after, or that nobody will read: its body's connection is freed. */
  @Override
  public void discard(HttpResponse<Object> response) {
    BufferedBody.discard(response);
  }

  @Override
  public Verdict judge(RetryPolicy<HttpResponse<?>> policy, HttpResponse<?> response, Throwable failure) {
    if (failure != null) {
      if (callerThread && failure instanceof InterruptedException) {
        return Verdict.stop(StopReason.INTERRUPTED); // send was interrupted: the caller's thread was
      }
      if (!repeatable && !neverSent(failure)) {
        return Verdict.stop(StopReason.NOT_RETRYABLE);
      }
      return Verdict.RETRYABLE; // the policy's failure rules, HTTP's retryIf/abortIf among them
    }
    if (!owner.isRetryStatus(response.statusCode())) {
      return Verdict.ACCEPT;
    }
    if (!repeatable) {
      return Verdict.stop(StopReason.NOT_RETRYABLE);
    }
    return Verdict.retryable(RetryAfter.hintNanos(response.headers(), Instant.now(owner.wallClock())));
  }

  /** Failures that happen before any byte of the request leaves: safe to retry for any method. */
  static boolean neverSent(Throwable failure) {
    // Bounded like every walk over causes: they can form a cycle (a → b → a), which would loop forever.
    int depth = 0;
    for (Throwable t = failure; t != null && depth < HttpRetryRules.MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
        return true;
      }
    }
    return false;
  }

  /** The response as the caller's handler makes it (a buffered body replayed through it). */
  CompletableFuture<HttpResponse<T>> finish(HttpResponse<Object> response, BodyHandler<T> handler) {
    return BufferedBody.finish(response, handler);
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    // Bounded: causes can form a cycle.
    for (int depth = 0; depth < HttpRetryRules.MAX_CAUSE_DEPTH
        && (t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null; depth++) {
      t = t.getCause();
    }
    return t;
  }
}
