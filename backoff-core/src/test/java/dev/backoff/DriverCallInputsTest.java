package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.driver.CallState;
import dev.backoff.driver.Effect;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The call state machine's inputs as the driver SPI gives them to drivers outside the core ({@link Engine},
 * answered with {@link Effect}s), in virtual time: the same effects as the machine's, and the re-checking
 * gate the simulator uses.
 */
class DriverCallInputsTest {
  private static final long MS = 1_000_000;
  private static final IOException FAILURE = new IOException("down");

  private final long[] now = {0};
  private final NanoClock clock = () -> now[0];

  private static RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().name("inputs").maxAttempts(4).backoff(Backoff.fixed(Duration.ofMillis(10)));
  }

  private CircuitBreaker breaker() {
    return CircuitBreaker.builder().name("inputs").countWindow(2).minimumCalls(2).failureRateThreshold(50)
        .waitInOpen(Duration.ofSeconds(60)).clock(clock).build();
  }

  /** A limiter throttled once, with a 100 ms time bucket, whose tokens other calls have taken. */
  private AdaptiveRateLimiter emptyLimiter() {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("inputs").timeBucket(Duration.ofMillis(100))
        .clock(clock).build();
    limiter.onResponse(true);
    for (int taken = 0; limiter.reserve() == 0; taken++) {
      assertThat(taken).as("tokens taken").isLessThan(1000);
    }
    return limiter;
  }

  /** The limiter's horizon: the longer of its 100 ms bucket and one token's refill interval. */
  private static long horizon(AdaptiveRateLimiter limiter) {
    return Math.max(100 * MS, (long) Math.ceil(1e9 / limiter.fillRate()));
  }

  /** Other calls reserve firmly until the next token's wait is beyond the limiter's horizon. */
  private static void reserveBeyondTheHorizon(AdaptiveRateLimiter limiter) {
    for (int taken = 0; (1 - limiter.tokens()) / limiter.fillRate() * 1e9 <= horizon(limiter) + 1; taken++) {
      assertThat(taken).as("tokens taken").isLessThan(1000);
      assertThat(limiter.reserve()).isPositive();
    }
  }

  /** The breaker's permit for a first attempt that the gate starts. */
  private CircuitBreaker.Permit admitted(RetryPolicy<String> policy) {
    CircuitBreaker.Permit permit = Engine.admit(policy);
    assertThat(Engine.gate(policy, 0, clock, permit)).isEqualTo(Effect.START);
    return permit;
  }

  @Test
  void theEffectsAreTheMachinesNumbers() {
    long[] spi = {Effect.SUCCEEDED, Effect.STOPPED, Effect.START, Effect.REFUSED_CIRCUIT_OPEN,
        Effect.REFUSED_RATE_LIMITED, Effect.REFUSED_DEADLINE, Effect.REFUSED_CONCURRENCY_LIMITED};
    long[] machine = {CallMachine.SUCCEEDED, CallMachine.STOPPED, CallMachine.START, CallMachine.REFUSED_CIRCUIT_OPEN,
        CallMachine.REFUSED_RATE_LIMITED, CallMachine.REFUSED_DEADLINE, CallMachine.REFUSED_CONCURRENCY_LIMITED};
    assertThat(spi).containsExactly(machine);
    for (long effect : new long[] {0, 5, Effect.SUCCEEDED, Effect.STOPPED, Effect.START, Effect.REFUSED_DEADLINE,
        Engine.NO_MORE_HEDGES, Effect.REFUSED_CONCURRENCY_LIMITED}) {
      assertThat(Effect.isRecheck(effect)).as("%d", effect).isFalse();
    }
    assertThat(Effect.isRecheck(CallMachine.RECHECK - 1)).isTrue();
    assertThat(Effect.recheckNanos(CallMachine.RECHECK - 7 * MS)).isEqualTo(7 * MS);
    long longest = Long.MAX_VALUE + CallMachine.RECHECK;
    assertThat(Effect.recheckNanos(CallMachine.RECHECK - longest)).isEqualTo(longest);
    assertThatThrownBy(() -> Effect.recheckNanos(Effect.START)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a re-check: -3");
    assertThat(Effect.isRecheck(CallMachine.RECHECK)).isFalse();
  }

  @Test
  void aCallThatFailsTwiceThenSucceedsThroughTheInputs() {
    CircuitBreaker breaker = CircuitBreaker.builder().name("inputs").countWindow(10).minimumCalls(10).clock(clock)
        .build();
    RetryPolicy<String> policy = policy().circuitBreaker(breaker).build();
    long start = Engine.startNanos(policy, clock);
    CircuitBreaker.Permit permit = Engine.admit(policy);
    assertThat(Engine.gate(policy, start, clock, permit)).isEqualTo(Effect.START);

    now[0] = 3 * MS;
    Verdict verdict = Engine.judge(policy, null, null, FAILURE);
    assertThat(verdict).isSameAs(Verdict.RETRYABLE);
    CallState<String> execution = Engine.firstFailed(policy, start, now[0], new Random(1), permit);
    assertThat(Engine.outcome(execution, null, FAILURE, verdict, now[0], permit)).isEqualTo(10 * MS);

    now[0] += 10 * MS;
    permit = Engine.admit(policy);
    assertThat(Engine.timerFired(policy, execution, permit, clock)).isEqualTo(Effect.START);
    assertThat(Engine.outcome(execution, null, FAILURE, verdict, now[0], permit)).isEqualTo(10 * MS);

    now[0] += 10 * MS;
    permit = Engine.admit(policy);
    assertThat(Engine.timerFired(policy, execution, permit, clock)).isEqualTo(Effect.START);
    assertThat(Engine.outcome(execution, "ok", null, Engine.judge(policy, null, "ok", null), now[0], permit))
        .isEqualTo(Effect.SUCCEEDED);
    assertThat(execution.attempts()).isEqualTo(3);
    assertThat(breaker.metrics().calls()).as("every attempt's permit heard its outcome").isEqualTo(3);
    assertThat(breaker.metrics().failures()).isEqualTo(2);
  }

  @Test
  void aFirstTrySuccessCreatesNoExecutionAndItsPermitHearsIt() {
    CircuitBreaker breaker = breaker();
    RetryPolicy<String> policy = policy().circuitBreaker(breaker).build();
    CircuitBreaker.Permit permit = admitted(policy);
    assertThat(Engine.firstAccepted(policy, "ok", 0, clock, permit)).isEqualTo(Effect.SUCCEEDED);
    assertThat(breaker.metrics().calls()).isEqualTo(1);
    assertThat(breaker.metrics().failures()).isZero();
  }

  @Test
  void aRetryWhoseBreakerOpenedDuringItsWaitStopsTheCall() {
    CircuitBreaker breaker = breaker();
    RetryPolicy<String> policy = policy().circuitBreaker(breaker).build();
    CircuitBreaker.Permit permit = admitted(policy);
    CallState<String> execution = Engine.firstFailed(policy, 0, 0, new Random(1), permit);
    assertThat(Engine.outcome(execution, null, FAILURE, Verdict.RETRYABLE, 0, permit)).isEqualTo(10 * MS);

    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT); // another call's failure opens the breaker
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    now[0] = 10 * MS;
    assertThat(Engine.timerFired(policy, execution, Engine.admit(policy), clock)).isEqualTo(Effect.STOPPED);
    assertThat(execution.stopReason()).isEqualTo(StopReason.CIRCUIT_OPEN);
    assertThat(Engine.gate(policy, 0, clock, Engine.admit(policy))).as("a first attempt now")
        .isEqualTo(Effect.REFUSED_CIRCUIT_OPEN);
  }

  @Test
  void aReCheckingGateTakesNoTokenForAWaitBeyondTheHorizonAndAsksAgainLater() {
    AdaptiveRateLimiter limiter = emptyLimiter();
    reserveBeyondTheHorizon(limiter);
    RetryPolicy<String> policy = policy().rateLimiter(limiter).build();
    double tokens = limiter.tokens();
    long horizon = horizon(limiter);

    long effect = Engine.gate(policy, 0, clock, Engine.admit(policy));
    assertThat(Effect.isRecheck(effect)).as("effect %d", effect).isTrue();
    assertThat(Effect.recheckNanos(effect)).isEqualTo(horizon);
    assertThat(limiter.tokens()).as("no token taken").isEqualTo(tokens);

    long again = Engine.gate(policy, 0, clock, Engine.admit(policy));
    assertThat(again).as("asked again at once: still a re-check (one rule for every driver)").isEqualTo(effect);
    assertThat(limiter.tokens()).as("still no token taken").isEqualTo(tokens);
  }

  @Test
  void aRetryThatReChecksHoldsNoTokenAndStartsWhenTheRateAllows() {
    AdaptiveRateLimiter limiter = emptyLimiter();
    RetryPolicy<String> policy = policy().rateLimiter(limiter).build();
    CallState<String> execution = Engine.firstFailed(policy, 0, 0, new Random(1), null);
    assertThat(Engine.outcome(execution, null, FAILURE, Verdict.RETRYABLE, 0, null)).isEqualTo(10 * MS);

    now[0] = 10 * MS;
    reserveBeyondTheHorizon(limiter);
    long effect = Engine.timerFired(policy, execution, Engine.admit(policy), clock);
    assertThat(Effect.isRecheck(effect)).as("effect %d", effect).isTrue();
    assertThat(((Execution<String>) execution).rateTokenHeld()).isFalse();

    now[0] += 60_000 * MS; // the bucket has refilled
    assertThat(Engine.timerFired(policy, execution, Engine.admit(policy), clock)).isEqualTo(Effect.START);
  }

  @Test
  void aRetryWaitingForItsTokenIsRefusedByABreakerThatOpenedMeanwhileAndGivesTheTokenBack() {
    CircuitBreaker breaker = breaker();
    AdaptiveRateLimiter limiter = emptyLimiter(); // at 7/s, its last firm slot due at 1/7 s
    RetryPolicy<String> policy = policy().circuitBreaker(breaker).rateLimiter(limiter).build();
    CircuitBreaker.Permit permit = breaker.tryAcquire();
    CallState<String> execution = Engine.firstFailed(policy, 0, 0, new Random(1), permit);
    assertThat(Engine.outcome(execution, null, FAILURE, Verdict.RETRYABLE, 0, permit)).isEqualTo(10 * MS);

    // The retry's timer fires late, after that slot was due: the next token is 0.95 token (136 ms) away,
    // within the horizon (1/7 s).
    now[0] = 150 * MS;
    long wait = Engine.timerFired(policy, execution, Engine.admit(policy), clock);
    assertThat(wait).as("a firm wait for the token").isPositive();
    assertThat(((Execution<String>) execution).rateTokenHeld()).isTrue();

    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT); // opens while the retry waits, holding no permit
    now[0] += wait;
    double tokens = limiter.tokens();
    assertThat(Engine.timerFired(policy, execution, Engine.admit(policy), clock)).isEqualTo(Effect.STOPPED);
    assertThat(execution.stopReason()).isEqualTo(StopReason.CIRCUIT_OPEN);
    assertThat(limiter.tokens()).as("the held token given back").isEqualTo(tokens + 1);
  }

  @Test
  void aRetryOfAPolicyWithoutGatesOrBudgetStartsWithoutReadingItsExecution() {
    RetryPolicy<String> ungated = policy().build();
    assertThat(CallMachine.timerFired(ungated, null, null, clock)).as("no execution read").isEqualTo(
        CallMachine.START);
    RetryPolicy<String> budgeted = policy().budget(RetryBudgets.awsStandard()).build();
    assertThatThrownBy(() -> CallMachine.timerFired(budgeted, null, null, clock))
        .as("a budget's grant is the execution's to keep").isInstanceOf(NullPointerException.class);
  }

  @Test
  void stopEndsAWaitingCallAndHandsBackItsHeldResult() {
    RetryPolicy<String> policy = policy().retryOnResult("busy"::equals).build();
    CallState<String> execution = Engine.firstFailed(policy, 0, 0, new Random(1), null);
    Verdict verdict = Engine.judge(policy, null, "busy", null);
    assertThat(Engine.outcome(execution, "busy", null, verdict, 0, null)).isEqualTo(10 * MS);
    assertThat(Engine.stop(execution, StopReason.CANCELLED, clock)).isEqualTo("busy");
    assertThat(execution.stopReason()).isEqualTo(StopReason.CANCELLED);
    assertThat(Engine.stop(execution, StopReason.CANCELLED, clock)).as("once").isNull();
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> Engine.gate(null, 0, clock, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("policy");
    RetryPolicy<String> policy = policy().build();
    assertThatThrownBy(() -> Engine.timerFired(policy, null, null, clock))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("execution");
    assertThatThrownBy(() -> Engine.startNanos(policy, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("clock");
    CallState<String> execution = Engine.firstFailed(policy, 0, 0, new Random(1), null);
    assertThatThrownBy(() -> Engine.outcome(execution, null, FAILURE, Verdict.ACCEPT, 0, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRefusedFirstAttemptFailsAsTheCoresOwnDriversFailIt() {
    CircuitBreaker breaker = breaker();
    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    RetryPolicy<String> open = policy().circuitBreaker(breaker).build();
    assertThat(Engine.gate(open, 0, clock, Engine.admit(open))).isEqualTo(Effect.REFUSED_CIRCUIT_OPEN);
    assertThat(Engine.refusedFirst(open, Effect.REFUSED_CIRCUIT_OPEN)).isInstanceOf(CircuitOpenException.class)
        .hasMessage("circuit breaker 'inputs' is OPEN and refused the call");

    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).name("inputs").clock(clock).build();
    ConcurrencyLimiter.Permit held = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
    RetryPolicy<String> full = policy().concurrencyLimiter(limiter).build();
    assertThat(Engine.gate(full, 0, clock, Engine.admit(full))).isEqualTo(Effect.REFUSED_CONCURRENCY_LIMITED);
    assertThat(Engine.refusedFirst(full, Effect.REFUSED_CONCURRENCY_LIMITED))
        .isInstanceOf(ConcurrencyLimitedException.class)
        .hasMessage("concurrency limiter 'inputs' refused the first attempt: 1 attempts in flight, limit 1");
    held.release();

    RetryPolicy<String> limited = policy().rateLimiter(emptyLimiter()).maxElapsed(Duration.ofSeconds(1)).build();
    assertThat(Engine.refusedFirst(limited, Effect.REFUSED_DEADLINE)).isInstanceOf(RateLimitedException.class)
        .hasMessage("rate limiter 'inputs' refused the first attempt: its wait for a token would end past the "
            + "policy's deadline, 1s");

    assertThat(Effect.refusal(Effect.REFUSED_CIRCUIT_OPEN)).isEqualTo(StopReason.CIRCUIT_OPEN);
    assertThat(Effect.refusal(Effect.REFUSED_RATE_LIMITED)).isEqualTo(StopReason.RATE_LIMITED);
    assertThat(Effect.refusal(Effect.REFUSED_DEADLINE)).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    assertThat(Effect.refusal(Effect.REFUSED_CONCURRENCY_LIMITED)).isEqualTo(StopReason.CONCURRENCY_LIMITED);
    assertThatThrownBy(() -> Effect.refusal(Effect.STOPPED)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Engine.refusedFirst(open, Effect.START)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a refusal: " + Effect.START);
    assertThatThrownBy(() -> Engine.refusedFirst(open, Effect.REFUSED_RATE_LIMITED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the policy has no gate that refuses with RATE_LIMITED");
    assertThatThrownBy(() -> Engine.refusedFirst(null, Effect.REFUSED_CIRCUIT_OPEN))
        .isInstanceOf(NullPointerException.class);
  }
}
