package dev.backoff.okhttp;

import dev.backoff.RetryPolicy;
import dev.backoff.Sleeper;
import dev.backoff.StopReason;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.driver.HttpVerdicts;
import java.io.IOException;
import java.net.ProtocolException;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import okio.AsyncTimeout;
import okio.Timeout;

/**
 * One intercepted call as the core's synchronous loop sees it: each attempt is {@code chain.proceed}, the
 * judge is the shared HTTP rules plus "the call was cancelled", and the wait between attempts checks for
 * cancellation. Per call, confined to the calling thread (only {@code Call.cancel()} comes from elsewhere,
 * and is read through {@code isCanceled()}).
 */
final class InterceptedCall implements SyncAttempt<Response>, OutcomeJudge<Response>, HttpRequestView {
  private static final long CANCEL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(BackoffOkHttp.CANCEL_CHECK_MILLIS);

  private final HttpRules rules;
  private final RetryPolicy<Response> policy;
  private final Interceptor.Chain chain;
  private final Interceptor.Chain network; // the chain with OkHttp's own connection retry off
  private final Request marked; // the request, tagged for the network guard
  private final FollowUpGuard.Mark mark = new FollowUpGuard.Mark();
  private final Call call;
  private final boolean repeatable;
  private final boolean endsAtDeadline; // the policy has a deadline, which ends the call through its timeout
  private long deadlineNanos; // System.nanoTime() at which the call's timeout ends it for Backoff's deadline
  private Verdict judged; // the last response's verdict, judged once as it arrived (null: not judged yet)

  /**
   * @param maxElapsedNanos the policy's deadline, which ends the call through its timeout (see
   *     {@link #endCallBy}); {@code Long.MAX_VALUE} for none
   */
  InterceptedCall(HttpRules rules, RetryPolicy<Response> policy, Interceptor.Chain chain, long maxElapsedNanos) {
    this.rules = rules;
    this.policy = policy;
    this.chain = chain;
    this.call = chain.call();
    this.network = chain.withRetryOnConnectionFailure(false);
    this.endsAtDeadline = maxElapsedNanos != Long.MAX_VALUE;
    this.marked = mark.mark(chain.request());
    this.repeatable = rules.isRepeatable(this); // the request's view is this object: nothing more to allocate
  }

  @Override
  public String method() {
    return chain.request().method();
  }

  @Override
  public String header(String name) {
    return chain.request().header(name);
  }

  @Override
  public boolean bodyRepeatable() {
    return OkHttpViews.bodyRepeatable(chain.request().body());
  }

  @Override
  public Response run(AttemptContext context) throws IOException {
    judged = null;
    if (call.isCanceled()) {
      throw new IOException("Canceled"); // no attempt after cancel (OkHttp's own message)
    }
    if (endsAtDeadline && context.attempt() == 1) {
      // Armed from the engine's own reading of the time left, not before the loop started: the timeout then
      // never fires before the engine's deadline has passed, so a call it cuts short stops on its deadline
      // (armed earlier, a busy machine let it fire while the engine still saw time left, and the wait that
      // followed found the call cancelled: CANCELLED instead of DEADLINE_EXCEEDED).
      deadlineNanos = endCallBy(call.timeout(), context.nanosLeft());
    }
    Response response;
    try {
      response = mark.restore(network.proceed(marked));
    } catch (NumberFormatException e) {
      throw unreadableRetryAfter(e);
    }
    judged = readAheadIfRetryPossible(rules, policy, response, repeatable, context.attempt(), context);
    return response;
  }

  /**
   * Makes OkHttp's own call timeout end the call at {@code nanos} from now at the latest, when it would not
   * already: the call, its attempts and the caller's read of the last body are then bounded as by
   * {@code callTimeout}. OkHttp arms the timeout as the call starts, so it is re-armed here with the shorter
   * deadline; a timeout of another kind (not OkHttp's own) is left alone.
   *
   * @return the {@code System.nanoTime()} it ends the call at, or 0 when it left the timeout as it was
   */
  static long endCallBy(Timeout timeout, long nanos) {
    long deadline = System.nanoTime() + Math.max(nanos, 1);
    long armedNanos = timeout.timeoutNanos();
    if (armedNanos > 0 && armedNanos <= nanos || timeout.hasDeadline() && timeout.deadlineNanoTime() - deadline <= 0) {
      return 0; // OkHttp's own timeout ends the call first
    }
    if (!(timeout instanceof AsyncTimeout armed) || armed.exit()) {
      return 0; // not OkHttp's own, or it has already fired (the call is cancelled)
    }
    armed.deadlineNanoTime(deadline);
    armed.enter();
    return deadline;
  }

  /**
   * Whether the call was cancelled by a caller, not by the timeout that ends it at the policy's deadline
   * (whose outcome the engine judges as any other: it stops on its deadline).
   */
  private boolean cancelledByCaller() {
    return call.isCanceled() && (deadlineNanos == 0 || System.nanoTime() - deadlineNanos < 0);
  }

  /**
   * OkHttp's own follow-up step failed to parse a {@code Retry-After} (a number past an {@code int}), which
   * happens only on a client built without the {@linkplain BackoffOkHttp#networkInterceptor() network
   * guard}: the response is lost inside OkHttp, so the attempt ends with a protocol error (not retried).
   */
  static ProtocolException unreadableRetryAfter(NumberFormatException e) {
    ProtocolException failure = new ProtocolException("OkHttp could not read the response's Retry-After ("
        + e.getMessage() + "); build the client with BackoffOkHttp.install to let Backoff read it");
    failure.initCause(e);
    return failure;
  }

  /**
   * Judges a response once and reads ahead its body, to the read-ahead limit, when the engine's preview says
   * a retry may follow; returns the verdict, for the loop's judge to hand on (so {@code Retry-After} is read
   * once per response).
   */
  static Verdict readAheadIfRetryPossible(HttpRules rules, RetryPolicy<Response> policy, Response response,
      boolean repeatable, int attempt, AttemptContext context) {
    if (!rules.isRetryStatus(response.code())) {
      return Verdict.ACCEPT; // the success path: no view, no clock
    }
    Verdict verdict = HttpVerdicts.response(rules, policy, repeatable, OkHttpViews.response(response));
    if (!HttpVerdicts.mayRetry(policy, verdict, attempt, context)) {
      return verdict;
    }
    int limit = rules.readAheadLimit();
    if (limit > 0) {
      try {
        // Buffers at most limit + 1 bytes (and one read's worth): whether the body ends within the limit.
        response.body().source().request(limit + 1L);
      } catch (IOException e) {
        // The body broke off (a reset connection): the status decides; a caller handed this response sees
        // the same failure when reading it.
      }
    }
    return verdict;
  }

  @Override
  public void discard(Response response) {
    response.close();
  }

  @Override
  public Verdict judge(RetryPolicy<Response> policy, Response response, Throwable failure) {
    if (cancelledByCaller()) {
      return Verdict.stop(StopReason.CANCELLED);
    }
    if (failure != null) {
      return HttpVerdicts.failure(repeatable, failure);
    }
    if (!rules.isRetryStatus(response.code())) {
      return Verdict.ACCEPT; // the success path: no view, no clock
    }
    Verdict verdict = judged;
    return verdict != null ? verdict : HttpVerdicts.response(rules, policy, repeatable, OkHttpViews.response(response));
  }

  /** Waits in slices, checking between them whether the call was cancelled (OkHttp interrupts nobody). */
  @Override
  public boolean waitToRetry(long nanos, Sleeper sleeper) throws InterruptedException {
    long left = nanos;
    while (!call.isCanceled()) {
      if (left <= 0) {
        return true;
      }
      long slice = Math.min(left, CANCEL_CHECK_NANOS);
      sleeper.sleep(slice);
      left -= slice;
    }
    return false;
  }
}
