package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.backoff.HedgingVirtualDriver.Answer;
import dev.backoff.driver.Engine;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The call state machine's exact effect sequences, in virtual time (a fake clock that counts its readings),
 * through {@link VirtualTimeDriver}, which only carries out effects.
 */
class CallMachineTest {
  private static final long MS = 1_000_000;

  private static RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().name("machine").maxAttempts(4).backoff(Backoff.fixed(Duration.ofMillis(10)))
        .retryOnResult(result -> result.startsWith("busy"));
  }

  private static String failTwiceThenOk(int attempt) throws IOException {
    if (attempt <= 2) {
      throw new IOException("attempt " + attempt);
    }
    return "ok-" + attempt;
  }

  @Test
  void aFirstTrySuccessCompletesAtOnceWithoutReadingTheClock() {
    VirtualTimeDriver driver = new VirtualTimeDriver();

    assertThat(driver.run(policy().build(), attempt -> "ok")).containsExactly("attempt 1", "complete succeeded ok");
    assertThat(driver.clockReads).as("clock readings").isZero();
  }

  @Test
  void failuresWaitTheBackoffAndTheRetryPathReadsTheClockOnce() {
    VirtualTimeDriver driver = new VirtualTimeDriver();

    assertThat(driver.run(policy().build(), CallMachineTest::failTwiceThenOk)).containsExactly(
        "attempt 1", "wait " + 10 * MS, "attempt 2", "wait " + 10 * MS, "attempt 3", "complete succeeded ok-3");
    assertThat(driver.clockReads).as("clock readings: the first failure's only").isEqualTo(1);
  }

  @Test
  void aRetriedResultIsHeldUntilItsRetryStartsThenDiscarded() {
    VirtualTimeDriver driver = new VirtualTimeDriver();

    assertThat(driver.run(policy().build(), attempt -> attempt == 1 ? "busy-1" : "ok-2")).containsExactly(
        "attempt 1", "wait " + 10 * MS, "discard busy-1", "attempt 2", "complete succeeded ok-2");
  }

  @Test
  void attemptsRunOutOnARetriedResultAndTheCallEndsWithIt() {
    VirtualTimeDriver driver = new VirtualTimeDriver();

    assertThat(driver.run(policy().maxAttempts(2).build(), attempt -> "busy-" + attempt)).containsExactly(
        "attempt 1", "wait " + 10 * MS, "discard busy-1", "attempt 2", "complete ATTEMPTS_EXHAUSTED with busy-2");
    assertThat(driver.discarded).containsExactly("busy-1");
  }

  @Test
  void aRetryTheBreakerRefusesAfterItsWaitEndsTheCallWithTheHeldResult() {
    long[] now = {0};
    CircuitBreaker breaker = CircuitBreaker.builder().countWindow(2).minimumCalls(2)
        .waitInOpen(Duration.ofHours(1)).clock(() -> now[0]).build();
    VirtualTimeDriver driver = new VirtualTimeDriver();
    driver.duringWait = attempt -> {
      for (int i = 0; i < 2; i++) { // other calls fail through the breaker until it opens
        CircuitBreaker.Permit permit = breaker.tryAcquire();
        if (permit != null) {
          permit.onFailure(FailureClass.TRANSIENT);
        }
      }
      return attempt;
    };

    assertThat(driver.run(policy().circuitBreaker(breaker).build(), attempt -> "busy-" + attempt)).containsExactly(
        "attempt 1", "wait " + 10 * MS, "complete CIRCUIT_OPEN with busy-1");
    assertThat(driver.discarded).isEmpty();
  }

  @Test
  void anOpenBreakerRefusesTheFirstAttemptBeforeAnyStarts() {
    CircuitBreaker breaker = CircuitBreaker.builder().countWindow(1).minimumCalls(1).waitInOpen(Duration.ofHours(1))
        .build();
    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    VirtualTimeDriver driver = new VirtualTimeDriver();

    assertThat(driver.run(policy().circuitBreaker(breaker).build(), attempt -> "ok")).containsExactly(
        "refused CIRCUIT_OPEN");
  }

  @Test
  void aCancelDuringTheWaitDiscardsTheHeldResultAndStartsNoAttempt() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    driver.cancelInWait = attempt -> attempt == 1;

    assertThat(driver.run(policy().build(), attempt -> "busy-" + attempt)).containsExactly(
        "attempt 1", "wait " + 10 * MS, "discard busy-1", "complete CANCELLED");
  }

  @Test
  void noWaitEndsPastTheDeadline() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    driver.attemptNanos = 5 * MS; // attempt 1: 0-5 ms, wait to 15, attempt 2: 15-20; a wait to 30 is past 25

    assertThat(driver.run(policy().maxElapsed(Duration.ofMillis(25)).build(), CallMachineTest::failTwiceThenOk))
        .containsExactly("attempt 1", "wait " + 10 * MS, "attempt 2", "complete DEADLINE_EXCEEDED");
    assertThat(driver.now).isEqualTo(20 * MS);
  }

  @Test
  void aFailureTheRulesAbortOnStopsAtOnce() {
    VirtualTimeDriver driver = new VirtualTimeDriver();

    assertThat(driver.run(policy().abortOn(IllegalStateException.class).build(), attempt -> {
      throw new IllegalStateException("no");
    })).containsExactly("attempt 1", "complete ABORTED");
  }

  /** A limiter throttled once before any measurement, whose one token is taken by another call. */
  private static AdaptiveRateLimiter emptyLimiter(NanoClock clock) {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("machine").clock(clock).build();
    limiter.onResponse(true); // throttled before any bucket closed: the open bucket's rate, cut
    assertThat(limiter.reserve()).isZero(); // the full bucket's one token, taken by another call
    return limiter;
  }

  @Test
  void theFirstAttemptWaitsForTheLimitersTokenThenStarts() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    AdaptiveRateLimiter limiter = emptyLimiter(driver.clock);

    long wait = nextTokenNanos(limiter);

    assertThat(driver.run(policy().rateLimiter(limiter).build(), attempt -> "ok")).containsExactly(
        "wait for token " + wait, "attempt 1", "complete succeeded ok");
  }

  /** The wait for the next token at the limiter's rate, rounded up (the clock has not moved). */
  private static long nextTokenNanos(AdaptiveRateLimiter limiter) {
    long nanos = (long) Math.ceil((1 - limiter.tokens()) / limiter.fillRate() * 1e9);
    assertThat(nanos).as("a wait of a few hundred milliseconds").isBetween(100_000_000L, 2_000_000_000L);
    return nanos;
  }

  @Test
  void aTokenWaitPastTheDeadlineRefusesTheFirstAttemptAndGivesTheTokenBack() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    AdaptiveRateLimiter limiter = emptyLimiter(driver.clock);
    double tokensBefore = limiter.tokens();

    Duration deadline = Duration.ofNanos(nextTokenNanos(limiter) - 1); // the token comes 1ns too late
    assertThat(driver.run(policy().rateLimiter(limiter).maxElapsed(deadline).build(), attempt -> "ok"))
        .containsExactly("refused DEADLINE_EXCEEDED");
    assertThat(limiter.tokens()).as("the token taken for the refused wait is given back").isEqualTo(tokensBefore);
  }

  // ---- re-checks: a wait beyond the limiter's horizon holds nothing and asks the gate again ---------------

  /** 0.2 s + K + cbrt(50) s: the cubic's 40/s after the throttle at 0.2 s (W_max 20/s, K = cbrt(15) s). */
  private static final long RISE = 200 * MS + Math.round((Math.cbrt(15) + Math.cbrt(50)) * 1e9);

  /**
   * A limiter throttled at 0.2 s after 10 responses (20/s measured: fill 14/s, capacity 14, horizon 0.5 s),
   * whose 14 tokens and 7 firm slots other calls took at {@code RISE - 0.5 s}: the next wait, 8/14 s, is
   * beyond the horizon.
   */
  private static AdaptiveRateLimiter loadedLimiter(VirtualTimeDriver driver) {
    AdaptiveRateLimiter limiter = throttledLimiter(driver);
    driver.now = RISE - 500 * MS;
    for (int i = 0; i < 14; i++) {
      assertThat(limiter.reserve()).isZero();
    }
    for (int k = 1; k <= 7; k++) {
      assertThat(limiter.reserve()).as("firm wait %d/14 s", k).isEqualTo((long) Math.ceil(k * 1e9 / 14));
    }
    return limiter;
  }

  /** The limiter of {@link #loadedLimiter}, its 14 tokens all there, at {@code RISE - 0.51 s}. */
  private static AdaptiveRateLimiter throttledLimiter(VirtualTimeDriver driver) {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("machine").sendRateCeiling(1_000)
        .clock(driver.clock).build();
    driver.now = 100 * MS;
    for (int i = 0; i < 9; i++) {
      limiter.onResponse(false);
    }
    driver.now = 200 * MS;
    limiter.onResponse(true);
    assertThat(limiter.fillRate()).isEqualTo(14, within(1e-9));
    driver.now = RISE - 510 * MS;
    return limiter;
  }

  /**
   * The token given back is found by the re-check, but the others' last slot is due at that very moment (a
   * slot given back stays in the limiter's schedule), so the call goes one refill interval after it.
   */
  @Test
  void aWaitBeyondTheHorizonIsAReCheckThatFindsASlotGivenBackMeanwhile() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    AdaptiveRateLimiter limiter = loadedLimiter(driver);
    driver.duringRecheck = limiter::unreserve; // another call, waiting firmly, gave its slot up

    assertThat(driver.run(policy().rateLimiter(limiter).build(), attempt -> "ok")).containsExactly(
        "recheck " + 500 * MS, "wait for token " + (long) Math.floor(1e9 / 14), "attempt 1",
        "complete succeeded ok");
    assertThat(limiter.rechecks()).isEqualTo(1);
    assertThat(limiter.tokens())
        .as("7 slots taken by others, 1 given back and taken by this call, 7 refilled, 1 more during its wait")
        .isEqualTo(-7 + 1 - 1 + 7 + 1, within(1e-6));
  }

  @Test
  void aReCheckThatMustWaitAgainIsPricedAtTheRateOfThatMomentAndWaitsLess() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    AdaptiveRateLimiter limiter = loadedLimiter(driver);
    double[] rate = {0};
    driver.duringRecheck = () -> { // at RISE a success moves the rate along its cubic, to 40/s
      limiter.onResponse(false);
      rate[0] = limiter.fillRate();
    };

    List<String> trace = driver.run(policy().rateLimiter(limiter).build(), attempt -> "ok");

    assertThat(rate[0]).isCloseTo(40, within(1e-6));
    // 7 tokens refilled at 14/s meanwhile: the slot is 1 token away, 1/40 s at the new rate (1/14 s at the old).
    assertThat(trace).containsExactly("recheck " + 500 * MS, "wait for token " + 25 * MS, "attempt 1",
        "complete succeeded ok");
    // A reservation held from the start would have waited its 8/14 s slot: 571 ms against 525 ms.
    assertThat(500 * MS + 25 * MS).isLessThan((long) Math.ceil(8 * 1e9 / 14));
  }

  @Test
  void aDeadlineTheNextReCheckWouldPassStopsTheCallHoldingNothing() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    AdaptiveRateLimiter limiter = loadedLimiter(driver);
    driver.duringRecheck = () -> { // other calls take the 7 slots refilled meanwhile
      for (int k = 0; k < 7; k++) {
        assertThat(limiter.reserve()).isPositive();
      }
    };

    assertThat(driver.run(policy().rateLimiter(limiter).maxElapsed(Duration.ofMillis(900)).build(),
        attempt -> "ok")).containsExactly("recheck " + 500 * MS, "refused DEADLINE_EXCEEDED");
    assertThat(limiter.tokens()).as("no token of this call's to give back").isEqualTo(-7, within(1e-9));
    assertThat(limiter.rechecks()).isEqualTo(2);
  }

  @Test
  void aRetryReChecksHoldingNoTokenAndStartsAtTheRateOfThatMoment() {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    AdaptiveRateLimiter limiter = throttledLimiter(driver);
    for (int i = 0; i < 13; i++) { // others leave one token, the first attempt's
      assertThat(limiter.reserve()).isZero();
    }
    long[] lastDue = {0}; // when the last of the others' firm slots is due
    driver.duringWait = attempt -> { // during the backoff others take firm slots up to 0.6 s ahead
      for (int taken = 0; (1 - limiter.tokens()) / limiter.fillRate() * 1e9 <= 600 * MS; taken++) {
        assertThat(taken).as("slots taken").isLessThan(100);
        long wait = limiter.reserve();
        assertThat(wait).isPositive();
        lastDue[0] = driver.now + wait;
      }
      return attempt;
    };
    long[] firm = new long[2]; // the next token's wait at the new rate, and at the old one
    driver.duringRecheck = () -> { // at RISE a success moves the rate along its cubic
      double old = limiter.fillRate();
      limiter.onResponse(false);
      double shortOf = 1 - limiter.tokens(); // refilled to this instant by the response
      // The tokens' price at the rate of the moment, but not before one refill interval after the others'
      // last slot, which a raised rate may not overtake (AdaptiveRateLimiter: "Spaced behind the last").
      long pending = lastDue[0] - driver.now;
      firm[0] = Math.max((long) Math.ceil(shortOf / limiter.fillRate() * 1e9),
          pending + (long) Math.floor(1e9 / limiter.fillRate()));
      firm[1] = Math.max((long) Math.ceil(shortOf / old * 1e9), pending + (long) Math.floor(1e9 / old));
    };

    List<String> trace = driver.run(policy().rateLimiter(limiter).build(), attempt -> {
      if (attempt == 1) {
        throw new IOException("down");
      }
      return "ok-" + attempt;
    });

    // After the backoff the next slot is more than 0.5 s (the horizon) away: a re-check, then a firm wait.
    assertThat(trace).containsExactly("attempt 1", "wait " + 10 * MS, "recheck " + 500 * MS, "wait " + firm[0],
        "attempt 2", "complete succeeded ok-2");
    assertThat(firm[0]).as("priced at the higher rate of that moment").isPositive().isLessThan(firm[1]);
    assertThat(limiter.rechecks()).isEqualTo(1);
  }

  // ---- hedging: more than one attempt in flight (HedgingVirtualDriver: an event queue in virtual time) ----

  private static RetryPolicy.Builder<String> hedged(HedgingVirtualDriver driver) {
    return policy().name("hedged").maxAttempts(3).hedging(Hedging.after(Duration.ofMillis(10))).clock(driver.clock);
  }

  @Test
  void theSpisHedgeEffectsAreTheMachines() {
    assertThat(Engine.HEDGE_START).isEqualTo(CallMachine.START);
    assertThat(Engine.NO_MORE_HEDGES).isEqualTo(CallMachine.NO_MORE_HEDGES);
    assertThat(Engine.CALL_ENDED).isEqualTo(CallMachine.STOPPED);
    assertThat(Engine.CIRCUIT_OPEN).isSameAs(CallMachine.OPEN);
  }

  @Test
  void aHedgeWinsAndTheAttemptStillInFlightIsCancelled() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();

    assertThat(driver.run(hedged(driver).build(), n -> n == 1 ? Answer.ok(50, "ok-1") : Answer.ok(5, "ok-" + n)))
        .containsExactly("0 attempt 1", "0 hedge in 10ms", "10 attempt 2", "10 hedge in 10ms",
            "15 won by attempt 2", "15 cancel attempt 1", "15 complete succeeded ok-2");
    assertThat(driver.produced).containsExactly("ok-2");
  }

  @Test
  void aFailureStartsTheNextHedgeAtOnce() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();

    assertThat(driver.run(hedged(driver).build(),
        n -> n == 1 ? Answer.fail(3, new IOException("down")) : Answer.ok(5, "ok-" + n))).containsExactly(
        "0 attempt 1", "0 hedge in 10ms", "3 hedge in 0ms", "3 attempt 2", "3 hedge in 10ms",
        "8 won by attempt 2", "8 complete succeeded ok-2");
  }

  @Test
  void aServersPushbackDelaysTheNextHedgeAndItsStopEndsACallWithNothingInFlight() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    RetryPolicy<String> policy = hedged(driver).pushback((result, failure) ->
        failure == null ? Pushback.NONE : failure.getMessage().equals("stop") ? Pushback.STOP : 30 * MS).build();

    assertThat(driver.run(policy, n -> n == 1 ? Answer.fail(3, new IOException("later")) : Answer.ok(1, "ok-" + n)))
        .containsExactly("0 attempt 1", "0 hedge in 10ms", "3 hedge in 30ms", "33 attempt 2", "33 hedge in 10ms",
            "34 won by attempt 2", "34 complete succeeded ok-2");

    HedgingVirtualDriver stopped = new HedgingVirtualDriver();
    assertThat(stopped.run(policy, n -> Answer.fail(3, new IOException("stop")))).containsExactly(
        "0 attempt 1", "0 hedge in 10ms", "3 complete PUSHBACK");
  }

  @Test
  void aBreakerOpeningMidCallStopsTheHedgesAndTheCallEndsWhenTheLastAttemptAnswers() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    CircuitBreaker breaker = CircuitBreaker.builder().countWindow(2).minimumCalls(2)
        .waitInOpen(Duration.ofHours(1)).clock(driver.clock).build();
    driver.at(5, () -> {
      for (int i = 0; i < 2; i++) { // other calls fail through the breaker until it opens
        breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
      }
    });

    assertThat(driver.run(hedged(driver).circuitBreaker(breaker).build(), n -> Answer.fail(20, new IOException("x"))))
        .containsExactly("0 attempt 1", "0 hedge in 10ms", "10 no more hedges (CIRCUIT_OPEN)",
            "20 complete CIRCUIT_OPEN");
  }

  @Test
  void aHedgeWaitsForTheLimitersTokenThenStarts() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("machine").clock(driver.clock).build();
    limiter.onResponse(true); // the open bucket's rate, cut; the first attempt takes the one token

    List<String> trace = driver.run(hedged(driver).rateLimiter(limiter).build(),
        n -> n == 1 ? Answer.ok(5_000, "ok-1") : Answer.ok(1, "ok-" + n));

    assertThat(trace.subList(0, 3)).containsExactly("0 attempt 1", "0 hedge in 10ms", "10 wait for token "
        + trace.get(2).substring("10 wait for token ".length()));
    long wait = Long.parseLong(trace.get(2).substring("10 wait for token ".length()));
    assertThat(wait).as("the token's wait").isPositive();
    long startedAt = (10 * MS + wait) / MS;
    assertThat(trace.subList(3, trace.size())).containsExactly(startedAt + " attempt 2", startedAt + " hedge in 10ms",
        (startedAt + 1) + " won by attempt 2", (startedAt + 1) + " cancel attempt 1",
        (startedAt + 1) + " complete succeeded ok-2");
  }

  @Test
  void aHedgeBeyondTheLimitersHorizonReChecksHoldingNoTokenThenWaitsForItsToken() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("machine").clock(driver.clock).build();
    limiter.onResponse(true); // the open bucket's rate, cut: 1.4/s, horizon max(0.5 s, 1/1.4 s); attempt 1 takes 1
    double[] tokens = new double[1];
    driver.at(5, () -> assertThat(limiter.reserve()).as("another call's firm slot").isPositive());
    driver.at(10, () -> tokens[0] = limiter.tokens()); // before the hedge falls due (planned later, so after)
    driver.at(11, () -> assertThat(limiter.tokens()).as("the re-checking hedge took no token")
        .isCloseTo(tokens[0] + 0.001 * 1.4, within(1e-9)));
    long horizon = (long) Math.ceil(1e9 / 1.4);

    List<String> trace = driver.run(hedged(driver).rateLimiter(limiter).build(),
        n -> n == 1 ? Answer.ok(5_000, "ok-1") : Answer.ok(1, "ok-" + n));

    // At 10 ms the next slot is 1.586 / 1.4 s away, beyond the 714 ms horizon: the hedge falls due again
    // after one horizon, holding nothing; then its slot, 0.586 / 1.4 s away, is within it: a firm wait.
    assertThat(trace.subList(0, 3)).containsExactly("0 attempt 1", "0 hedge in 10ms", "10 wait for token " + horizon);
    long dueAgain = (10 * MS + horizon) / MS;
    assertThat(trace.get(3)).startsWith(dueAgain + " wait for token ");
    long firm = Long.parseLong(trace.get(3).substring((dueAgain + " wait for token ").length()));
    assertThat(firm).isPositive().isLessThanOrEqualTo(horizon);
    long startedAt = (10 * MS + horizon + firm) / MS;
    assertThat(trace.get(4)).isEqualTo(startedAt + " attempt 2");
    assertThat(limiter.rechecks()).isEqualTo(1);
  }

  @Test
  void aCancelWithTwoInFlightCancelsBothAndDiscardsTheHeldResult() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    driver.cancelAt(20);

    assertThat(driver.run(hedged(driver).build(), n -> n == 1 ? Answer.ok(3, "busy-1") : Answer.ok(50, "ok-" + n)))
        .containsExactly("0 attempt 1", "0 hedge in 10ms", "3 hedge in 0ms", "3 attempt 2", "3 hedge in 10ms",
            "13 attempt 3", "13 no more hedges (ATTEMPTS_EXHAUSTED)", "20 discard busy-1", "20 cancel attempt 2",
            "20 cancel attempt 3", "20 complete CANCELLED");
    assertThat(driver.discarded).containsExactly("busy-1");
  }

  /** Listeners that record how the call ended, as "CANCELLED after 1". */
  static RetryListener<String> ends(List<String> heard) {
    return new RetryListener<>() {
      @Override
      public void onSuccess(RetryEvent<String> event) {
        heard.add("success after " + event.attempts());
      }

      @Override
      public void onExhausted(RetryEvent<String> event) {
        heard.add(event.stopReason() + " after " + event.attempts());
      }

      @Override
      public void onAborted(RetryEvent<String> event) {
        heard.add(event.stopReason() + " after " + event.attempts());
      }
    };
  }

  @Test
  void aCancelAfterARefusedHedgeCountsTheFirstAttemptStillInFlight() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    // 2 slots, of which hedges may take 1: another call holds one, attempt 1 the other, so the hedge is refused.
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(2).retryShare(0.5).name("machine").build();
    ConcurrencyLimiter.Permit other = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
    List<String> heard = new ArrayList<>();
    driver.cancelAt(25);

    assertThat(driver.run(hedged(driver).concurrencyLimiter(limiter).listener(ends(heard)).build(),
        n -> Answer.ok(50, "ok-" + n))).containsExactly("0 attempt 1", "0 hedge in 10ms",
        "10 no more hedges (CONCURRENCY_LIMITED)", "25 cancel attempt 1", "25 complete CANCELLED");
    assertThat(heard).as("the attempt in flight was made").containsExactly("CANCELLED after 1");
    other.release();
    assertThat(limiter.inFlight()).isZero();
  }

  @Test
  void aCancelCountsEveryHedgeStartedAsAWinCountsItsCancelledLoser() {
    List<String> heard = new ArrayList<>();
    HedgingVirtualDriver cancelled = new HedgingVirtualDriver();
    cancelled.cancelAt(15);
    cancelled.run(hedged(cancelled).listener(ends(heard)).build(), n -> Answer.ok(50, "ok-" + n));
    HedgingVirtualDriver won = new HedgingVirtualDriver();
    won.run(hedged(won).listener(ends(heard)).build(), n -> Answer.ok(n == 2 ? 5 : 50, "ok-" + n));

    assertThat(heard).containsExactly("CANCELLED after 2", "success after 2");
  }

  @Test
  void noHedgeIsPlannedPastTheDeadlineAndTheCallEndsWithTheLastAnswer() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();

    assertThat(driver.run(hedged(driver).maxElapsed(Duration.ofMillis(15)).build(),
        n -> Answer.fail(n == 1 ? 30 : 2, new IOException("attempt " + n)))).containsExactly(
        "0 attempt 1", "0 hedge in 10ms", "10 attempt 2", "10 no more hedges (DEADLINE_EXCEEDED)",
        "12 no more hedges (DEADLINE_EXCEEDED)", "30 complete DEADLINE_EXCEEDED");
  }

  @Test
  void retriedResultsAreHeldOneAtATimeAndTheCallEndsWithTheLast() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();

    assertThat(driver.run(hedged(driver).build(), n -> Answer.ok(n == 1 ? 25 : 2, "busy-" + n))).containsExactly(
        "0 attempt 1", "0 hedge in 10ms", "10 attempt 2", "10 hedge in 10ms", "12 hedge in 0ms", "12 attempt 3",
        "12 no more hedges (ATTEMPTS_EXHAUSTED)", "14 discard busy-2", "14 no more hedges (ATTEMPTS_EXHAUSTED)",
        "25 discard busy-3", "25 complete ATTEMPTS_EXHAUSTED with busy-1");
    assertThat(driver.delivered).isEqualTo("busy-1");
  }

  @Test
  void aFatalFailureEndsTheCallAndCancelsTheOthers() {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();

    assertThat(driver.run(hedged(driver).abortOn(IllegalStateException.class).build(),
        n -> n == 1 ? Answer.ok(50, "ok-1") : Answer.fail(1, new IllegalStateException("no")))).containsExactly(
        "0 attempt 1", "0 hedge in 10ms", "10 attempt 2", "10 hedge in 10ms", "11 cancel attempt 1",
        "11 complete ABORTED");
  }
}
