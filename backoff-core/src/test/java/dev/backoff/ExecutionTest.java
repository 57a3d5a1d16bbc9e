package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The decision engine, driven with explicit times (no clock needed). */
class ExecutionTest {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final Backoff ONE_SECOND = Backoff.fixed(Duration.ofSeconds(1));

  private static RetryPolicy.Builder<String> builder() {
    return RetryPolicy.<String>builder().backoff(ONE_SECOND);
  }

  @Test
  void retriesUntilTheAttemptsRunOut() {
    Execution<String> execution = builder().maxAttempts(3).build().newExecution(0);
    Decision first = execution.onFailure(new IOException("1"), 10 * MS);
    assertThat(first.isRetry()).isTrue();
    assertThat(first.delayNanos()).isEqualTo(SECOND);
    assertThat(first.delay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(execution.onFailure(new IOException("2"), 2 * SECOND).isRetry()).isTrue();
    Decision last = execution.onFailure(new IOException("3"), 4 * SECOND);
    assertThat(last.isStop()).isTrue();
    assertThat(last.isRetry()).isFalse();
    assertThat(last.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(execution.attempts()).isEqualTo(3);
    assertThat(execution.retries()).isEqualTo(2);
    assertThat(execution.elapsedNanos()).isEqualTo(4 * SECOND);
    assertThat(execution.isDone()).isTrue();
    assertThatThrownBy(last::delayNanos).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> execution.onFailure(new IOException("4"), 5 * SECOND))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("already ended");
  }

  @Test
  void feedsTheBackoffItsRetryNumberAndHistory() {
    List<long[]> calls = new ArrayList<>();
    Backoff recording = (retry, previous, total, random) -> {
      calls.add(new long[] {retry, previous, total});
      return retry * SECOND;
    };
    Execution<String> execution = builder().maxAttempts(4).backoff(recording).build().newExecution(0);
    execution.onFailure(new IOException(), 0);
    execution.onFailure(new IOException(), 0);
    execution.onFailure(new IOException(), 0);
    execution.onFailure(new IOException(), 0); // attempts exhausted: the backoff is not asked
    assertThat(calls).containsExactly(new long[] {1, 0, 0}, new long[] {2, SECOND, SECOND},
        new long[] {3, 2 * SECOND, 3 * SECOND});
  }

  @Test
  void jitterIsDrawnFromTheExecutionsRandomSource() {
    RetryPolicy<String> policy = builder().maxAttempts(5)
        .backoff(Backoff.exponential(Duration.ofSeconds(1), 2, Duration.ofSeconds(60), Jitter.full())).build();
    Execution<String> execution = policy.newExecution(0, new Uniforms(0.5, 0.25));
    assertThat(execution.onFailure(new IOException(), 0).delayNanos()).isEqualTo(500 * MS);
    assertThat(execution.onFailure(new IOException(), 0).delayNanos()).isEqualTo(500 * MS);
  }

  @Test
  void neverStartsASleepThatWouldEndPastTheDeadline() {
    Execution<String> execution = builder().unlimitedAttempts().maxElapsed(Duration.ofSeconds(10)).build()
        .newExecution(0);
    assertThat(execution.onFailure(new IOException(), 1 * SECOND).isRetry()).isTrue(); // ends at 2 s
    assertThat(execution.onFailure(new IOException(), 9 * SECOND).isRetry()).isTrue(); // ends at exactly 10 s
    Decision decision = execution.onFailure(new IOException(), 9 * SECOND + 1);
    assertThat(decision.stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    assertThat(StopReason.DEADLINE_EXCEEDED.isExhaustion()).isTrue();
  }

  @Test
  void elapsedTimeIsWrapSafeNearLongMaxValue() {
    long start = Long.MAX_VALUE - SECOND / 2;
    Execution<String> execution = builder().unlimitedAttempts().maxElapsed(Duration.ofSeconds(10)).build()
        .newExecution(start);
    long now = start + 8 * SECOND; // wraps past Long.MAX_VALUE
    assertThat(now).isNegative();
    assertThat(execution.onFailure(new IOException(), now).isRetry()).isTrue();
    assertThat(execution.elapsedNanos()).isEqualTo(8 * SECOND);
    assertThat(execution.onFailure(new IOException(), now + SECOND + 1).stopReason())
        .isEqualTo(StopReason.DEADLINE_EXCEEDED);
  }

  @Test
  void hugeDelaysSaturateAgainstTheDeadlineInsteadOfOverflowing() {
    Execution<String> execution = builder().backoff(Backoff.fixed(Duration.ofNanos(Long.MAX_VALUE)))
        .maxElapsed(Duration.ofDays(365)).build().newExecution(0);
    assertThat(execution.onFailure(new IOException(), SECOND).stopReason())
        .isEqualTo(StopReason.DEADLINE_EXCEEDED);
  }

  @Test
  void byDefaultRetriesExceptionsButNotErrorsNorInterruptions() {
    RetryPolicy<String> policy = builder().build();
    assertThat(policy.newExecution(0).onFailure(new IOException(), 0).isRetry()).isTrue();
    assertThat(policy.newExecution(0).onFailure(new IllegalStateException(), 0).isRetry()).isTrue();
    assertThat(policy.newExecution(0).onFailure(new AssertionError(), 0).stopReason())
        .isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(policy.newExecution(0).onFailure(new InterruptedException(), 0).stopReason())
        .isEqualTo(StopReason.INTERRUPTED);
    assertThat(policy.newExecution(0).onFailure(new RuntimeException(new InterruptedIOException()), 0)
        .stopReason()).isEqualTo(StopReason.INTERRUPTED);
    // a socket timeout is an InterruptedIOException but not an interruption
    assertThat(policy.newExecution(0).onFailure(new SocketTimeoutException(), 0).isRetry()).isTrue();
  }

  @Test
  void retryOnMatchesTypesAndCauses() {
    RetryPolicy<String> policy = builder().retryOn(IOException.class).build();
    assertThat(policy.newExecution(0).onFailure(new IOException(), 0).isRetry()).isTrue();
    assertThat(policy.newExecution(0).onFailure(new UncheckedIOException(new IOException()), 0).isRetry()).isTrue();
    assertThat(policy.newExecution(0).onFailure(new IllegalStateException(), 0).stopReason())
        .isEqualTo(StopReason.NOT_RETRYABLE);
    RetryPolicy<String> byPredicate = builder().retryIf(t -> "retry me".equals(t.getMessage())).build();
    assertThat(byPredicate.newExecution(0).onFailure(new RuntimeException(new Exception("retry me")), 0)
        .isRetry()).isTrue();
    assertThat(byPredicate.newExecution(0).onFailure(new RuntimeException("other"), 0).isStop()).isTrue();
  }

  @Test
  void abortRulesWinOverRetryRulesIncludingCauses() {
    RetryPolicy<String> policy = builder().retryOn(Exception.class).abortOn(IllegalArgumentException.class)
        .abortIf(t -> t instanceof TimeoutException).build();
    assertThat(policy.newExecution(0).onFailure(new IllegalArgumentException(), 0).stopReason())
        .isEqualTo(StopReason.ABORTED);
    assertThat(policy.newExecution(0).onFailure(new RuntimeException(new IllegalArgumentException()), 0)
        .stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(policy.newExecution(0).onFailure(new Exception(new TimeoutException()), 0).stopReason())
        .isEqualTo(StopReason.ABORTED);
    assertThat(policy.newExecution(0).onFailure(new IOException(), 0).isRetry()).isTrue();
    assertThat(StopReason.ABORTED.isExhaustion()).isFalse();
  }

  @Test
  void causeCyclesEndTheSearch() throws Exception {
    Exception a = new Exception("a");
    Exception b = new Exception("b", a);
    a.initCause(b); // a → b → a
    RetryPolicy<String> policy = builder().retryOn(IOException.class).build();
    assertThat(policy.newExecution(0).onFailure(a, 0).stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
    RetryPolicy<String> defaults = builder().build();
    // The default classifier walks the causes too; it once looped forever here.
    Decision decision = assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> defaults.newExecution(0).onFailure(a, 0));
    assertThat(decision.isRetry()).isTrue();
  }

  @Test
  void timeoutsAreClassifiedForPerClassBackoff() {
    RetryPolicy<String> policy = builder().backoff(FailureClass.TIMEOUT, Backoff.fixed(Duration.ofSeconds(5)))
        .build();
    assertThat(policy.newExecution(0).onFailure(new RuntimeException(new TimeoutException()), 0).delayNanos())
        .isEqualTo(5 * SECOND);
    assertThat(policy.newExecution(0).onFailure(new IOException(), 0).delayNanos()).isEqualTo(SECOND);
  }

  @Test
  void customClassesChooseTheirBackoffForFailuresAndResults() {
    FailureClass busy = FailureClass.of("busy");
    assertThat(FailureClass.of("busy")).isSameAs(busy);
    RetryPolicy<String> policy = builder()
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(7)))
        .backoff(busy, Backoff.fixed(Duration.ofSeconds(3)))
        .classifyFailures(t -> t instanceof IllegalStateException ? busy : null)
        .retryOnResult(r -> r.startsWith("5") || r.equals("429"))
        .classifyResults(r -> r.equals("429") ? FailureClass.THROTTLED : FailureClass.TRANSIENT)
        .build();
    assertThat(policy.newExecution(0).onFailure(new IllegalStateException(), 0).delayNanos()).isEqualTo(3 * SECOND);
    assertThat(policy.newExecution(0).onFailure(new IOException(), 0).delayNanos()).isEqualTo(SECOND);
    assertThat(policy.newExecution(0).onResult("429", 0).delayNanos()).isEqualTo(7 * SECOND);
    assertThat(policy.newExecution(0).onResult("503", 0).delayNanos()).isEqualTo(SECOND);
    assertThat(policy.backoff(busy).maxDelayNanos()).isEqualTo(3 * SECOND);
  }

  @Test
  void retryOnResultKeepsTheLastResult() {
    Execution<String> execution = builder().maxAttempts(2).retryOnResult("busy"::equals).build().newExecution(0);
    assertThat(execution.onResult("busy", 0).isRetry()).isTrue();
    Decision decision = execution.onResult("busy", SECOND);
    assertThat(decision.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(execution.lastResult()).isEqualTo("busy");
    assertThat(execution.lastFailure()).isNull();
    assertThat(execution.finalFailure()).isNull();
  }

  @Test
  void anAcceptedResultSucceeds() {
    Execution<String> execution = builder().retryOnResult("busy"::equals).build().newExecution(0);
    execution.onFailure(new IOException(), 0);
    Decision decision = execution.onResult("done", SECOND);
    assertThat(decision.isSuccess()).isTrue();
    assertThat(decision.isStop()).isFalse();
    assertThat(decision.isRetry()).isFalse();
    assertThat(decision.stopReason()).isNull();
    assertThat(execution.lastResult()).isEqualTo("done");
    assertThat(execution.lastFailure()).isNull();
    assertThat(execution.attempts()).isEqualTo(2);
    assertThat(decision).hasToString("success");
  }

  @Test
  void pushbackWaitsTheLongerOfHintAndBackoff() {
    RetryPolicy<String> policy = builder().unlimitedAttempts().build();
    Execution<String> execution = policy.newExecution(0);
    assertThat(Engine.record(execution, null, new IOException(), Verdict.retryable(Pushback.after(Duration.ofSeconds(5))), 0).delayNanos())
        .isEqualTo(5 * SECOND);
    assertThat(Engine.record(execution, null, new IOException(), Verdict.retryable(Pushback.after(Duration.ofMillis(10))), 0).delayNanos())
        .isEqualTo(SECOND);
    assertThat(Engine.record(execution, null, new IOException(), Verdict.retryable(Pushback.NONE), 0).delayNanos()).isEqualTo(SECOND);
    assertThatThrownBy(() -> Verdict.retryable(-12345)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-12345"); // a driver's garbled hint is an error, never a negative wait
    assertThat(Engine.record(execution, null, new IOException(), Verdict.retryable(Pushback.after(Duration.ofSeconds(60))), 0).delayNanos())
        .isEqualTo(60 * SECOND); // exactly the default maximum
    assertThat(Engine.record(execution, null, new IOException(), Verdict.retryable(Pushback.after(Duration.ofSeconds(61))), 0).stopReason())
        .isEqualTo(StopReason.PUSHBACK_TOO_LONG);
  }

  @Test
  void pushbackStopAndDeadline() {
    RetryPolicy<String> policy = builder().unlimitedAttempts().maxElapsed(Duration.ofSeconds(10))
        .maxPushback(Duration.ofMinutes(5)).build();
    assertThat(Engine.record(policy.newExecution(0), null, new IOException(), Verdict.retryable(Pushback.STOP), 0).stopReason())
        .isEqualTo(StopReason.PUSHBACK);
    assertThat(Engine.record(policy.newExecution(0), null, new IOException(), Verdict.retryable(Pushback.after(Duration.ofSeconds(11))), 0)
        .stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    assertThat(Engine.record(policy.newExecution(0), null, new IOException(), Verdict.retryable(Pushback.after(Duration.ofSeconds(9))), 0)
        .delayNanos()).isEqualTo(9 * SECOND);
    assertThat(Pushback.after(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theExtractorReadsHintsFromFailuresAndResults() {
    RetryPolicy<String> policy = builder().unlimitedAttempts().retryOnResult(r -> r.startsWith("retry"))
        .pushback((result, failure) -> {
          if (failure != null) {
            return failure.getMessage() == null ? Pushback.NONE : Long.parseLong(failure.getMessage());
          }
          return result.equals("retry-stop") ? Pushback.STOP : Pushback.after(Duration.ofSeconds(4));
        }).build();
    Execution<String> execution = policy.newExecution(0);
    assertThat(execution.onFailure(new IOException(String.valueOf(3 * SECOND)), 0).delayNanos())
        .isEqualTo(3 * SECOND);
    assertThat(execution.onFailure(new IOException(), 0).delayNanos()).isEqualTo(SECOND);
    assertThat(execution.onResult("retry", 0).delayNanos()).isEqualTo(4 * SECOND);
    assertThat(Engine.record(execution, "retry", null, Verdict.retryable(Pushback.NONE), 0).delayNanos()).isEqualTo(SECOND); // driver's hint
    assertThat(execution.onResult("retry-stop", 0).stopReason()).isEqualTo(StopReason.PUSHBACK);
  }

  @Test
  void theFinalFailureCarriesBoundedEarlierFailuresAndTheHistory() {
    Execution<String> execution = builder().maxAttempts(5).maxSuppressed(2).name("orders").build()
        .newExecution(0);
    IOException[] failures = new IOException[5];
    for (int i = 0; i < 5; i++) {
      failures[i] = new IOException("attempt " + (i + 1));
      execution.onFailure(failures[i], i * SECOND);
    }
    Throwable last = execution.finalFailure();
    assertThat(last).isSameAs(failures[4]);
    assertThat(Arrays.asList(last.getSuppressed()).subList(0, 2)).containsExactly(failures[2], failures[3]);
    RetryHistory history = RetryHistory.of(last);
    assertThat(history).isNotNull();
    assertThat(history.attempts()).isEqualTo(5);
    assertThat(history.elapsed()).isEqualTo(Duration.ofSeconds(4));
    assertThat(history.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(history.policyName()).isEqualTo("orders");
    assertThat(history.getMessage()).isEqualTo("orders: gave up after 5 attempts in 4s: attempts exhausted");
    assertThat(history.getStackTrace()).isEmpty();
    // asking again attaches nothing more
    assertThat(execution.finalFailure().getSuppressed()).hasSize(3);
  }

  @Test
  void theSameExceptionThrownTwiceIsNotSuppressedIntoItself() {
    Execution<String> execution = builder().maxAttempts(3).build().newExecution(0);
    IOException shared = new IOException("shared");
    IOException other = new IOException("other");
    execution.onFailure(shared, 0);
    execution.onFailure(other, 0);
    execution.onFailure(shared, 0);
    Throwable last = execution.finalFailure();
    assertThat(last).isSameAs(shared);
    assertThat(last.getSuppressed()).hasSize(2).contains(other).doesNotContain(shared);
  }

  @Test
  void aFailureFollowedByARetryableResultIsStillAttached() {
    Execution<String> execution = builder().maxAttempts(3).retryOnResult("busy"::equals).build().newExecution(0);
    IOException first = new IOException("first");
    IOException last = new IOException("last");
    execution.onFailure(first, 0);
    execution.onResult("busy", 0);
    execution.onFailure(last, 0);
    assertThat(execution.finalFailure().getSuppressed()).hasSize(2).contains(first);
  }

  @Test
  void maxSuppressedZeroAttachesOnlyTheHistory() {
    Execution<String> execution = builder().maxAttempts(3).maxSuppressed(0).build().newExecution(0);
    for (int i = 0; i < 3; i++) {
      execution.onFailure(new IOException(), 0);
    }
    assertThat(execution.finalFailure().getSuppressed()).singleElement().isInstanceOf(RetryHistory.class);
  }

  @Test
  void listenersHearEveryOutcomeAndOneThatThrowsChangesNothing() {
    List<String> heard = new ArrayList<>();
    RetryListener<String> recorder = new RetryListener<>() {
      @Override
      public void onRetryScheduled(RetryEvent<String> event) {
        heard.add("scheduled " + event.attempts() + " " + event.delay() + " " + event.failureClass() + " "
            + event.failure().getMessage() + " " + event.elapsed());
      }

      @Override
      public void onSuccess(RetryEvent<String> event) {
        heard.add("success " + event.attempts() + " " + event.result() + " " + event.elapsedNanos());
      }

      @Override
      public void onExhausted(RetryEvent<String> event) {
        heard.add("exhausted " + event.attempts() + " " + event.stopReason() + " " + event.policyName());
      }

      @Override
      public void onAborted(RetryEvent<String> event) {
        heard.add("aborted " + event.attempts() + " " + event.stopReason());
      }
    };
    RetryListener<String> broken = new RetryListener<>() {
      @Override
      public void onRetryScheduled(RetryEvent<String> event) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void onSuccess(RetryEvent<String> event) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void onExhausted(RetryEvent<String> event) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void onAborted(RetryEvent<String> event) {
        throw new IllegalStateException("listener bug");
      }
    };
    RetryPolicy<String> policy = builder().name("p").maxAttempts(2).listener(broken).listener(recorder)
        .abortOn(IllegalArgumentException.class).build();

    Execution<String> succeeds = policy.newExecution(0);
    assertThat(succeeds.onFailure(new IOException("boom"), SECOND).isRetry()).isTrue();
    assertThat(succeeds.onResult("ok", 3 * SECOND).isSuccess()).isTrue();
    Execution<String> exhausted = policy.newExecution(0);
    exhausted.onFailure(new IOException("a"), 0);
    exhausted.onFailure(new IOException("b"), 0);
    Execution<String> aborted = policy.newExecution(0);
    aborted.onFailure(new IllegalArgumentException(), 0);
    Execution<String> interrupted = policy.newExecution(0);
    interrupted.onFailure(new IOException("c"), 0);
    interrupted.stop(StopReason.INTERRUPTED, SECOND);
    Engine.succeeded(policy, null, "first", 5, 12);

    assertThat(heard).containsExactly(
        "scheduled 1 PT1S transient boom PT1S",
        "success 2 ok " + 3 * SECOND,
        "scheduled 1 PT1S transient a PT0S",
        "exhausted 2 ATTEMPTS_EXHAUSTED p",
        "aborted 1 ABORTED",
        "scheduled 1 PT1S transient c PT0S",
        "aborted 1 INTERRUPTED",
        "success 1 first 7");
  }

  @Test
  void abortAfterTheEndKeepsTheOriginalReason() {
    Execution<String> execution = builder().maxAttempts(1).build().newExecution(0);
    execution.onFailure(new IOException(), 0);
    assertThat(execution.stop(StopReason.CANCELLED, 0).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    Execution<String> succeeded = builder().build().newExecution(0);
    succeeded.onResult("ok", 0);
    assertThat(succeeded.stop(StopReason.CANCELLED, 0).stopReason()).isEqualTo(StopReason.CANCELLED);
    assertThat(succeeded.stopReason()).isNull();
  }

  @Test
  void aDriverCanStopAFailureForItsOwnReason() {
    Execution<String> execution = builder().build().newExecution(0);
    IOException failure = new IOException();
    Decision decision = Engine.record(execution, null, failure, Verdict.stop(StopReason.CANCELLED), SECOND);
    assertThat(decision.stopReason()).isEqualTo(StopReason.CANCELLED);
    assertThat(decision).hasToString("stop: cancelled");
    assertThat(RetryHistory.of(execution.finalFailure()).stopReason()).isEqualTo(StopReason.CANCELLED);
  }

  @Test
  void theBudgetIsToldEverythingAndCanRefuse() {
    CountingBudget budget = new CountingBudget(1);
    RetryPolicy<String> policy = builder().maxAttempts(5).budget(budget).build();
    Execution<String> first = policy.newExecution(0);
    assertThat(first.onFailure(new RuntimeException(new TimeoutException()), 0).isRetry()).isTrue();
    assertThat(first.onResult("ok", 0).isSuccess()).isTrue();
    Execution<String> second = policy.newExecution(0);
    assertThat(second.onFailure(new IOException(), 0).stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
    Engine.succeeded(policy, null, "ok", 0, 0);
    assertThat(budget.log).containsExactly("call", "failure timeout", "acquire timeout", "success 1 timeout",
        "call", "failure transient", "refuse transient", "call", "success 0 null");
    assertThat(policy.budget()).isSameAs(budget);
    assertThat(policy.toString()).contains("budget");
  }

  @Test
  void theBudgetIsNotAskedWhenTheRulesAlreadyStop() {
    CountingBudget budget = new CountingBudget(10);
    RetryPolicy<String> policy = builder().maxAttempts(1).budget(budget).build();
    policy.newExecution(0).onFailure(new IOException(), 0);
    assertThat(budget.log).containsExactly("call", "failure transient");
  }

  /** A simple counting budget: a fixed number of retries, then refusals. */
  static final class CountingBudget implements RetryBudget {
    final List<String> log = new ArrayList<>();
    private int tokens;

    CountingBudget(int tokens) {
      this.tokens = tokens;
    }

    @Override
    public synchronized void onCall() {
      log.add("call");
    }

    @Override
    public synchronized void onFailure(FailureClass failureClass) {
      log.add("failure " + failureClass);
    }

    @Override
    public synchronized boolean tryAcquire(FailureClass failureClass) {
      if (tokens == 0) {
        log.add("refuse " + failureClass);
        return false;
      }
      tokens--;
      log.add("acquire " + failureClass);
      return true;
    }

    @Override
    public synchronized void onSuccess(int retries, FailureClass lastRetryClass) {
      log.add("success " + retries + " " + lastRetryClass);
    }

    @Override
    public synchronized double level() {
      return tokens;
    }
  }
}
