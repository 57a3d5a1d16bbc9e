package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** Failure classes (own backoff, own budget cost) and server pushback, end to end through the executors. */
class FailureClassAndPushbackTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final RecordingListener<String> listener = new RecordingListener<>();

  /** A failure that says how long the server asked us to wait (a 429 with Retry-After, say). */
  static final class ServerBusy extends IOException {
    final long hintNanos;

    ServerBusy(long hintNanos) {
      super("busy, hint " + hintNanos);
      this.hintNanos = hintNanos;
    }
  }

  static final class Throttled extends IOException {
    Throttled() {
      super("throttled");
    }
  }

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder()
        .maxAttempts(10)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .pushback((result, failure) -> failure instanceof ServerBusy busy ? busy.hintNanos : Pushback.NONE)
        .clock(clock)
        .sleeper(sleeper)
        .listener(listener);
  }

  /** Fails with each given failure in turn, then returns "ok". */
  private static Callable<String> failingWith(Exception... failures) {
    Iterator<Exception> next = List.of(failures).iterator();
    return () -> {
      if (next.hasNext()) {
        throw next.next();
      }
      return "ok";
    };
  }

  private static long ms(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }

  @Example
  void aThrottledFailureGetsItsOwnBackoffAndBudgetCost() throws Exception {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(100).retryCost(5)
        .retryCost(FailureClass.THROTTLED, 20).build();
    RetryExecutor<String> executor = RetryExecutor.of(policy()
        .classifyFailures(failure -> failure instanceof Throttled ? FailureClass.THROTTLED : FailureClass.TRANSIENT)
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(2)))
        .budget(budget).build());

    assertThat(executor.call(failingWith(new Throttled(), new IOException("plain"), new Throttled()))).isEqualTo("ok");

    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofMillis(100), Duration.ofSeconds(2));
    // 100 - 20 - 5 - 20 = 55, and the success refunds the last retry's cost (a throttled one: 20).
    assertThat(budget.level()).isEqualTo(75.0);
  }

  @Example
  void retriedResultsAreClassifiedToo() throws Exception {
    Iterator<String> responses = List.of("429", "503", "200").iterator();
    RetryExecutor<String> executor = RetryExecutor.of(policy()
        .retryOnResult(status -> !status.equals("200"))
        .classifyResults(status -> status.equals("429") ? FailureClass.THROTTLED : FailureClass.TRANSIENT)
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(1)))
        .build());
    assertThat(executor.call(responses::next)).isEqualTo("200");
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(100));
  }

  @Example
  void theDelayIsTheLongerOfTheHintAndTheBackoff() throws Exception {
    RetryExecutor<String> executor = RetryExecutor.of(policy().build());
    executor.call(failingWith(new ServerBusy(ms(300)), new ServerBusy(ms(50)), new IOException("no hint"),
        new ServerBusy(0)));
    assertThat(sleeper.sleeps()).containsExactly(
        Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(100));
  }

  @Example
  void aHintFromAResultIsHonoured() throws Exception {
    Iterator<String> responses = List.of("503 retry-after=2", "200").iterator();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .retryOnResult(status -> !status.equals("200"))
        .pushback((status, failure) -> status != null && status.contains("retry-after=")
            ? Pushback.after(Duration.ofSeconds(Long.parseLong(status.substring(status.indexOf('=') + 1))))
            : Pushback.NONE)
        .clock(clock).sleeper(sleeper).build());
    assertThat(executor.call(responses::next)).isEqualTo("200");
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2));
  }

  @Example
  void aHintBeyondTheMaximumStopsTheCallWithThatReason() {
    RetryExecutor<String> executor = RetryExecutor.of(policy().maxPushback(Duration.ofSeconds(30)).build());
    ServerBusy tooLong = new ServerBusy(Duration.ofSeconds(31).toNanos());
    assertThatThrownBy(() -> executor.call(failingWith(new IOException("first"), tooLong))).isSameAs(tooLong);
    assertThat(RetryHistory.of(tooLong).stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100)); // never slept the 31 s
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "exhausted PUSHBACK_TOO_LONG");
  }

  @Example
  void aHintBeyondTheDeadlineStopsTheCallWithThatReason() {
    RetryExecutor<String> executor = RetryExecutor.of(policy().maxElapsed(Duration.ofSeconds(10)).build());
    ServerBusy pastDeadline = new ServerBusy(Duration.ofSeconds(11).toNanos());
    assertThatThrownBy(() -> executor.call(failingWith(pastDeadline))).isSameAs(pastDeadline);
    assertThat(RetryHistory.of(pastDeadline).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Example
  void anExplicitDoNotRetryStopsAtOnce() {
    RetryExecutor<String> executor = RetryExecutor.of(policy().build());
    ServerBusy stop = new ServerBusy(Pushback.STOP);
    assertThatThrownBy(() -> executor.call(failingWith(stop))).isSameAs(stop);
    assertThat(RetryHistory.of(stop).stopReason()).isEqualTo(StopReason.PUSHBACK);
    assertThat(listener.summary()).containsExactly("aborted PUSHBACK");
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Example
  void garbledHintsNeverGiveANegativeOrUnboundedSleep() throws Exception {
    RetryExecutor<String> executor = RetryExecutor.of(policy().build());
    executor.call(failingWith(new ServerBusy(-5), new ServerBusy(Long.MIN_VALUE + 1), new ServerBusy(-1)));
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(100));

    ServerBusy absurd = new ServerBusy(Long.MAX_VALUE);
    assertThatThrownBy(() -> executor.call(failingWith(absurd))).isSameAs(absurd);
    assertThat(RetryHistory.of(absurd).stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
    assertThat(sleeper.sleeps()).hasSize(3);
  }

  @Example
  void pushbackBoundsAreValidated() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxPushback(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxPushback must not be negative, was PT-1S");
    assertThatThrownBy(() -> Pushback.after(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("pushback delay must not be negative, was PT-0.001S");
  }

  @Example
  void theAsyncExecutorHonoursHintsAndClasses() {
    FakeScheduler scheduler = new FakeScheduler(clock);
    Iterator<Exception> failures = List.<Exception>of(new ServerBusy(ms(700)), new Throttled()).iterator();
    CompletableFuture<String> future = AsyncRetryExecutor.of(policy()
        .classifyFailures(failure -> failure instanceof Throttled ? FailureClass.THROTTLED : FailureClass.TRANSIENT)
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(3))).build(), scheduler)
        .call(() -> failures.hasNext() ? CompletableFuture.failedFuture(failures.next())
            : CompletableFuture.completedFuture("ok"));
    while (scheduler.runNext()) {
      // run the retries
    }
    assertThat(future.join()).isEqualTo("ok");
    assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(700), Duration.ofSeconds(3));
  }

  /**
   * Whatever the hint, the engine either stops or waits a delay that is non-negative, at least the backoff,
   * no longer than the larger of the backoff and the maximum pushback, and ending inside the deadline.
   */
  @Property(tries = 2000)
  void anyHintGivesABoundedDelayOrAStop(@ForAll long hint, @ForAll @LongRange(min = 0, max = 1_000_000_000_000L) long backoffNanos,
      @ForAll @LongRange(min = 0, max = 1_000_000_000_000L) long maxPushbackNanos,
      @ForAll @LongRange(min = 1, max = 2_000_000_000_000L) long deadlineNanos) {
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .backoff(backoffNanos == 0 ? Backoff.none() : Backoff.fixed(Duration.ofNanos(backoffNanos)))
        .maxPushback(Duration.ofNanos(maxPushbackNanos))
        .maxElapsed(Duration.ofNanos(deadlineNanos))
        .pushback((result, failure) -> hint) // an extractor's garbled hint counts as none
        .build();
    Execution<String> execution = policy.newExecution(Long.MAX_VALUE - 10); // the clock wraps meanwhile
    Decision decision = execution.onFailure(new IOException("x"), Long.MAX_VALUE - 5);
    if (decision.isRetry()) {
      long delay = decision.delayNanos();
      assertThat(delay).isGreaterThanOrEqualTo(backoffNanos);
      assertThat(delay).isLessThanOrEqualTo(Math.max(backoffNanos, maxPushbackNanos));
      assertThat(delay + 5).isLessThanOrEqualTo(deadlineNanos);
      if (hint >= 0) {
        assertThat(delay).isEqualTo(Math.max(hint, backoffNanos));
      }
    } else {
      assertThat(decision.stopReason()).isIn(StopReason.PUSHBACK, StopReason.PUSHBACK_TOO_LONG,
          StopReason.DEADLINE_EXCEEDED);
      if (hint == Pushback.STOP) {
        assertThat(decision.stopReason()).isEqualTo(StopReason.PUSHBACK);
      } else if (hint > maxPushbackNanos) {
        assertThat(decision.stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
      } else {
        assertThat(decision.stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
        assertThat(Math.max(hint, backoffNanos) + 5).isGreaterThan(deadlineNanos);
      }
    }
  }
}
