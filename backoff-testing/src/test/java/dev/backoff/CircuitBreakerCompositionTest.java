package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.CircuitBreaker.State;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A breaker composed with a retry policy, through both executors, on a fake clock: every attempt asks it
 * first, a retry it would refuse stops the call with {@link StopReason#CIRCUIT_OPEN} and no sleep, a call it
 * refuses outright fails with a {@link CircuitOpenException} and runs nothing.
 */
class CircuitBreakerCompositionTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RecordingListener<String> listener = new RecordingListener<>();

  /** Opens after 4 failures of the last 4 calls, for 10 s; one trial call closes it. */
  private CircuitBreaker breaker() {
    return CircuitBreaker.builder().name("dependency").clock(clock).countWindow(4).minimumCalls(4)
        .trialCalls(1).waitInOpen(Duration.ofSeconds(10)).build();
  }

  private RetryPolicy<String> policy(CircuitBreaker breaker) {
    return RetryPolicy.<String>builder().maxAttempts(6).backoff(Backoff.fixed(Duration.ofSeconds(1)))
        .clock(clock).sleeper(sleeper).circuitBreaker(breaker).listener(listener).build();
  }

  @Test
  void syncAnOpeningBreakerStopsTheRetriesWithoutTheSleep() {
    CircuitBreaker breaker = breaker();
    RetryExecutor<String> executor = RetryExecutor.of(policy(breaker));
    AtomicInteger attempts = new AtomicInteger();

    Throwable failure = catchThrowable(() -> executor.call(() -> {
      throw new IOException("down " + attempts.incrementAndGet());
    }));

    assertThat(failure).isInstanceOf(IOException.class).hasMessage("down 4");
    assertThat(attempts).hasValue(4);
    assertThat(sleeper.sleeps()).as("three sleeps, none before the refused retry").hasSize(3);
    assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.CIRCUIT_OPEN);
    assertThat(listener.stopReasons()).containsExactly(StopReason.CIRCUIT_OPEN);
    assertThat(listener.kinds()).endsWith(RecordingListener.Kind.EXHAUSTED);

    // The next call is refused before any attempt.
    Throwable refused = catchThrowable(() -> executor.call(() -> "never " + attempts.incrementAndGet()));
    assertThat(refused).isInstanceOf(CircuitOpenException.class)
        .hasMessage("circuit breaker 'dependency' is OPEN and refused the call");
    assertThat(attempts).hasValue(4);
    assertThat(breaker.metrics().refusedCalls()).isEqualTo(1);
  }

  @Test
  void syncARecoveryGetsTheRefusal() throws Exception {
    CircuitBreaker breaker = breaker();
    for (int i = 0; i < 4; i++) {
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    }
    String value = RetryExecutor.of(policy(breaker)).call(() -> "never",
        (result, failure, history) -> "fallback after " + failure.getClass().getSimpleName() + ", "
            + history.attempts() + " attempts, " + history.stopReason());
    assertThat(value).isEqualTo("fallback after CircuitOpenException, 0 attempts, CIRCUIT_OPEN");
  }

  @Test
  void syncTheBreakerOpensDuringTheSleepAndTheRetryIsRefused() {
    CircuitBreaker breaker = CircuitBreaker.builder().clock(clock).countWindow(2).minimumCalls(2).build();
    // Another caller's failures open the breaker while this call sleeps.
    Sleeper opening = nanos -> {
      sleeper.sleep(nanos);
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    };
    RetryPolicy<String> policy = RetryPolicy.<String>builder().maxAttempts(5)
        .backoff(Backoff.fixed(Duration.ofSeconds(1))).clock(clock).sleeper(opening).circuitBreaker(breaker)
        .build();
    AtomicInteger attempts = new AtomicInteger();
    Throwable failure = catchThrowable(() -> RetryExecutor.of(policy).call(() -> {
      throw new IOException("down " + attempts.incrementAndGet());
    }));
    assertThat(attempts).hasValue(1);
    assertThat(sleeper.sleeps()).hasSize(1);
    assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.CIRCUIT_OPEN);
    assertThat(RetryHistory.of(failure).attempts()).isEqualTo(1);
  }

  @Test
  void syncAHalfOpenTrialThroughTheExecutorClosesTheBreaker() throws Exception {
    CircuitBreaker breaker = breaker();
    for (int i = 0; i < 4; i++) {
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    }
    clock.advance(Duration.ofSeconds(10));
    assertThat(RetryExecutor.of(policy(breaker)).call(() -> "up")).isEqualTo("up");
    assertThat(breaker.state()).isEqualTo(State.CLOSED);
  }

  @Test
  void syncAFailedTrialStopsTheCallBeforeItsSleep() {
    CircuitBreaker breaker = breaker();
    for (int i = 0; i < 4; i++) {
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    }
    clock.advance(Duration.ofSeconds(10));
    AtomicInteger attempts = new AtomicInteger();
    Throwable failure = catchThrowable(() -> RetryExecutor.of(policy(breaker)).call(() -> {
      throw new IOException("still down " + attempts.incrementAndGet());
    }));
    assertThat(attempts).hasValue(1);
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(breaker.state()).isEqualTo(State.OPEN);
    assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.CIRCUIT_OPEN);
  }

  @Test
  void syncFailuresTheRulesRefuseAndSuccessesAreReportedAsThePolicySeesThem() throws Exception {
    CircuitBreaker breaker = breaker();
    RetryPolicy<String> policy = policy(breaker).toBuilder().abortOn(IllegalArgumentException.class)
        .retryOnResult("busy"::equals).build();
    RetryExecutor<String> executor = RetryExecutor.of(policy);
    catchThrowable(() -> executor.call(() -> {
      throw new IllegalArgumentException("a bug, not an outage");
    }));
    assertThat(breaker.metrics().calls()).as("an aborted failure counts as neither").isZero();
    AtomicInteger attempts = new AtomicInteger();
    assertThat(executor.call(() -> attempts.incrementAndGet() == 1 ? "busy" : "done")).isEqualTo("done");
    assertThat(breaker.metrics().calls()).isEqualTo(2);
    assertThat(breaker.metrics().failures()).as("the retried result").isEqualTo(1);
  }

  @Test
  void asyncAnOpeningBreakerStopsTheRetriesWithoutScheduling() throws Exception {
    CircuitBreaker breaker = breaker();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(breaker), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(
        () -> CompletableFuture.failedFuture(new IOException("down " + attempts.incrementAndGet())));
    while (scheduler.runNext()) {
      // run each retry as it falls due
    }
    Throwable failure = catchThrowable(future::get);
    assertThat(failure).isInstanceOf(ExecutionException.class).cause().hasMessage("down 4");
    assertThat(scheduler.delays()).as("three retries scheduled, not a fourth")
        .isEqualTo(List.of(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1)));
    assertThat(RetryHistory.of(failure.getCause()).stopReason()).isEqualTo(StopReason.CIRCUIT_OPEN);

    CompletableFuture<String> refused = executor.call(
        () -> CompletableFuture.completedFuture("never " + attempts.incrementAndGet()));
    assertThat(catchThrowable(refused::get)).cause().isInstanceOf(CircuitOpenException.class);
    assertThat(attempts).hasValue(4);
  }

  @Test
  void asyncTheBreakerOpensDuringTheWaitAndTheRetryIsRefused() throws Exception {
    CircuitBreaker breaker = CircuitBreaker.builder().clock(clock).countWindow(2).minimumCalls(2).build();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(breaker), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> future = executor.call(
        () -> CompletableFuture.failedFuture(new IOException("down " + attempts.incrementAndGet())));
    assertThat(scheduler.pending()).isEqualTo(1);
    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT); // another caller's failure opens it
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(attempts).hasValue(1);
    assertThat(scheduler.pending()).isZero();
    Throwable failure = catchThrowable(future::get);
    assertThat(failure).cause().hasMessage("down 1");
    assertThat(RetryHistory.of(failure.getCause()).stopReason()).isEqualTo(StopReason.CIRCUIT_OPEN);
  }

  @Test
  void asyncACancelledAttemptGivesItsTrialBack() {
    CircuitBreaker breaker = breaker();
    for (int i = 0; i < 4; i++) {
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    }
    clock.advance(Duration.ofSeconds(10));
    CompletableFuture<String> pending = new CompletableFuture<>();
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy(breaker), scheduler).call(() -> pending);
    assertThat(breaker.tryAcquire()).as("the only trial is taken").isNull();
    future.cancel(true);
    assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
    assertThat(breaker.tryAcquire()).as("the cancelled call's trial is free again").isNotNull();
  }

  @Test
  void withoutABreakerNothingChanges() throws Exception {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().clock(clock).sleeper(sleeper).build();
    assertThat(policy.circuitBreaker()).isNull();
    assertThat(RetryExecutor.of(policy).call(() -> "ok")).isEqualTo("ok");
  }

  /** A closed breaker with a count window costs the success path no allocation and no clock read. */
  @Test
  void aClosedCountWindowBreakerKeepsTheSuccessPathFree() throws Exception {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(threads instanceof com.sun.management.ThreadMXBean,
        "allocation counting needs com.sun.management.ThreadMXBean");
    com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) threads;
    org.junit.jupiter.api.Assumptions.assumeTrue(counter.isThreadAllocatedMemorySupported()
        && counter.isThreadAllocatedMemoryEnabled());
    AtomicInteger reads = new AtomicInteger();
    NanoClock counting = () -> {
      reads.incrementAndGet();
      return 0;
    };
    CircuitBreaker breaker = CircuitBreaker.builder().clock(counting).countWindow(100).build();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().clock(counting)
        .circuitBreaker(breaker).build());
    java.util.concurrent.Callable<String> attempt = () -> "ok";
    long id = Thread.currentThread().getId();
    int calls = 200_000;
    for (int i = 0; i < calls; i++) { // warm up: class loading and first-call linking allocate
      executor.call(attempt);
    }
    long before = counter.getThreadAllocatedBytes(id);
    for (int i = 0; i < calls; i++) {
      executor.call(attempt);
    }
    long allocated = counter.getThreadAllocatedBytes(id) - before;
    // One allocation per call would be at least 16 bytes x 200 000; allow only measurement noise.
    assertThat(allocated).as("bytes allocated by %d successful calls", calls).isLessThan(64 * 1024);
    assertThat(reads).hasValue(0);
    assertThat(breaker.metrics().calls()).isEqualTo(100);
  }
}
