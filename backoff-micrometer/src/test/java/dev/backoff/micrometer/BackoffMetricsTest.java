package dev.backoff.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.AdaptiveHedgeDelay;
import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.Hedging;
import dev.backoff.RetryBudget;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingSleeper;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class BackoffMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final BackoffMetrics metrics = BackoffMetrics.of(registry, Tags.of("service", "test"));
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);

  private RetryExecutor<String> executor(String name, RetryBudget budget, int maxAttempts) {
    return RetryExecutor.of(metrics.instrument(RetryPolicy.<String>builder()
        .name(name).maxAttempts(maxAttempts).backoff(Backoff.fixed(Duration.ofMillis(100)))
        .abortOn(IllegalStateException.class).budget(budget).clock(clock).sleeper(sleeper).build()));
  }

  /** Fails {@code failures} times with an IOException, then returns "ok". */
  private static RetryExecutor.CheckedRunnable failing(int failures) {
    AtomicInteger attempts = new AtomicInteger();
    return () -> {
      if (attempts.incrementAndGet() <= failures) {
        throw new IOException("attempt " + attempts.get());
      }
    };
  }

  private double calls(String policy, String outcome) {
    return registry.get("backoff.calls").tags("policy", policy, "outcome", outcome, "service", "test").counter().count();
  }

  @Test
  void countsCallsByOutcomeAttemptsDelaysAndAmplification() throws Exception {
    RetryExecutor<String> executor = executor("orders", null, 3);
    executor.run(() -> {}); // first try
    executor.run(failing(1)); // 2 attempts
    executor.run(failing(2)); // 3 attempts
    assertThatThrownBy(() -> executor.run(failing(5))).isInstanceOf(IOException.class); // exhausted, 3
    assertThatThrownBy(() -> executor.run(() -> {
      throw new IllegalStateException("fatal");
    })).isInstanceOf(IllegalStateException.class); // aborted, 1

    assertThat(calls("orders", "first_try_success")).isEqualTo(1);
    assertThat(calls("orders", "success_after_retries")).isEqualTo(2);
    assertThat(calls("orders", "exhausted")).isEqualTo(1);
    assertThat(calls("orders", "aborted")).isEqualTo(1);
    assertThat(calls("orders", "budget_refused")).isZero();

    var attempts = registry.get("backoff.attempts").tags("policy", "orders").summary();
    assertThat(attempts.count()).isEqualTo(5);
    assertThat(attempts.totalAmount()).isEqualTo(1 + 2 + 3 + 3 + 1);
    assertThat(attempts.max()).isEqualTo(3);

    var delays = registry.get("backoff.retry.delay").tags("policy", "orders").timer();
    assertThat(delays.count()).isEqualTo(1 + 2 + 2);
    assertThat(delays.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(500);

    assertThat(registry.get("backoff.retry.amplification").tags("policy", "orders").gauge().value())
        .isEqualTo(10 / 5.0);
  }

  @Test
  void budgetRefusalsAndTheBudgetLevel() throws Exception {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(12).build();
    RetryExecutor<String> executor = executor("payments", budget, 10);
    var level = registry.get("backoff.budget.level").tags("policy", "payments").gauge();
    assertThat(level.value()).isEqualTo(12);

    assertThatThrownBy(() -> executor.run(failing(10))).isInstanceOf(IOException.class);

    assertThat(calls("payments", "budget_refused")).isEqualTo(1);
    assertThat(calls("payments", "exhausted")).isZero();
    assertThat(level.value()).isEqualTo(2); // two retries of 5 tokens
    executor.run(() -> {});
    assertThat(level.value()).isEqualTo(3); // a first-try success earns a token
    assertThat(registry.get("backoff.retry.amplification").tags("policy", "payments").gauge().value())
        .isEqualTo((3 + 1) / 2.0);
  }

  @Test
  void policiesAreTaggedSeparately() throws Exception {
    executor("a", null, 3).run(failing(1));
    executor("b", null, 3).run(() -> {});
    assertThat(calls("a", "success_after_retries")).isEqualTo(1);
    assertThat(calls("b", "first_try_success")).isEqualTo(1);
    assertThat(registry.find("backoff.calls").tags("policy", "b", "outcome", "success_after_retries").counter()
        .count()).isZero();
  }

  @Test
  void hedgesSentAndWonAreCountedPerPolicy() throws Exception {
    FakeScheduler scheduler = new FakeScheduler(clock);
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(metrics.instrument(RetryPolicy.<String>builder()
        .name("hedged").maxAttempts(3).hedging(Hedging.after(Duration.ofMillis(50))).clock(clock).build()),
        scheduler);
    List<CompletableFuture<String>> attempts = new ArrayList<>();
    Supplier<CompletionStage<String>> pending = () -> {
      CompletableFuture<String> attempt = new CompletableFuture<>();
      attempts.add(attempt);
      return attempt;
    };
    // A call won by its second hedge, after two hedges were sent.
    CompletableFuture<String> wonByHedge = executor.call(pending);
    scheduler.advance(Duration.ofMillis(100));
    attempts.get(2).complete("third");
    assertThat(wonByHedge.join()).isEqualTo("third");
    // A call won by its first attempt, after one hedge was sent.
    attempts.clear();
    CompletableFuture<String> wonByOriginal = executor.call(pending);
    scheduler.advance(Duration.ofMillis(50));
    attempts.get(0).complete("first");
    assertThat(wonByOriginal.join()).isEqualTo("first");

    assertThat(registry.get("backoff.hedges.sent").tags("policy", "hedged", "service", "test").counter().count())
        .isEqualTo(3);
    assertThat(registry.get("backoff.hedges.won").tags("policy", "hedged", "service", "test").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("backoff.retry.amplification").tags("policy", "hedged").gauge().value())
        .isEqualTo((3 + 2) / 2.0);
    // A policy that never hedges shows no hedging meters.
    executor("plain", null, 3).run(failing(1));
    assertThat(calls("plain", "success_after_retries")).isEqualTo(1);
    assertThat(registry.find("backoff.hedges.sent").tags("policy", "plain").counter()).isNull();
  }

  @Test
  void asyncCallsAreCountedTooAndACancellationIsAnAbort() {
    FakeScheduler scheduler = new FakeScheduler(clock);
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(metrics.instrument(RetryPolicy.<String>builder()
        .name("async").backoff(Backoff.fixed(Duration.ofMillis(100))).clock(clock).build()), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> retried = executor.call(() -> attempts.incrementAndGet() == 1
        ? CompletableFuture.failedFuture(new IOException("once")) : CompletableFuture.completedFuture("ok"));
    scheduler.runNext();
    assertThat(retried.join()).isEqualTo("ok");
    CompletableFuture<String> cancelled = executor.call(() -> CompletableFuture.failedFuture(new IOException("x")));
    cancelled.cancel(true);
    executor.call(() -> CompletableFuture.completedFuture("first"));

    assertThat(calls("async", "success_after_retries")).isEqualTo(1);
    assertThat(calls("async", "aborted")).isEqualTo(1);
    assertThat(calls("async", "first_try_success")).isEqualTo(1);
    assertThat(registry.get("backoff.retry.delay").tags("policy", "async").timer().count()).isEqualTo(2);
    assertThat(registry.get("backoff.retry.amplification").tags("policy", "async").gauge().value())
        .isEqualTo((2 + 1 + 1) / 3.0);
  }

  @Test
  void argumentsAreChecked() {
    assertThatThrownBy(() -> BackoffMetrics.of(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("registry must not be null");
    assertThatThrownBy(() -> metrics.instrument(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("policy must not be null");
    assertThatThrownBy(() -> metrics.bindBudget("x", null)).isInstanceOf(NullPointerException.class)
        .hasMessage("budget must not be null");
  }

  @Test
  void aCircuitBreakersStateRateRefusalsAndTransitions() {
    dev.backoff.CircuitBreaker breaker = dev.backoff.CircuitBreaker.builder().name("inventory").clock(clock)
        .countWindow(4).minimumCalls(2).trialCalls(1).waitInOpen(Duration.ofSeconds(5))
        .listener(metrics.breakerListener()).build();
    metrics.bindCircuitBreaker(breaker);
    breaker.tryAcquire().onSuccess();
    assertThat(registry.get("backoff.breaker.failure.rate").tag("breaker", "inventory").gauge().value()).isNaN();
    breaker.tryAcquire().onSuccess();
    breaker.tryAcquire().onFailure(dev.backoff.FailureClass.TRANSIENT);
    assertThat(registry.get("backoff.breaker.failure.rate").tag("breaker", "inventory").gauge().value())
        .isEqualTo(100.0 / 3);
    breaker.tryAcquire().onFailure(dev.backoff.FailureClass.TRANSIENT); // 2 of 4: open
    assertThat(breaker.tryAcquire()).isNull();
    assertThat(registry.get("backoff.breaker.state").tags("breaker", "inventory", "state", "open").gauge().value())
        .isEqualTo(1);
    assertThat(registry.get("backoff.breaker.state").tags("breaker", "inventory", "state", "closed").gauge()
        .value()).isZero();
    assertThat(registry.get("backoff.breaker.refused").tag("service", "test").functionCounter().count())
        .isEqualTo(1);
    clock.advance(Duration.ofSeconds(5));
    breaker.tryAcquire().onSuccess();
    assertThat(registry.get("backoff.breaker.transitions").tags("from", "closed", "to", "open").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("backoff.breaker.transitions").tags("from", "open", "to", "half_open").counter()
        .count()).isEqualTo(1);
    assertThat(registry.get("backoff.breaker.transitions").tags("from", "half_open", "to", "closed").counter()
        .count()).isEqualTo(1);
    assertThat(registry.get("backoff.breaker.state").tags("state", "closed").gauge().value()).isEqualTo(1);
  }

  @Test
  void anAdaptiveRateLimitersRatesWaitsAndRefusals() {
    dev.backoff.AdaptiveRateLimiter limiter = dev.backoff.AdaptiveRateLimiter.builder().name("orders").clock(clock)
        .maxWait(Duration.ofSeconds(3)).listener(metrics.rateLimiterListener()).build();
    metrics.bindRateLimiter(limiter);
    assertThat(registry.get("backoff.limiter.enabled").tag("limiter", "orders").gauge().value()).isZero();
    assertThat(registry.get("backoff.limiter.fill.rate").tag("limiter", "orders").gauge().value()).isZero();
    for (int i = 0; i < 4; i++) {
      limiter.onResponse(false);
    }
    clock.advance(Duration.ofMillis(500));
    // The throttle closes the first 0.5 s bucket: 5 responses, 10/s, measured 0.8 * 10 = 8; rate 0.7 * 8.
    limiter.onResponse(true);
    assertThat(registry.get("backoff.limiter.enabled").tag("limiter", "orders").gauge().value()).isEqualTo(1);
    assertThat(registry.get("backoff.limiter.measured.rate").tag("limiter", "orders").gauge().value())
        .isCloseTo(8.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(registry.get("backoff.limiter.fill.rate").tag("limiter", "orders").gauge().value())
        .isCloseTo(5.6, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(registry.get("backoff.limiter.capacity").tag("limiter", "orders").gauge().value())
        .isCloseTo(5.6, org.assertj.core.data.Offset.offset(1e-9));
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.reserve()).isZero();
    }
    // 0.6 tokens left: the next waits 0.4 / 5.6 s; then 1.4 / 5.6 = 0.25 s, and so on up to 3 s.
    long waited = limiter.reserve();
    assertThat(waited).isEqualTo(71_428_572L);
    assertThat(registry.get("backoff.limiter.tokens").tag("limiter", "orders").gauge().value())
        .isCloseTo(-0.4, org.assertj.core.data.Offset.offset(1e-9));
    for (int i = 0; i < 20; i++) {
      limiter.reserve(); // waits of k / 5.6 s up to 3 s (16 of them), then refusals
    }
    assertThat(registry.get("backoff.limiter.waits").tag("service", "test").functionCounter().count()).isEqualTo(17);
    assertThat(registry.get("backoff.limiter.refused").tag("limiter", "orders").functionCounter().count())
        .isEqualTo(4);
    assertThat(registry.get("backoff.limiter.throttles").tag("limiter", "orders").functionCounter().count())
        .isEqualTo(1);
    io.micrometer.core.instrument.Timer waits = registry.get("backoff.limiter.wait").tag("limiter", "orders").timer();
    assertThat(waits.count()).isEqualTo(17);
    assertThat(waits.max(java.util.concurrent.TimeUnit.NANOSECONDS)).isLessThanOrEqualTo(3e9);
  }

  @Test
  void aConcurrencyLimitersLimitInFlightAndRefusalsByAttemptKind() throws Exception {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(2).name("inventory").build();
    metrics.bindConcurrencyLimiter(limiter);
    assertThat(gauge("backoff.concurrency.limit", "inventory")).isEqualTo(2);
    ConcurrencyLimiter.Permit held = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
    assertThat(gauge("backoff.concurrency.in.flight", "inventory")).isEqualTo(1);
    // With one slot of two taken, a retry finds the retry share's max(1, floor(2 × 0.8)) = 1 slot full: the call
    // that failed once stops, CONCURRENCY_LIMITED, and its retry is counted; its first attempt was admitted.
    RetryExecutor<String> executor = RetryExecutor.of(metrics.instrument(RetryPolicy.<String>builder()
        .name("reads").maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(100))).concurrencyLimiter(limiter)
        .clock(clock).sleeper(sleeper).build()));
    assertThatThrownBy(() -> executor.run(failing(1))).isInstanceOf(IOException.class);
    assertThat(calls("reads", "exhausted")).isEqualTo(1);
    assertThat(refused("inventory", "retry_or_hedge")).isEqualTo(1);
    assertThat(refused("inventory", "first")).isZero();
    ConcurrencyLimiter.Permit second = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
    assertThat(limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST)).isNull();
    assertThat(refused("inventory", "first")).isEqualTo(1);
    assertThat(gauge("backoff.concurrency.in.flight", "inventory")).isEqualTo(2);
    held.release();
    second.release();
    assertThat(gauge("backoff.concurrency.in.flight", "inventory")).isZero();
    assertThatThrownBy(() -> metrics.bindConcurrencyLimiter(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("limiter must not be null");
  }

  @Test
  void anAdaptiveConcurrencyLimitsGaugeFollowsTheLimit() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.aimd().name("search").initialLimit(10).backoffRatio(0.5)
        .clock(clock).build();
    metrics.bindConcurrencyLimiter(limiter);
    assertThat(gauge("backoff.concurrency.limit", "search")).isEqualTo(10);
    limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST).onDropped();
    assertThat(gauge("backoff.concurrency.limit", "search")).isEqualTo(5);
  }

  @Test
  void anAdaptiveHedgeDelaysDelayAndTheHedgesItsCapSentAndRefused() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().window(10).warmUp(1)
        .bounds(Duration.ZERO, Duration.ofSeconds(1)).initialDelay(Duration.ofMillis(500)).maxExtraLoad(0.5).build();
    metrics.bindHedgeDelay("reads", delay);
    assertThat(registry.get("backoff.hedge.delay").tags("policy", "reads").gauge().value()).isEqualTo(0.5);
    delay.record(15); // under 32 ns a latency is its own bucket
    assertThat(registry.get("backoff.hedge.delay").tags("policy", "reads").gauge().value()).isEqualTo(15e-9);
    // Two calls' first attempts earn one hedge: the first that falls due goes, the second is refused.
    RetryPolicy<String> policy = RetryPolicy.<String>builder().name("reads").hedging(Hedging.adaptive(delay).maxHedges(1))
        .build();
    FakeScheduler scheduler = new FakeScheduler(clock);
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy, scheduler)
        .withClock(clock);
    List<CompletableFuture<String>> pending = new ArrayList<>();
    for (int call = 0; call < 2; call++) {
      CompletableFuture<String> answer = new CompletableFuture<>();
      pending.add(answer);
      executor.call(() -> answer);
    }
    scheduler.advance(Duration.ofMillis(1));
    assertThat(capped("reads", "sent")).isEqualTo(1);
    assertThat(capped("reads", "refused")).isEqualTo(1);
    pending.forEach(answer -> answer.complete("ok"));
    assertThatThrownBy(() -> metrics.bindHedgeDelay("reads", null)).isInstanceOf(NullPointerException.class)
        .hasMessage("delay must not be null");
  }

  private double capped(String policy, String outcome) {
    return registry.get("backoff.hedges.capped").tags("policy", policy, "outcome", outcome, "service", "test")
        .functionCounter().count();
  }

  private double gauge(String name, String limiter) {
    return registry.get(name).tags("limiter", limiter, "service", "test").gauge().value();
  }

  private double refused(String limiter, String attempt) {
    return registry.get("backoff.concurrency.refused").tags("limiter", limiter, "attempt", attempt, "service", "test")
        .functionCounter().count();
  }
}
