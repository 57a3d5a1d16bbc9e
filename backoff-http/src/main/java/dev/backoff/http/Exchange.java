package dev.backoff.http;

import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.driver.HttpVerdicts;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * One HTTP call as the core's retry loops see it: the attempt hook (one {@code send} or {@code sendAsync},
 * through an {@link Attempt} that times the whole exchange and bounds its body) and the outcome judge
 * (HTTP's rules: a retryable status, {@code Retry-After} as the pushback hint, a request that must not be
 * repeated, an interrupted send). The loops do the rest: waiting, scheduling, cancellation, the first-attempt
 * rule, the engine.
 *
 * <p>Per call. The loops run its attempts one after another; {@link #current} is volatile because an
 * asynchronous attempt completes, and a caller cancels, on other threads. A hedged call (a policy with
 * hedging) has several attempts in flight, so {@link #byResponse} maps each response to the attempt that
 * produced it, for judging, discarding and finishing it; without hedging it is null and costs nothing.
 */
final class Exchange<T> implements SyncAttempt<HttpResponse<Object>>, AsyncAttempt<HttpResponse<Object>>,
    OutcomeJudge<HttpResponse<?>> {
  private final RetryingHttpClient owner;
  private final RetryPolicy<HttpResponse<?>> policy;
  private final HttpRequest request;
  private final boolean repeatable;
  private final BodyHandler<T> handler;
  private final boolean callerThread;
  private volatile Attempt<T> current;
  private volatile boolean handedOver;
  private final Map<HttpResponse<?>, Attempt<T>> byResponse; // null unless the policy hedges

  Exchange(RetryingHttpClient owner, RetryPolicy<HttpResponse<?>> policy, HttpRequest request, boolean repeatable,
      BodyHandler<T> handler, boolean callerThread) {
    this.owner = owner;
    this.policy = policy;
    this.request = request;
    this.repeatable = repeatable;
    this.handler = handler;
    this.callerThread = callerThread;
    this.byResponse = policy.hedging() == null ? null : Collections.synchronizedMap(new IdentityHashMap<>());
  }

  /** The attempt that produced {@code response}: the current one, unless attempts overlap (hedging). */
  private Attempt<T> attemptOf(HttpResponse<?> response) {
    if (byResponse != null && response != null) {
      Attempt<T> attempt = byResponse.get(response);
      if (attempt != null) {
        return attempt;
      }
    }
    return current;
  }

  private Attempt<T> newAttempt(AttemptContext context) {
    Attempt<T> attempt = new Attempt<>(owner, policy, request, repeatable, context, handler);
    current = attempt;
    attempt.startTimer();
    return attempt;
  }

  @Override
  public HttpResponse<Object> run(AttemptContext context) throws IOException, InterruptedException {
    Attempt<T> attempt = newAttempt(context);
    try {
      return owner.httpClient().send(attempt.request(request), attempt);
    } catch (IOException | RuntimeException e) {
      attempt.close();
      Throwable failure = attempt.failure(e); // the attempt's timeout if it fired, else e
      if (failure instanceof IOException) {
        throw (IOException) failure;
      }
      throw (RuntimeException) failure;
    } catch (InterruptedException e) {
      attempt.close();
      throw e;
    }
  }

  @Override
  public CompletionStage<HttpResponse<Object>> start(AttemptContext context) {
    Attempt<T> attempt = newAttempt(context);
    CompletableFuture<HttpResponse<Object>> inFlight;
    try {
      inFlight = owner.httpClient().sendAsync(attempt.request(request), attempt);
    } catch (RuntimeException e) {
      inFlight = CompletableFuture.failedFuture(e); // a rejected request: judged like any failure
    }
    AttemptStage<T> stage = new AttemptStage<>(attempt, inFlight);
    if (byResponse == null) {
      inFlight.whenComplete(stage::settle);
    } else {
      inFlight.whenComplete((response, failure) -> {
        if (response != null) {
          byResponse.put(response, attempt); // before the loop sees it
        }
        stage.settle(response, failure);
      });
    }
    return stage;
  }

  /** A response that is retried after, or that nobody will read: its timer stops, its body is released. */
  @Override
  public void discard(HttpResponse<Object> response) {
    Attempt<T> attempt = attemptOf(response);
    if (byResponse != null) {
      byResponse.remove(response);
    }
    if (attempt != null) {
      attempt.discard(response);
    } else {
      Attempt.release(response);
    }
  }

  @Override
  public Verdict judge(RetryPolicy<HttpResponse<?>> p, HttpResponse<?> response, Throwable failure) {
    if (failure != null) {
      if (callerThread && failure instanceof InterruptedException) {
        return Verdict.stop(StopReason.INTERRUPTED); // send was interrupted: the caller's thread was
      }
      return HttpVerdicts.failure(repeatable, failure); // HTTP's retryIf and abortIf are in the policy
    }
    HttpRules rules = owner.rules();
    if (!rules.isRetryStatus(response.statusCode())) {
      return Verdict.ACCEPT;
    }
    // The verdict the body handler judged the response's head with: Retry-After is read once per response.
    Attempt<T> attempt = attemptOf(response);
    Verdict judged = attempt == null ? null : attempt.verdict();
    return judged != null ? judged
        : HttpVerdicts.response(rules, p, repeatable, JdkViews.response(response.statusCode(), response.headers()));
  }

  /** The last response as the caller's handler makes it (its body read ahead, then the rest). */
  CompletableFuture<HttpResponse<T>> finish(HttpResponse<Object> response) {
    Attempt<T> attempt = attemptOf(response);
    if (byResponse != null) {
      byResponse.remove(response);
      current = attempt; // the winner: the call has ended, no attempt starts after it
    }
    return attempt.finish(response);
  }

  /** The caller has the response: its body is the caller's now. */
  void handedOver() {
    handedOver = true;
  }

  /** The caller gave up: a body still arriving for the last attempt is ended (its connection closed). */
  void endUnlessHandedOver() {
    Attempt<T> attempt = current;
    if (!handedOver && attempt != null) {
      attempt.cancel();
    }
  }

  /** Causes deeper than this are not unwrapped (as in the core's rules); cause cycles end here too. */
  private static final int MAX_CAUSE_DEPTH = 16;

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    // Bounded: causes can form a cycle.
    for (int depth = 0; depth < MAX_CAUSE_DEPTH
        && (t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null; depth++) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * An asynchronous attempt's stage, as the loop sees it: the client's outcome with the attempt's timeout
   * reported as its failure; cancelling it (the loop does when the caller cancels) ends the attempt's body
   * and the client's exchange. A response that arrives after that is released, not leaked.
   */
  private static final class AttemptStage<T> extends CompletableFuture<HttpResponse<Object>> {
    private final Attempt<T> attempt;
    private final CompletableFuture<HttpResponse<Object>> inFlight;

    AttemptStage(Attempt<T> attempt, CompletableFuture<HttpResponse<Object>> inFlight) {
      this.attempt = attempt;
      this.inFlight = inFlight;
    }

    void settle(HttpResponse<Object> response, Throwable failure) {
      if (failure != null) {
        attempt.close();
        completeExceptionally(attempt.failure(unwrap(failure)));
      } else if (!complete(response)) {
        attempt.discard(response); // the call was cancelled meanwhile: nobody will read it
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      attempt.cancel();
      inFlight.cancel(true);
      return cancelled;
    }
  }
}
