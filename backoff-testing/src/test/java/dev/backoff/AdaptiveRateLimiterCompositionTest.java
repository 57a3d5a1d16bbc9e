package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.offset;
import static org.assertj.core.api.Assertions.within;

import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An adaptive rate limiter composed with a retry policy, through both executors, on a fake clock: every
 * attempt (first attempts and retries) takes a token; a wait happens on the policy's sleeper (sync) or the
 * scheduler (async); a refusal, a wait past the deadline, an interrupt or a cancel stop the call and give
 * the token back; a throttled outcome (a result or failure the policy classifies THROTTLED) is reported.
 *
 * <p>The limiter's numbers in these tests (beta 0.5, so that every rate is exact in binary): a first
 * throttle inside the first 0.5 s bucket, with no bucket closed, takes the open bucket's count over a whole
 * bucket as the measured rate (the cold start): one response, 2/s; the cut halves it to 1 token/s, with a
 * capacity of one token, full. Waits are then {@code (1 - tokens) / 1} s. A throttle less than a bucket
 * after that cut is the same congestion event: it does not cut again.
 */
class AdaptiveRateLimiterCompositionTest {
  private static final Duration BACKOFF = Duration.ofMillis(125); // 0.125 s: exact in binary
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RecordingListener<String> listener = new RecordingListener<>();

  private AdaptiveRateLimiter.Builder limiter() {
    return AdaptiveRateLimiter.builder().name("svc").clock(clock).beta(0.5);
  }

  private RetryPolicy.Builder<String> policy(AdaptiveRateLimiter limiter) {
    return RetryPolicy.<String>builder().maxAttempts(5).backoff(Backoff.fixed(BACKOFF)).clock(clock)
        .sleeper(sleeper).retryOnResult("429"::equals)
        .classifyResults(result -> "429".equals(result) ? FailureClass.THROTTLED : FailureClass.TRANSIENT)
        .rateLimiter(limiter).listener(listener);
  }

  /** Answers from a script, one per attempt; the last repeats. */
  private static Callable<String> answers(AtomicInteger attempts, String... script) {
    return () -> script[Math.min(attempts.getAndIncrement(), script.length - 1)];
  }

  @Test
  void syncThrottlesEnableTheLimiterAndTheRetryWaitsForItsToken() throws Exception {
    AdaptiveRateLimiter limiter = limiter().build();
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).build());
    AtomicInteger attempts = new AtomicInteger();

    String result = executor.call(answers(attempts, "429", "429", "ok"));

    // Attempt 1: not enabled, no wait; its 429 enables the limiter at 1 token/s (2/s measured in the open
    // bucket, halved: not the 0.5/s floor), 1 token. Sleep 0.125 s; attempt 2 takes the token; its 429,
    // 0.125 s after the cut, is the same congestion event: the rate stays 1/s, the bucket empty. Sleep
    // 0.125 s (0.125 token earned); attempt 3 waits (1 - 0.125) / 1 = 0.875 s on the policy's sleeper.
    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
    assertThat(sleeper.sleeps()).containsExactly(BACKOFF, BACKOFF, Duration.ofMillis(875));
    assertThat(limiter.enabled()).isTrue();
    assertThat(limiter.throttles()).isEqualTo(2);
    assertThat(limiter.waits()).isEqualTo(1);
  }

  @Test
  void syncTheLimiterGatesFirstAttemptsToo() throws Exception {
    AdaptiveRateLimiter limiter = limiter().build();
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).maxAttempts(1).build());
    AtomicInteger attempts = new AtomicInteger();
    assertThat(executor.call(answers(attempts, "429"))).isEqualTo("429"); // enables it: 1 token, 1/s
    assertThat(executor.call(answers(attempts, "ok"))).isEqualTo("ok"); // takes it, no wait
    assertThat(sleeper.sleeps()).isEmpty();
    // Waits a whole token at the rate of the cubic curve at the cut, beta x W_max = 1/s: 1 s (within a
    // nanosecond: the curve's value there is 1 up to rounding).
    assertThat(executor.call(answers(attempts, "ok"))).isEqualTo("ok");
    assertThat(sleeper.sleeps()).hasSize(1);
    assertThat(sleeper.sleeps().get(0).toNanos()).isCloseTo(1_000_000_000L, within(2L));
  }

  @Test
  void syncFailFastRefusesTheFirstAttemptWithARateLimitedException() {
    AdaptiveRateLimiter limiter = limiter().failFast(true).build();
    limiter.onResponse(true); // another caller's throttle: 1 token
    assertThat(limiter.reserve()).isZero(); // someone else takes it
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).build());
    AtomicInteger attempts = new AtomicInteger();

    Throwable refused = catchThrowable(() -> executor.call(answers(attempts, "ok")));

    assertThat(refused).isInstanceOf(RateLimitedException.class)
        .hasMessage("rate limiter 'svc' refused the first attempt: its wait for a token exceeded the limiter's "
            + "maximum wait, 0s");
    assertThat(attempts).hasValue(0);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void syncARefusedFirstAttemptIsRecovered() throws Exception {
    AdaptiveRateLimiter limiter = limiter().failFast(true).build();
    limiter.onResponse(true);
    limiter.reserve();
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).build());
    String value = executor.call(() -> "never", (last, failure, history) ->
        "fallback after " + failure.getClass().getSimpleName() + ", " + history.stopReason());
    assertThat(value).isEqualTo("fallback after RateLimitedException, RATE_LIMITED");
  }

  @Test
  void syncFailFastStopsARetryWithRateLimitedAndTheLastFailure() {
    AdaptiveRateLimiter limiter = limiter().failFast(true).build();
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter)
        .classifyFailures(failure -> FailureClass.THROTTLED).build());
    AtomicInteger attempts = new AtomicInteger();

    Throwable failure = catchThrowable(() -> executor.call(() -> {
      throw new IOException("throttled " + attempts.incrementAndGet());
    }));

    // Attempt 1's throttle enables the limiter with one token; attempt 2 takes it; its throttle leaves the
    // bucket empty, and retry 2 is refused after its backoff.
    assertThat(failure).isInstanceOf(IOException.class).hasMessage("throttled 2");
    assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.RATE_LIMITED);
    assertThat(listener.stopReasons()).containsExactly(StopReason.RATE_LIMITED);
    assertThat(sleeper.sleeps()).containsExactly(BACKOFF, BACKOFF);
    assertThat(limiter.refusals()).isEqualTo(1);
  }

  @Test
  void syncAFirstAttemptWhoseWaitPassesTheDeadlineIsRefusedAndGivesTheTokenBack() {
    AdaptiveRateLimiter limiter = limiter().build();
    limiter.onResponse(true);
    limiter.reserve(); // empty: the next attempt would wait 1 s
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).maxElapsed(Duration.ofMillis(500)).build());
    AtomicInteger attempts = new AtomicInteger();

    Throwable refused = catchThrowable(() -> executor.call(answers(attempts, "ok")));

    assertThat(refused).isInstanceOf(RateLimitedException.class).hasMessage("rate limiter 'svc' refused the first "
        + "attempt: its wait for a token would end past the policy's deadline, 500ms");
    assertThat(attempts).hasValue(0);
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(limiter.tokens()).as("the token given back").isZero();
  }

  @Test
  void syncARetryWhoseWaitPassesTheDeadlineStopsWithTheLastFailure() {
    AdaptiveRateLimiter limiter = limiter().build();
    limiter.onResponse(true); // enabled, one token, 1/s
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).maxElapsed(Duration.ofMillis(500))
        .classifyFailures(failure -> FailureClass.THROTTLED).build());
    AtomicInteger attempts = new AtomicInteger();

    Throwable failure = catchThrowable(() -> executor.call(() -> {
      throw new IOException("throttled " + attempts.incrementAndGet());
    }));

    // Attempt 1 takes the token and is throttled (the same congestion event as the first throttle: still
    // 1/s); after 0.125 s the retry would wait 0.875 s: 1 s > 0.5 s.
    assertThat(failure).isInstanceOf(IOException.class).hasMessage("throttled 1");
    assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    assertThat(sleeper.sleeps()).containsExactly(BACKOFF);
    assertThat(limiter.tokens()).as("the token given back: 0.125 earned, none taken").isCloseTo(0.125, offset(1e-12));
  }

  @Test
  void syncAnInterruptDuringTheWaitStopsTheCallAndGivesTheTokenBack() {
    AdaptiveRateLimiter limiter = limiter().build();
    limiter.onResponse(true);
    limiter.reserve(); // the bucket is empty: the next call waits 1 s
    RecordingSleeper interrupting = new RecordingSleeper(clock).interruptAfter(0);
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).sleeper(interrupting).build());
    AtomicInteger attempts = new AtomicInteger();

    Throwable failure = catchThrowable(() -> executor.call(answers(attempts, "ok")));

    assertThat(failure).isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).as("the flag is set again (and cleared here)").isTrue();
    assertThat(attempts).hasValue(0);
    assertThat(limiter.tokens()).as("the token given back").isZero();
  }

  @Test
  void asyncTheFirstAttemptAndTheRetriesWaitOnTheScheduler() throws Exception {
    AdaptiveRateLimiter limiter = limiter().build();
    limiter.onResponse(true);
    limiter.reserve(); // empty: the first attempt waits 1 s
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(limiter).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    Callable<String> script = answers(attempts, "429", "ok");

    CompletableFuture<String> future = executor.call(() -> {
      try {
        return CompletableFuture.completedFuture(script.call());
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    });
    assertThat(attempts).as("nothing sent before the token").hasValue(0);
    while (scheduler.runNext()) {
      // each wait as it falls due
    }

    // Wait 1 s; attempt 1's 429, a bucket after the first cut, is a new congestion event: W_max =
    // min(measured 2/s, fill 1/s) = 1, halved to 0.5/s, tokens 0; backoff 0.125 s (0.0625 token); the retry
    // waits (1 - 0.0625) / 0.5 = 1.875 s more for its token, then succeeds.
    assertThat(future.get()).isEqualTo("ok");
    assertThat(attempts).hasValue(2);
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(1), BACKOFF, Duration.ofMillis(1_875));
    assertThat(sleeper.sleeps()).as("async calls never sleep").isEmpty();
  }

  @Test
  void asyncACancelDuringTheWaitMakesNoAttemptAndGivesTheTokenBack() {
    AdaptiveRateLimiter limiter = limiter().build();
    limiter.onResponse(true);
    limiter.reserve();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(limiter).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(() -> {
      attempts.incrementAndGet();
      return CompletableFuture.completedFuture("ok");
    });
    assertThat(scheduler.pending()).isEqualTo(1);
    assertThat(limiter.tokens()).isEqualTo(-1.0);

    assertThat(future.cancel(false)).isTrue();
    scheduler.advance(Duration.ofSeconds(10));

    assertThat(attempts).hasValue(0);
    assertThat(limiter.tokens()).as("given back, then refilled to the capacity").isEqualTo(1.0);
    assertThat(listener.stopReasons()).containsExactly(StopReason.CANCELLED);
  }

  @Test
  void asyncFailFastRefusesTheFirstAttemptAndStopsARetry() {
    AdaptiveRateLimiter limiter = limiter().failFast(true).build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(limiter).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(
        () -> CompletableFuture.completedFuture(attempts.incrementAndGet() < 9 ? "429" : "ok"));
    while (scheduler.runNext()) {
      // run each retry as it falls due
    }
    // Attempt 1's 429 enables the limiter (1 token); retry 1 takes it; its 429 empties the bucket; retry 2 is
    // refused: the call ends with the last result.
    assertThat(future.join()).isEqualTo("429");
    assertThat(attempts).hasValue(2);
    assertThat(listener.stopReasons()).containsExactly(StopReason.RATE_LIMITED);

    CompletableFuture<String> refused = executor.call(() -> CompletableFuture.completedFuture("never"));
    assertThat(catchThrowable(refused::get)).isInstanceOf(ExecutionException.class).cause()
        .isInstanceOf(RateLimitedException.class);
  }

  @Test
  void asyncAWaitPastTheDeadlineStopsTheCall() {
    AdaptiveRateLimiter limiter = limiter().build();
    limiter.onResponse(true);
    limiter.reserve();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(
        policy(limiter).maxElapsed(Duration.ofMillis(500)).build(), scheduler);
    CompletableFuture<String> future = executor.call(() -> CompletableFuture.completedFuture("never"));
    assertThat(catchThrowable(future::get)).cause().isInstanceOf(RateLimitedException.class)
        .hasMessageContaining("would end past the policy's deadline, 500ms");
    assertThat(scheduler.pending()).isZero();
    assertThat(limiter.tokens()).as("the token given back").isZero();
  }

  // ---- waiting beyond the horizon: every driver re-checks, holding nothing --------------------------------

  /**
   * The limiter at 1 token/s (horizon max(0.5 s, 1 s) = 1 s) whose token and next slot (1 s away) other calls
   * took: a call's next slot is 2 s away, beyond the horizon, so it re-checks after 1 s holding nothing.
   */
  private AdaptiveRateLimiter loadedLimiter() {
    AdaptiveRateLimiter limiter = limiter().build();
    limiter.onResponse(true);
    assertThat(limiter.reserve()).isZero();
    assertThat(limiter.reserve()).isEqualTo(Duration.ofSeconds(1).toNanos());
    return limiter;
  }

  /**
   * What happens at the start of a call's {@code wait}-th wait: at the first, the waiting call holds no token
   * (the tokens are the other calls' -1) and another call takes the slot 2 s away, which a reservation held
   * by the waiting call would have made 3 s; at the second (t = 1 s, the call re-checked again: its slot is
   * still 2 s away), a success moves the rate along its cubic to about 1.98/s.
   */
  private void whileWaiting(AdaptiveRateLimiter limiter, int wait) {
    if (wait == 1) {
      assertThat(limiter.tokens()).as("the waiting call holds no token").isEqualTo(-1.0);
      assertThat(limiter.reserve()).as("another call takes the slot").isEqualTo(Duration.ofSeconds(2).toNanos());
    } else if (wait == 2) {
      assertThat(clock.nanoTime()).isEqualTo(Duration.ofSeconds(1).toNanos());
      limiter.onResponse(false);
      assertThat(limiter.fillRate()).as("recovering").isGreaterThan(1.9);
    }
  }

  /**
   * Two re-checks of 1 s, then a firm wait priced at the recovered rate: at t = 2 s the bucket holds
   * 0.98 token (-1 at t = 1 s, refilled at about 1.98/s), but the other call's slot is due at that very
   * moment, so the call goes one refill interval after it (spaced behind the last), about 1 / 1.98 s = 505 ms,
   * where the old rate made it 1 s.
   */
  private static void reCheckedThenPricedAtTheRecoveredRate(List<Duration> waits, AdaptiveRateLimiter limiter) {
    assertThat(waits).hasSize(3);
    assertThat(waits.subList(0, 2)).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
    assertThat(waits.get(2)).isBetween(Duration.ofMillis(495), Duration.ofMillis(515));
    assertThat(limiter.rechecks()).isEqualTo(2);
  }

  @Test
  void syncAWaitingCallHoldsNoTokenAndIsPricedAtTheRateWhenItAsksAgain() throws Exception {
    AdaptiveRateLimiter limiter = loadedLimiter();
    List<Duration> waits = new java.util.ArrayList<>();
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).sleeper(waiting(limiter, waits)).build());

    assertThat(executor.call(() -> "ok")).isEqualTo("ok");
    reCheckedThenPricedAtTheRecoveredRate(waits, limiter);
  }

  /** A sleeper that records each wait, runs {@link #whileWaiting} at its start, then moves the clock on. */
  private Sleeper waiting(AdaptiveRateLimiter limiter, List<Duration> waits) {
    return nanos -> {
      waits.add(Duration.ofNanos(nanos));
      whileWaiting(limiter, waits.size());
      clock.advanceNanos(nanos);
    };
  }

  @Test
  void syncAReCheckWhoseNextAskWouldPassTheDeadlineRefusesTheFirstAttempt() {
    AdaptiveRateLimiter limiter = loadedLimiter();
    List<Duration> waits = new java.util.ArrayList<>();
    RetryExecutor<String> executor = RetryExecutor.of(policy(limiter).maxElapsed(Duration.ofMillis(1_500))
        .sleeper(waiting(limiter, waits)).build());

    // At t = 1 s the slot is 2 s away again (another call took it): the next ask, at 2 s, would pass 1.5 s.
    assertThat(catchThrowable(() -> executor.call(() -> "never"))).isInstanceOf(RateLimitedException.class)
        .hasMessageContaining("would end past the policy's deadline");
    assertThat(waits).containsExactly(Duration.ofSeconds(1));
    assertThat(limiter.tokens()).as("the other calls' slots only").isEqualTo(-1.0);
  }

  @Test
  void asyncAReCheckWhoseNextAskWouldPassTheDeadlineRefusesTheFirstAttempt() {
    AdaptiveRateLimiter limiter = loadedLimiter();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(
        policy(limiter).maxElapsed(Duration.ofMillis(1_500)).build(), scheduler);

    CompletableFuture<String> future = executor.call(() -> CompletableFuture.completedFuture("never"));
    whileWaiting(limiter, 1);
    assertThat(scheduler.runNext()).isTrue(); // t = 1 s: as above

    assertThat(catchThrowable(future::get)).cause().isInstanceOf(RateLimitedException.class)
        .hasMessageContaining("would end past the policy's deadline");
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(1));
    assertThat(scheduler.pending()).isZero();
    assertThat(limiter.tokens()).as("the other calls' slots only").isEqualTo(-1.0);
  }

  @Test
  void asyncAWaitingCallHoldsNoTokenAndIsPricedAtTheRateWhenItAsksAgain() throws Exception {
    AdaptiveRateLimiter limiter = loadedLimiter();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(limiter).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();

    CompletableFuture<String> future = executor.call(() -> {
      attempts.incrementAndGet();
      return CompletableFuture.completedFuture("ok");
    });
    for (int wait = 1; scheduler.pending() > 0; wait++) {
      assertThat(attempts).as("nothing sent while waiting").hasValue(0);
      whileWaiting(limiter, wait);
      scheduler.runNext();
    }

    assertThat(future.get()).isEqualTo("ok");
    reCheckedThenPricedAtTheRecoveredRate(scheduler.delays(), limiter);
  }

  @Test
  void hedgedAWaitingCallHoldsNoTokenAndIsPricedAtTheRateWhenItAsksAgain() throws Exception {
    AdaptiveRateLimiter limiter = loadedLimiter();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(limiter)
        .hedging(Hedging.after(Duration.ofSeconds(5))).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();

    CompletableFuture<String> future = executor.call(() -> {
      attempts.incrementAndGet();
      return CompletableFuture.completedFuture("ok");
    });
    for (int wait = 1; attempts.get() == 0; wait++) {
      whileWaiting(limiter, wait);
      assertThat(scheduler.runNext()).isTrue();
    }

    assertThat(future.get()).isEqualTo("ok");
    // The first attempt's three waits, then its hedge planned 5 s after it started (cancelled by its success).
    reCheckedThenPricedAtTheRecoveredRate(scheduler.delays().subList(0, 3), limiter);
  }

  /** A hedged call's throttled attempts reach the limiter too (its attempts are not gated yet). */
  @Test
  void aHedgedCallsThrottlesAreReported() throws Exception {
    AdaptiveRateLimiter limiter = limiter().build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(limiter)
        .hedging(Hedging.after(Duration.ofMillis(100))).build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(
        () -> CompletableFuture.completedFuture(attempts.incrementAndGet() == 1 ? "429" : "ok"));
    while (scheduler.runNext()) {
      // the hedge after the 429
    }
    assertThat(future.get()).isEqualTo("ok");
    assertThat(attempts).hasValue(2);
    assertThat(limiter.throttles()).isEqualTo(1);
    assertThat(limiter.enabled()).isTrue();
  }

  @Test
  void withoutALimiterNothingChanges() throws Exception {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().clock(clock).sleeper(sleeper).build();
    assertThat(policy.rateLimiter()).isNull();
    assertThat(RetryExecutor.of(policy).call(() -> "ok")).isEqualTo("ok");
    assertThat(policy.toString()).doesNotContain("rate limiter");
    assertThat(policy(limiter().build()).build().toString()).contains("rate limiter svc");
  }

  /**
   * A limiter not yet enabled costs the success path no allocation and no clock read of the policy's, and
   * {@code reserve} reads none of the limiter's. The limiter's clock here stands still, so no send rate is
   * ever measured and every response reads it (a busy client's read only about 8 per time bucket: see
   * {@code AdaptiveRateLimiterTest}).
   */
  @Test
  void aLimiterNotYetEnabledKeepsTheSuccessPathFree() throws Exception {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(threads instanceof com.sun.management.ThreadMXBean,
        "allocation counting needs com.sun.management.ThreadMXBean");
    com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) threads;
    org.junit.jupiter.api.Assumptions.assumeTrue(counter.isThreadAllocatedMemorySupported()
        && counter.isThreadAllocatedMemoryEnabled());
    AtomicInteger policyReads = new AtomicInteger();
    AtomicInteger limiterReads = new AtomicInteger();
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().clock(() -> {
      limiterReads.incrementAndGet();
      return 0;
    }).build();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().clock(() -> {
      policyReads.incrementAndGet();
      return 0;
    }).rateLimiter(limiter).build());
    Callable<String> attempt = () -> "ok";
    long id = Thread.currentThread().getId();
    int calls = 200_000;
    for (int i = 0; i < calls; i++) { // warm up: class loading and first-call linking allocate
      executor.call(attempt);
    }
    limiterReads.set(0);
    long before = counter.getThreadAllocatedBytes(id);
    for (int i = 0; i < calls; i++) {
      executor.call(attempt);
    }
    long allocated = counter.getThreadAllocatedBytes(id) - before;
    // One allocation per call would be at least 16 bytes x 200 000; allow only measurement noise.
    assertThat(allocated).as("bytes allocated by %d successful calls", calls).isLessThan(64 * 1024);
    assertThat(policyReads).hasValue(0);
    assertThat(limiterReads).as("one read per response (no rate measured), none per reservation").hasValue(calls);
    assertThat(limiter.enabled()).isFalse();
  }

  /**
   * An enabled limiter (with tokens to spare) costs the success path one clock read (the reservation's
   * refill) and no allocation: a success reads the clock only about 8 times per time bucket, as before the
   * first throttle.
   */
  @Test
  void anEnabledLimiterAllocatesNothingEither() throws Exception {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(threads instanceof com.sun.management.ThreadMXBean,
        "allocation counting needs com.sun.management.ThreadMXBean");
    com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) threads;
    org.junit.jupiter.api.Assumptions.assumeTrue(counter.isThreadAllocatedMemorySupported()
        && counter.isThreadAllocatedMemoryEnabled());
    AtomicInteger limiterReads = new AtomicInteger();
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().minFillRate(1e12).minCapacity(1e6).clock(() -> {
      limiterReads.incrementAndGet();
      return clock.nanoTime();
    }).build();
    limiter.onResponse(true);
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().clock(clock).sleeper(sleeper)
        .rateLimiter(limiter).build());
    Callable<String> attempt = () -> {
      clock.advanceNanos(5_000); // 5 us a call: 2 x 10^5 a second, far below the minimum fill rate
      return "ok";
    };
    long id = Thread.currentThread().getId();
    int calls = 200_000;
    for (int i = 0; i < calls; i++) { // warm up (1 s of the fake clock: two time buckets measure the rate)
      executor.call(attempt);
    }
    limiterReads.set(0);
    long before = counter.getThreadAllocatedBytes(id);
    for (int i = 0; i < calls; i++) {
      executor.call(attempt);
    }
    long allocated = counter.getThreadAllocatedBytes(id) - before;
    assertThat(allocated).as("bytes allocated by %d successful calls", calls).isLessThan(64 * 1024);
    // 10^5 responses a bucket: every 8192nd reads the clock (the largest power of two at most 10^5 / 8),
    // about 25 readings here, next to the reservations' 200 000.
    assertThat(limiterReads.get()).as("one read per reservation, a few per time bucket for the responses")
        .isBetween(calls, calls + 100);
    assertThat(limiter.waits() + limiter.refusals()).isZero();
    assertThat(sleeper.sleeps()).isEmpty();
  }
}
