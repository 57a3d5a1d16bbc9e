package dev.backoff.okhttp;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.driver.HttpVerdicts;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Request;
import okhttp3.Response;

/**
 * One asynchronous call as the core's asynchronous loop sees it: each attempt is a new OkHttp call,
 * {@code enqueue}d, whose stage cancels that call when cancelled; the judge is the shared HTTP rules. The
 * loop's scheduler does the waiting. Per call; attempts run one after another, completed on OkHttp's
 * dispatcher threads, hence the volatile fields. A hedged call (a policy with hedging) has several attempts
 * in flight, so each response's call and judging instant are kept by response ({@link #answers}; null and
 * free without hedging).
 */
final class AsyncExchange implements AsyncAttempt<Response>, OutcomeJudge<Response> {
  private final HttpRules rules;
  private final AsyncRetryExecutor<Response> executor;
  private final RetryPolicy<Response> policy;
  private final Call.Factory client;
  private final Request request;
  private final boolean repeatable;
  private volatile Call last;
  private volatile Verdict judged; // the last response's verdict, judged once as it arrived
  private final Map<Response, Answer> answers; // null unless the policy hedges

  /** The call that produced a response, and the verdict it was judged with as it arrived. */
  private record Answer(Call call, Verdict verdict) {}

  AsyncExchange(BackoffOkHttp owner, Call.Factory client, Request request) {
    this.client = owner.guarded(Objects.requireNonNull(client, "client must not be null"));
    this.request = Objects.requireNonNull(request, "request must not be null");
    this.rules = owner.httpRules();
    this.repeatable = rules.isRepeatable(OkHttpViews.request(request));
    // A request that must not be repeated is never hedged: a hedge would send it twice.
    this.executor = repeatable ? owner.asyncExecutor() : owner.unhedgedExecutor();
    this.policy = executor.policy();
    this.answers = policy.hedging() == null ? null : Collections.synchronizedMap(new IdentityHashMap<>());
  }

  /** Starts the call on the asynchronous loop. */
  CompletableFuture<Response> start() {
    return RetryLoops.async(executor, this, this);
  }

  /**
   * The call that produced {@code response} (the last attempt's when attempts do not overlap, the winner's
   * when they do), or the last attempt's call for a failure; null before the first attempt.
   */
  Call lastCall(Response response) {
    if (answers != null && response != null) {
      Answer answer = answers.get(response);
      if (answer != null) {
        return answer.call();
      }
    }
    return last;
  }

  @Override
  public CompletionStage<Response> start(AttemptContext context) {
    judged = null;
    int number = context.attempt();
    FollowUpGuard.Mark mark = new FollowUpGuard.Mark();
    Call call = client.newCall(mark.mark(request));
    long left = context.nanosLeft();
    if (left != AttemptContext.NO_DEADLINE) {
      // OkHttp's call timeout ends the attempt at the deadline, the read of its body included.
      call.timeout().deadlineNanoTime(System.nanoTime() + Math.max(left, 1));
    }
    last = call;
    AttemptStage stage = new AttemptStage(call);
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call failed, IOException e) {
        stage.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call answered, Response raw) {
        Response response = mark.restore(raw);
        try {
          Verdict verdict = InterceptedCall.readAheadIfRetryPossible(rules, policy, response, repeatable, number,
              context);
          judged = verdict;
          if (answers != null) {
            answers.put(response, new Answer(call, verdict));
          }
        } catch (RuntimeException e) {
          response.close();
          stage.completeExceptionally(e);
          return;
        }
        if (answered.isCanceled() && !stage.isDone()) {
          // The call's own timeout (the deadline) ended it while its body was read ahead: the body is gone,
          // so the attempt fails with a timeout (a bare InterruptedIOException would read as an interrupt).
          discard(response);
          stage.completeExceptionally(new SocketTimeoutException("timeout while reading the response body ahead"));
          return;
        }
        if (!stage.complete(response)) {
          response.close(); // the call was cancelled meanwhile: nobody will read it
        }
      }
    });
    return stage;
  }

  @Override
  public void discard(Response response) {
    if (answers != null) {
      answers.remove(response);
    }
    response.close();
  }

  @Override
  public Verdict judge(RetryPolicy<Response> p, Response response, Throwable failure) {
    if (failure != null) {
      return HttpVerdicts.failure(repeatable, failure);
    }
    if (!rules.isRetryStatus(response.code())) {
      return Verdict.ACCEPT;
    }
    Answer answer = answers == null ? null : answers.get(response);
    Verdict verdict = answer != null ? answer.verdict() : judged;
    return verdict != null ? verdict : HttpVerdicts.response(rules, p, repeatable, OkHttpViews.response(response));
  }

  /** The failure as an OkHttp callback takes it: unwrapped, a cancellation as OkHttp's "Canceled". */
  static IOException asIoException(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; depth < 16 && (t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null; depth++) {
      t = t.getCause();
    }
    if (t instanceof IOException io) {
      return io;
    }
    IOException wrapped = new IOException(t instanceof CancellationException ? "Canceled" : t.toString());
    wrapped.initCause(t);
    return wrapped;
  }

  /** An attempt's stage: cancelling it (the loop does when the caller cancels) cancels the OkHttp call. */
  private static final class AttemptStage extends CompletableFuture<Response> {
    private final Call call;

    AttemptStage(Call call) {
      this.call = call;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      call.cancel();
      return cancelled;
    }
  }
}
