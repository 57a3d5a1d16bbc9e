package dev.backoff.http.rules.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Pushback;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.HttpRequestView;
import dev.backoff.http.rules.HttpResponseView;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.RetryAfter;
import dev.backoff.testing.RecordingSleeper;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The HTTP rules as the verdicts the adapters give the core's loop, and the preview they read bodies ahead by. */
class HttpVerdictsTest {
  static final Instant NOW = Instant.parse("1994-11-06T08:49:30Z");
  static final HttpRules RULES = at(HttpRules.defaults());
  static final RetryPolicy<Object> POLICY = RetryPolicy.builder().maxAttempts(3).build();

  /** The rules with their wall clock stopped at {@link #NOW}. */
  static HttpRules at(HttpRules rules) {
    return rules.toBuilder().wallClock(Clock.fixed(NOW, ZoneOffset.UTC)).build();
  }

  static HttpRequestView request(String method) {
    Map<String, String> none = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    return HttpRequestView.of(method, none::get, true);
  }

  static HttpResponseView response(int status, String... retryAfter) {
    return HttpResponseView.of(status, name -> name.equalsIgnoreCase("Retry-After") ? List.of(retryAfter) : null);
  }

  /** Whether an adapter reads the body ahead: the verdict at the head, then the engine's preview. */
  static boolean mayRetry(HttpRules rules, RetryPolicy<?> policy, boolean repeatable, HttpResponseView response,
      int attempt, long nanosLeft) {
    Verdict verdict = HttpVerdicts.response(at(rules), policy, repeatable, response);
    return HttpVerdicts.mayRetry(policy, verdict, attempt, new AttemptContext() {
      @Override
      public int attempt() {
        return attempt;
      }

      @Override
      public long nanosLeft() {
        return nanosLeft;
      }
    });
  }

  @Test
  void aFailureOfARequestThatMayNotBeRepeatedStopsUnlessItWasNeverSent() {
    assertThat(HttpVerdicts.failure(false, new SocketException("Connection reset")))
        .isSameAs(Verdict.stop(StopReason.NOT_RETRYABLE));
    assertThat(HttpVerdicts.failure(false, new ConnectException("refused"))).isSameAs(Verdict.RETRYABLE);
    assertThat(HttpVerdicts.failure(true, new SocketException("Connection reset"))).isSameAs(Verdict.RETRYABLE);
  }

  @Test
  void aResponseIsAcceptedStoppedOrRetriedWithItsRetryAfter() {
    assertThat(HttpVerdicts.response(at(RULES), POLICY, true, response(200, "5"))).isSameAs(Verdict.ACCEPT);
    assertThat(HttpVerdicts.response(at(RULES), POLICY, true, response(404))).isSameAs(Verdict.ACCEPT);
    assertThat(HttpVerdicts.response(at(RULES), POLICY, false, response(503, "5")))
        .isSameAs(Verdict.stop(StopReason.NOT_RETRYABLE));
    assertThat(HttpVerdicts.response(at(RULES), POLICY, true, response(503, "5")).pushbackHintNanos())
        .isEqualTo(5_000_000_000L);
    // The HTTP-date forms, seven seconds after NOW.
    assertThat(HttpVerdicts.response(at(RULES), POLICY, true, response(429, "Sun, 06 Nov 1994 08:49:37 GMT"))
        .pushbackHintNanos()).isEqualTo(7_000_000_000L);
    assertThat(HttpVerdicts.response(at(RULES), POLICY, true, response(429, "Sunday, 06-Nov-94 08:49:37 GMT"))
        .pushbackHintNanos()).isEqualTo(7_000_000_000L);
    assertThat(HttpVerdicts.response(at(RULES), POLICY, true, response(429, "Sun Nov  6 08:49:37 1994"))
        .pushbackHintNanos()).isEqualTo(7_000_000_000L);
    Verdict noHint = HttpVerdicts.response(at(RULES), POLICY, true, response(500, "garbage"));
    assertThat(noHint.pushbackHintNanos()).isEqualTo(Pushback.NONE);
    assertThat(noHint.usesPolicyPushback()).isFalse();
  }

  @Test
  void aRetryAfterBeyondTheRulesMaximumOrInfiniteStops() {
    HttpRules capped = HttpRules.builder().maxRetryAfter(Duration.ofSeconds(10)).build();
    assertThat(capped.maxRetryAfter()).hasValue(Duration.ofSeconds(10));
    assertThat(HttpVerdicts.response(at(capped), POLICY, true, response(503, "10")).pushbackHintNanos())
        .isEqualTo(10_000_000_000L);
    assertThat(HttpVerdicts.response(at(capped), POLICY, true, response(503, "11")))
        .isSameAs(Verdict.stop(StopReason.PUSHBACK_TOO_LONG));
    assertThat(HttpVerdicts.response(at(capped), POLICY, true, response(503, "99999999999999999999")))
        .isSameAs(Verdict.stop(StopReason.PUSHBACK_TOO_LONG));
    // No cap of its own: an infinite wait stops a policy that honours any representable one...
    RetryPolicy<Object> anyWait = RetryPolicy.builder().maxPushback(Duration.ofNanos(Long.MAX_VALUE)).build();
    assertThat(HttpVerdicts.response(at(RULES), anyWait, true, response(503, "99999999999999999999")))
        .isSameAs(Verdict.stop(StopReason.PUSHBACK_TOO_LONG));
    // ...and is handed to the engine otherwise, which stops it against the policy's maxPushback.
    assertThat(HttpVerdicts.response(at(RULES), POLICY, true, response(503, "99999999999999999999")).pushbackHintNanos())
        .isEqualTo(RetryAfter.INFINITE_NANOS);
    assertThat(RULES.maxRetryAfter()).isEmpty();
  }

  @Test
  void theWallClockMeasuresHttpDates() {
    HttpRules rules = HttpRules.builder().wallClock(Clock.fixed(NOW, ZoneOffset.UTC)).build();
    assertThat(rules.wallNow()).isEqualTo(NOW);
    assertThat(HttpVerdicts.response(rules, POLICY, true, response(503, "Sun, 06 Nov 1994 08:49:40 GMT"))
        .pushbackHintNanos()).isEqualTo(10_000_000_000L);
  }

  @Test
  void mayRetryFollowsTheEnginesStopRules() {
    RetryPolicy<Object> policy = RetryPolicy.builder().maxAttempts(3).maxPushback(Duration.ofSeconds(60)).build();
    long noDeadline = AttemptContext.NO_DEADLINE;
    assertThat(mayRetry(RULES, policy, true, response(503), 1, noDeadline)).isTrue();
    assertThat(mayRetry(RULES, policy, true, response(503), 2, noDeadline)).isTrue();
    assertThat(mayRetry(RULES, policy, true, response(503), 3, noDeadline)).as("last attempt").isFalse();
    assertThat(mayRetry(RULES, policy, false, response(503), 1, noDeadline)).as("not repeatable").isFalse();
    assertThat(mayRetry(RULES, policy, true, response(200), 1, noDeadline)).as("not retried").isFalse();
    assertThat(mayRetry(RULES, policy, true, response(503, "60"), 1, noDeadline)).isTrue();
    assertThat(mayRetry(RULES, policy, true, response(503, "61"), 1, noDeadline)).as("maxPushback").isFalse();
    assertThat(mayRetry(RULES, policy, true, response(503, "5"), 1, 5_000_000_000L)).isTrue();
    assertThat(mayRetry(RULES, policy, true, response(503, "5"), 1, 4_999_999_999L)).as("deadline").isFalse();
    assertThat(mayRetry(RULES, policy, true, response(503), 1, 0)).as("no hint, deadline now").isTrue();
    HttpRules capped = HttpRules.builder().maxRetryAfter(Duration.ofSeconds(2)).build();
    assertThat(mayRetry(capped, policy, true, response(503, "3"), 1, noDeadline)).as("maxRetryAfter").isFalse();
  }

  // ---------------------------------------------------------------------------- through the loop

  /** A scripted attempt: each call returns the next status, or throws the next failure. */
  private static final class ScriptedAttempt implements dev.backoff.driver.SyncAttempt<Integer> {
    final Deque<Object> script;
    int attempts;

    ScriptedAttempt(Object... outcomes) {
      this.script = new ArrayDeque<>(List.of(outcomes));
    }

    @Override
    public Integer run(AttemptContext context) throws Exception {
      attempts++;
      Object next = script.removeFirst();
      if (next instanceof Exception e) {
        throw e;
      }
      return (Integer) next;
    }
  }

  @Test
  void theJudgeAndThePolicyRetryRetryableStatusesAndFailuresThroughTheCoreLoop() throws Exception {
    RecordingSleeper sleeper = new RecordingSleeper();
    RetryPolicy<Integer> policy = RULES.applyTo(RetryPolicy.<Integer>builder().maxAttempts(5)
        .backoff(dev.backoff.Backoff.fixed(Duration.ofMillis(100))).sleeper(sleeper).build(), status -> status);
    ScriptedAttempt attempt = new ScriptedAttempt(503, new SocketException("Connection reset"), 200);
    OutcomeJudge<Integer> judge = HttpVerdicts.judge(RULES, request("GET"),
        status -> HttpResponseView.of(status, name -> List.of()));

    assertThat(RetryLoops.sync(RetryExecutor.of(policy), attempt, judge)).isEqualTo(200);
    assertThat(attempt.attempts).isEqualTo(3);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
  }

  @Test
  void permanentFailuresAbortAndPostIsNotRepeatedThroughTheCoreLoop() {
    RetryPolicy<Integer> policy = RULES.applyTo(RetryPolicy.<Integer>builder().maxAttempts(5)
        .sleeper(new RecordingSleeper()).build(), status -> status);
    OutcomeJudge<Integer> get = HttpVerdicts.judge(RULES, request("GET"), status -> HttpResponseView.of(status, name -> null));
    UnknownHostException unknown = new UnknownHostException("api.invalid");
    ScriptedAttempt failing = new ScriptedAttempt(unknown, 200);
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(
        () -> RetryLoops.sync(RetryExecutor.of(policy), failing, get));
    assertThat(thrown).isSameAs(unknown);
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(failing.attempts).isEqualTo(1);

    OutcomeJudge<Integer> post = HttpVerdicts.judge(RULES, request("POST"), status -> HttpResponseView.of(status, name -> null));
    ScriptedAttempt busy = new ScriptedAttempt(503, 200);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
        () -> assertThat(RetryLoops.sync(RetryExecutor.of(policy), busy, post)).isEqualTo(503))).isNull();
    assertThat(busy.attempts).isEqualTo(1);
  }

  @Test
  void anUnknownFailureIsLeftToThePolicy() throws Exception {
    RetryPolicy<Integer> policy = RULES.applyTo(RetryPolicy.<Integer>builder().maxAttempts(5)
        .retryOn(IllegalStateException.class).sleeper(new RecordingSleeper()).build(), status -> status);
    ScriptedAttempt attempt = new ScriptedAttempt(new IllegalStateException("pool busy"), 200);
    assertThat(RetryLoops.sync(RetryExecutor.of(policy), attempt,
        HttpVerdicts.judge(RULES, request("GET"), status -> HttpResponseView.of(status, name -> null)))).isEqualTo(200);
    assertThat(attempt.attempts).isEqualTo(2);
  }

  @Test
  void everyWaitHeaderIsClampedAsRetryAfterIs() {
    HttpRules capped = HttpRules.builder().waitHeaders(dev.backoff.http.rules.WaitHeader.values())
        .maxRetryAfter(Duration.ofSeconds(10)).build();
    HttpResponseView tenSeconds = HttpResponseView.of(429, name -> name.equals("retry-after-ms") ? List.of("10000") : null);
    HttpResponseView justOver = HttpResponseView.of(429, name -> name.equals("RateLimit") ? List.of("\"d\";r=0;t=11") : null);
    assertThat(HttpVerdicts.response(at(capped), POLICY, true, tenSeconds).pushbackHintNanos()).isEqualTo(10_000_000_000L);
    assertThat(HttpVerdicts.response(at(capped), POLICY, true, justOver)).isSameAs(Verdict.stop(StopReason.PUSHBACK_TOO_LONG));
    assertThat(mayRetry(capped, POLICY, true, tenSeconds, 1, AttemptContext.NO_DEADLINE)).isTrue();
    assertThat(mayRetry(capped, POLICY, true, justOver, 1, AttemptContext.NO_DEADLINE)).isFalse();
    assertThat(mayRetry(capped, POLICY, true, tenSeconds, 1, 9_999_999_999L)).as("the deadline").isFalse();
  }
}
