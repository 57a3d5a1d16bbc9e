package dev.backoff.httpclient5;

import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.driver.HttpVerdicts;
import java.io.IOException;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.impl.classic.RequestFailedException;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;

/**
 * One classic request as the core's synchronous loop sees it: the attempt hook (the rest of the chain,
 * {@code chain.proceed}) and the outcome judge (the HTTP rules, through their views of the request and
 * response). It decides nothing itself. Per call, on the calling thread.
 */
final class ClassicExchange implements SyncAttempt<ClassicHttpResponse>, OutcomeJudge<HttpResponse>,
    HttpRequestView {
  private final HttpClient5Retry owner;
  private final HttpRules rules;
  private final ClassicHttpRequest request;
  private final ExecChain.Scope scope;
  private final ExecChain chain;
  private AttemptTimeout timeout;
  private int repeatable; // 0 unknown, 1 yes, -1 no: worked out once, only if a retry is in question

  ClassicExchange(HttpClient5Retry owner, ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain) {
    this.owner = owner;
    this.rules = owner.rules();
    this.request = request;
    this.scope = scope;
    this.chain = chain;
  }

  @Override
  public ClassicHttpResponse run(AttemptContext context) throws IOException, HttpException {
    ClassicHttpRequest attempt = request;
    if (context.attempt() > 1) {
      if (scope.execRuntime.isExecutionAborted()) {
        throw new RequestFailedException("Request aborted before retry " + (context.attempt() - 1));
      }
      // The chain's elements add headers to the request they send: each retry sends a fresh copy of the
      // original (its entity, repeatable, is written again).
      attempt = ClassicRequestBuilder.copy(scope.originalRequest).build();
    }
    long left = context.nanosLeft();
    if (left != AttemptContext.NO_DEADLINE) {
      if (timeout == null) {
        timeout = new AttemptTimeout(scope.clientContext, context);
      }
      timeout.shorten(left);
    }
    return chain.proceed(attempt, scope);
  }

  @Override
  public void discard(ClassicHttpResponse response) {
    Bodies.discard(response, scope.execRuntime, rules.readAheadLimit());
  }

  @Override
  public Verdict judge(RetryPolicy<HttpResponse> policy, HttpResponse response, Throwable failure) {
    if (failure != null) {
      if (scope.execRuntime.isExecutionAborted()) {
        return Verdict.stop(StopReason.CANCELLED); // the caller cancelled the request
      }
      return HttpVerdicts.failure(repeatable(), failure);
    }
    if (!rules.isRetryStatus(response.getCode())) {
      return Verdict.ACCEPT; // the success path: no view, no clock
    }
    if (scope.execRuntime.isExecutionAborted()) {
      return Verdict.stop(StopReason.CANCELLED);
    }
    return HttpVerdicts.response(rules, policy, repeatable(), Views.response(response));
  }

  private boolean repeatable() {
    if (repeatable == 0) {
      repeatable = rules.isRepeatable(this) ? 1 : -1;
    }
    return repeatable > 0;
  }

  /**
   * The response the call ends with, its body bounded by the deadline ({@link DeadlineBody}) if the policy
   * has one; the response itself otherwise.
   */
  ClassicHttpResponse bounded(ClassicHttpResponse response) {
    HttpEntity body = response.getEntity();
    if (body == null || timeout == null) {
      return response; // no body, or no deadline (a timeout is made for calls with one)
    }
    long left = timeout.nanosLeft();
    response.setEntity(new DeadlineBody(body, left, owner.policy().maxElapsed(), scope.execRuntime,
        owner.asyncExecutor().scheduler()));
    return response;
  }

  /** The call is over: the caller's request configuration is back in its context. */
  void end() {
    if (timeout != null) {
      timeout.restore();
    }
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String header(String name) {
    return Views.firstHeader(request, name);
  }

  @Override
  public boolean bodyRepeatable() {
    HttpEntity entity = request.getEntity();
    return entity == null || entity.isRepeatable();
  }
}
