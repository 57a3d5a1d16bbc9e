package dev.backoff.conformance;

import static java.time.Duration.ofMillis;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.Backoff;
import dev.backoff.CircuitBreaker;
import dev.backoff.Hedging;
import dev.backoff.Jitter;
import dev.backoff.NanoClock;
import dev.backoff.Pushback;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.ScriptedBudget;
import dev.backoff.testing.ScriptedRandom;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * The cross-driver conformance table: scenarios that every driver of the core's retry loops must run the
 * same way (same attempts, same waits between them, same delays and stop reason heard by listeners, same
 * result or failure for the caller). A driver translates its runtime's types and never decides a retry, so
 * any difference here is a driver bug.
 *
 * <h2>The rows</h2>
 * Every row uses {@link #basePolicy()}: at most 4 attempts, exponential backoff from 100 ms doubling to a
 * 10 s cap with full jitter, drawn from a {@link ScriptedRandom} answering 0.5, 0.25, 0.75 (so the retry
 * delays are exactly 50 ms, 50 ms, 300 ms); {@code IOException} is retried, {@code IllegalArgumentException}
 * aborts, the result {@code "busy"} is retried, and a {@link RetryAfterException} carries a pushback hint
 * (at most 1 s is honoured). Rows: fail n times then succeed; retried results; failures exhausting the
 * attempts; abort (a non-retryable failure); budget refusal ({@link ScriptedBudget}); pushback longer than
 * allowed; the deadline; the caller stopping the call mid-backoff; an attempt that never completes, timed out
 * by the policy's attempt timeout (charged to the budget as {@code TIMEOUT}) and cancelled by the driver, then
 * a successful retry; a circuit breaker that opens.
 *
 * <h2>Adding a driver</h2>
 * Write one {@link DriverRunner} in this module's tests: build the policy with {@link Trial#policy} on your
 * driver's virtual clock, make each attempt call {@link Trial#attempt()}, advance virtual time until the
 * call ends (stopping it as its caller would at {@link Trial#cancelAfter()}), and return what the caller saw.
 * Then add the runner to {@link ConformanceTest#runners()}. {@code SyncRunner} (about 40 lines) is the model.
 * A driver whose caller cannot cancel but interrupts says so in {@link DriverRunner#callerStop()}; a driver of
 * streams, which has no single result, says so in {@link DriverRunner#judgesResults()} and skips the rows that
 * need the policy's result rules. The runners now: {@code SyncRunner}, {@code AsyncRunner},
 * {@code ReactorRunner} (Mono), {@code FluxRunner}, {@code KotlinRunner} (suspend) and {@code FlowRunner}.
 * Each runner also turns {@link Trial.Hang} into its runtime's attempt that never ends and reports, through
 * {@link Trial#attemptCancelled()}, that the driver stopped it; the blocking runner turns the policy's
 * attempt timeout into {@code interruptOnAttemptTimeout(true)}, the only way a blocking executor can stop an
 * attempt.
 *
 * <h2>Adding a row</h2>
 * Add a {@link Scenario} to {@link #scenarios()}, with the attempts, waits and outcome worked out by hand
 * from the policy above; every runner then runs it.
 */
final class ConformanceTable {
  private ConformanceTable() {}

  /** A failure carrying a server's pushback hint ("retry after"). */
  static final class RetryAfterException extends IOException {
    private static final long serialVersionUID = 1L;
    final transient Duration after;

    RetryAfterException(String message, Duration after) {
      super(message);
      this.after = after;
    }
  }

  /** The scripted jitter draws: 0.5, 0.25, 0.75, repeating. A fresh source per trial. */
  static RandomGenerator random() {
    return new ScriptedRandom(0.5, 0.25, 0.75);
  }

  /** The policy every row starts from. */
  static RetryPolicy<String> basePolicy() {
    return RetryPolicy.<String>builder()
        .name("conformance")
        .maxAttempts(4)
        .backoff(Backoff.exponential(ofMillis(100), 2, Duration.ofSeconds(10), Jitter.full()))
        .retryOn(IOException.class)
        .abortOn(IllegalArgumentException.class)
        .retryOnResult("busy"::equals)
        .pushback((result, failure) -> failure instanceof RetryAfterException retryAfter
            ? Pushback.after(retryAfter.after) : Pushback.NONE)
        .maxPushback(Duration.ofSeconds(1))
        .build();
  }

  static Scenario.Step fail() {
    return attempt -> {
      throw new IOException("attempt " + attempt);
    };
  }

  static Scenario.Step answer(String result) {
    return attempt -> result;
  }

  static Scenario.Step abort() {
    return attempt -> {
      throw new IllegalArgumentException("attempt " + attempt);
    };
  }

  /** An attempt that never completes: the driver must time it out and cancel it. */
  static Scenario.Step hang() {
    return attempt -> {
      throw new Trial.Hang(attempt);
    };
  }

  static Scenario.Step pushback(Duration after) {
    return attempt -> {
      throw new RetryAfterException("attempt " + attempt, after);
    };
  }

  /** The rows. */
  static List<Scenario> scenarios() {
    RetryPolicy<String> base = basePolicy();
    RetryPolicy<String> hedged = base.toBuilder().hedging(Hedging.after(ofMillis(100))).build();
    return List.of(
        new Scenario("fail twice, then succeed", base, null, List.of(fail(), fail(), answer("ok")), null,
            3, List.of(ofMillis(50), ofMillis(50)), List.of(ofMillis(50), ofMillis(50)), null, "ok", null, false),
        new Scenario("retried results until attempts run out", base, null, List.of(answer("busy")), null,
            4, List.of(ofMillis(50), ofMillis(50), ofMillis(300)), List.of(ofMillis(50), ofMillis(50), ofMillis(300)),
            StopReason.ATTEMPTS_EXHAUSTED, "busy", null, true),
        new Scenario("a retried result, then success", base, null, List.of(answer("busy"), answer("ok")), null,
            2, List.of(ofMillis(50)), List.of(ofMillis(50)), null, "ok", null, true),
        new Scenario("failures until attempts run out", base, null, List.of(fail()), null,
            4, List.of(ofMillis(50), ofMillis(50), ofMillis(300)), List.of(ofMillis(50), ofMillis(50), ofMillis(300)),
            StopReason.ATTEMPTS_EXHAUSTED, null, "attempt 4", false),
        new Scenario("abort on a non-retryable failure", base, null, List.of(fail(), abort()), null,
            2, List.of(ofMillis(50)), List.of(ofMillis(50)), StopReason.ABORTED, null, "attempt 2", false),
        new Scenario("budget refuses the second retry", base, () -> ScriptedBudget.answering(true, false),
            List.of(fail()), null,
            2, List.of(ofMillis(50)), List.of(ofMillis(50)), StopReason.BUDGET_EXHAUSTED, null, "attempt 2", false)
            .in(Mechanism.BUDGET),
        new Scenario("pushback honoured, then too long", base, null,
            List.of(pushback(ofMillis(200)), pushback(Duration.ofSeconds(5)), answer("ok")), null,
            2, List.of(ofMillis(200)), List.of(ofMillis(200)), StopReason.PUSHBACK_TOO_LONG, null, "attempt 2", false)
            .in(Mechanism.PUSHBACK),
        // 50 + 50 ms waited; the next wait (300 ms) would end at 400 ms, past the 350 ms deadline.
        new Scenario("deadline", base.toBuilder().maxAttempts(10).maxElapsed(ofMillis(350)).build(), null,
            List.of(fail()), null,
            3, List.of(ofMillis(50), ofMillis(50)), List.of(ofMillis(50), ofMillis(50)), StopReason.DEADLINE_EXCEEDED,
            null, "attempt 3", false).in(Mechanism.DEADLINE),
        // The breaker (a window of 2 calls, opening at 50 %, open for an hour) opens on attempt 2's failure:
        // the retry it would refuse is neither slept for nor scheduled.
        new Scenario("circuit breaker opens", base, null, List.of(fail()), null,
            2, List.of(ofMillis(50)), List.of(ofMillis(50)), StopReason.CIRCUIT_OPEN, null, "attempt 2", false,
            null, 0, clock -> CircuitBreaker.builder().clock(clock).countWindow(2).minimumCalls(2)
                .waitInOpen(Duration.ofHours(1)).build()).in(Mechanism.BREAKER),
        // Attempt 2 fails at 50 ms and schedules a retry for 100 ms; the caller stops the call at 75 ms.
        new Scenario("caller stops the call mid-backoff", base, null, List.of(fail()), ofMillis(75),
            2, List.of(ofMillis(50)), List.of(ofMillis(50), ofMillis(50)), Scenario.CALLER, null, null, false)
            .in(Mechanism.CANCEL),
        // Attempt 1 never completes: it times out at 200 ms (TimeoutException, classified TIMEOUT, which the
        // budget is charged), is cancelled, and the retry waits 50 ms: attempt 2 starts at 250 ms and succeeds.
        new Scenario("attempt timed out, then succeeded",
            base.toBuilder().attemptTimeout(ofMillis(200)).retryOn(TimeoutException.class).build(),
            ScriptedBudget::granting, List.of(hang(), answer("ok")), null,
            2, List.of(ofMillis(250)), List.of(ofMillis(50)), null, "ok", null, false,
            List.of("call", "failure timeout", "acquire timeout", "success 1 timeout"), 1,
            null).in(Mechanism.ATTEMPT_TIMEOUT),
        // The limiter was throttled once and another call took its one token: the first attempt waits for the
        // next token at the limiter's fill rate (computed from the limiter's own state), then succeeds.
        new Scenario("the first attempt waits for the limiter's token", base, null, List.of(answer("ok")), null,
            1, List.of(), List.of(), null, "ok", null, false)
            .limitedBy(ConformanceTable::emptyLimiter, Duration.ofNanos(nextTokenNanos(emptyLimiter(new FakeClock())))),
        // The same limiter, allowed to make a call wait at most 1 ms: it refuses the first attempt. A call
        // refused before its first attempt never had an execution: listeners hear no end, and its failure
        // carries no history.
        new Scenario("the limiter refuses the first attempt", base, null, List.of(answer("ok")), null,
            0, List.of(), List.of(), StopReason.RATE_LIMITED, null, REFUSED_BY_LIMITER, false)
            .limitedBy(clock -> emptyLimiter(clock, ofMillis(1)), null),
        // Attempt 1 never answers: the hedge starts after the 100 ms hedging delay and wins; attempt 1 is cancelled.
        new Scenario("a hedge wins", hedged, null, List.of(hang(), answer("ok")), null,
            2, List.of(ofMillis(100)), List.of(), null, "ok", null, false, null, 1, null).in(Mechanism.HEDGING),
        // A retryable failure starts the next hedge at once, without the backoff or the hedging delay.
        new Scenario("a failure starts the next hedge at once", hedged, null, List.of(fail(), answer("ok")), null,
            2, List.of(Duration.ZERO), List.of(), null, "ok", null, false).in(Mechanism.HEDGING),
        new Scenario("hedges exhausted", hedged, null, List.of(fail()), null,
            4, List.of(Duration.ZERO, Duration.ZERO, Duration.ZERO), List.of(), StopReason.ATTEMPTS_EXHAUSTED, null,
            "attempt 4", false).in(Mechanism.HEDGING),
        // The recovery's value is the call's result once the attempts ran out (after the same waits as above).
        new Scenario("recovery after the attempts ran out", base, null, List.of(fail()), null,
            4, List.of(ofMillis(50), ofMillis(50), ofMillis(300)), List.of(ofMillis(50), ofMillis(50), ofMillis(300)),
            StopReason.ATTEMPTS_EXHAUSTED, "recovered from ATTEMPTS_EXHAUSTED", null, false).recovering(1),
        new Scenario("recovery not called on success", base, null, List.of(fail(), fail(), answer("ok")), null,
            3, List.of(ofMillis(50), ofMillis(50)), List.of(ofMillis(50), ofMillis(50)), null, "ok", null, false)
            .recovering(0));
  }

  /** The message of the failure a call gets when the rate limiter refuses its first attempt. */
  static final String REFUSED_BY_LIMITER = "rate limiter 'conformance' refused the first attempt: its wait for a "
      + "token exceeded the limiter's maximum wait, 1ms";

  /**
   * A rate limiter on {@code clock} throttled once before any measurement (which enables it at its floor rate),
   * whose one token another call has taken.
   */
  static AdaptiveRateLimiter emptyLimiter(NanoClock clock) {
    return emptyLimiter(clock, null);
  }

  private static AdaptiveRateLimiter emptyLimiter(NanoClock clock, Duration maxWait) {
    AdaptiveRateLimiter.Builder builder = AdaptiveRateLimiter.builder().name("conformance").clock(clock);
    if (maxWait != null) {
      builder.maxWait(maxWait);
    }
    AdaptiveRateLimiter limiter = builder.build();
    limiter.onResponse(true);
    if (limiter.reserve() != 0) {
      throw new AssertionError("the limiter's first token was not there at once");
    }
    return limiter;
  }

  /** How long the next token of {@code limiter} takes at its fill rate, from its tokens now, rounded up. */
  static long nextTokenNanos(AdaptiveRateLimiter limiter) {
    return (long) Math.ceil((1 - limiter.tokens()) / limiter.fillRate() * 1e9);
  }
}
