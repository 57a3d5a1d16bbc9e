package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
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
}
