package dev.backoff.http.rules.driver;

import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryPreview;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpResponseView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.RetryAfter;
import java.util.Objects;
import java.util.function.Function;

/**
 * The HTTP rules in the core's driver SPI: an attempt's outcome as the {@link Verdict} a loop gives the
 * engine, for the HTTP adapters (exported to them alone; users configure {@link HttpRules}). An adapter
 * judges each response once: it keeps the verdict from the moment the response's head arrives (when it
 * must decide whether to read the body ahead, with {@link #mayRetry}) and gives the same verdict to the loop,
 * so the server's wait is parsed, and the wall clock read, once per response.
 *
 * <p>Stateless and thread-safe.
 */
public final class HttpVerdicts {
  private HttpVerdicts() {}

  /**
   * The verdict on a response: {@link Verdict#ACCEPT} for a status that is not retried (without reading a
   * clock or a header); a stop with {@link StopReason#NOT_RETRYABLE} when the request may not be repeated; a
   * stop with {@link StopReason#PUSHBACK_TOO_LONG} for a server's wait beyond the rules'
   * {@linkplain HttpRules.Builder#maxRetryAfter maxRetryAfter}, or too long to represent under a policy that
   * honours any wait; else retryable with the server's wait ({@link HttpRules#waitHintNanos}, measured from
   * the rules' wall clock, read once) as the pushback hint: the engine compares it with the policy's
   * {@code maxPushback} and deadline.
   *
   * @param rules the adapter's rules
   * @param policy the call's policy
   * @param repeatable whether the request may be sent again ({@link HttpRules#isRepeatable})
   * @param response the response's status and headers
   * @throws NullPointerException if an argument is null
   */
  public static Verdict response(HttpRules rules, RetryPolicy<?> policy, boolean repeatable,
      HttpResponseView response) {
    Objects.requireNonNull(rules, "rules must not be null");
    Objects.requireNonNull(policy, "policy must not be null");
    if (!rules.isRetryStatus(response.status())) {
      return Verdict.ACCEPT;
    }
    if (!repeatable) {
      return Verdict.stop(StopReason.NOT_RETRYABLE);
    }
    long hint = rules.waitHintNanos(response, rules.wallNow());
    if (hint == RetryAfter.INFINITE_NANOS && policy.maxPushback().toNanos() == Long.MAX_VALUE) {
      // "Longer than a long of nanoseconds" is infinite: even a policy that honours any representable wait
      // must stop rather than wait 292 years or retry at once. Other policies stop as the hint exceeds them.
      return Verdict.stop(StopReason.PUSHBACK_TOO_LONG);
    }
    if (rules.maxRetryAfter().isPresent() && hint > rules.maxRetryAfter().get().toNanos()) {
      return Verdict.stop(StopReason.PUSHBACK_TOO_LONG);
    }
    return Verdict.retryable(hint);
  }

  /**
   * The verdict on a failure: a stop with {@link StopReason#NOT_RETRYABLE} when the request may not be
   * repeated and may have been sent ({@link HttpRules#neverSent}); else {@link Verdict#RETRYABLE}, so that
   * the engine applies the policy's failure rules, to which {@link HttpRules#applyTo} added the HTTP ones.
   *
   * @param repeatable whether the request may be sent again ({@link HttpRules#isRepeatable})
   * @param failure the attempt's failure
   * @throws NullPointerException if {@code failure} is null
   */
  public static Verdict failure(boolean repeatable, Throwable failure) {
    Objects.requireNonNull(failure, "failure must not be null");
    return !repeatable && !HttpRules.neverSent(failure) ? Verdict.stop(StopReason.NOT_RETRYABLE) : Verdict.RETRYABLE;
  }

  /**
   * Whether a retry may follow a response judged {@code verdict} (from {@link #response}): the engine's own
   * side-effect-free preview ({@link RetryPreview}) for attempt number {@code attempt} (as it started) with
   * the time left in {@code context}, read only if the answer depends on it. An adapter reads a body ahead
   * only when this says yes: where it says no, the engine stops when it records the same verdict.
   *
   * @throws NullPointerException if an argument is null
   */
  public static boolean mayRetry(RetryPolicy<?> policy, Verdict verdict, int attempt, AttemptContext context) {
    return RetryPreview.of(policy, verdict, attempt, context).mayRetry();
  }

  /**
   * An outcome judge for one call: {@link #failure} for failures, {@link #response} for results (through
   * {@code view}), with the request's repeatability worked out once, now.
   *
   * @param rules the adapter's rules
   * @param request the call's request
   * @param view how the adapter sees a result as a response (called once per result, never for failures)
   * @param <R> the policy's result type
   * @throws NullPointerException if an argument is null
   */
  public static <R> OutcomeJudge<R> judge(HttpRules rules, HttpRequestView request,
      Function<? super R, ? extends HttpResponseView> view) {
    Objects.requireNonNull(rules, "rules must not be null");
    Objects.requireNonNull(view, "view must not be null");
    boolean repeatable = rules.isRepeatable(Objects.requireNonNull(request, "request must not be null"));
    return (policy, result, failure) -> failure != null
        ? failure(repeatable, failure)
        : response(rules, policy, repeatable, view.apply(result));
  }
}
