package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import dev.backoff.RetryEvent;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.StopReason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-attempt timeout, through both executors, in virtual time. The class timeout only turns a
 * watchdog that never fires (a blocked attempt) into a failure instead of a hang.
 */
@org.junit.jupiter.api.Timeout(60)
class AttemptTimeoutTest {
  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RetryScheduler timer = (task, delayNanos) -> scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final List<FailureClass> charged = new CopyOnWriteArrayList<>();

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted(); // a failing test must not leave the flag to the next one
  }

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder()
        .maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .attemptTimeout(Duration.ofSeconds(2))
        .budget(recordingBudget())
        .clock(clock)
        .sleeper(sleeper);
  }

  private RetryBudget recordingBudget() {
    return new RetryBudget() {
      @Override
      public void onCall() {}

      @Override
      public void onFailure(FailureClass failureClass) {
        charged.add(failureClass);
      }

      @Override
      public boolean tryAcquire(FailureClass failureClass) {
        return true;
      }

      @Override
      public void onSuccess(int retries, FailureClass lastRetryClass) {}

      @Override
      public double level() {
        return 1;
      }
    };
  }

  /** An attempt that blocks until interrupted, with the watchdog's time passing while it "runs". */
  private String blockUntilInterrupted(Duration runFor) throws InterruptedException {
    scheduler.advance(runFor); // on this thread: a watchdog due meanwhile interrupts it now
    Thread.sleep(60_000); // returns at once if interrupted; otherwise the test would hang, and fail
    return "too late";
  }

  // ---- synchronous ----------------------------------------------------------------------------------

  @Test
  void aSyncAttemptPastItsTimeoutIsInterruptedFailsAsATimeoutAndIsRetried() throws Exception {
    RetryExecutor<String> retry = RetryExecutor.of(policy().interruptOnAttemptTimeout(true).build())
        .withScheduler(timer);
    AtomicInteger attempts = new AtomicInteger();

    String result = retry.call(() -> attempts.incrementAndGet() == 1 ? blockUntilInterrupted(Duration.ofSeconds(3))
        : "ok");

    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(2);
    assertThat(Thread.currentThread().isInterrupted()).as("the watchdog's interrupt is cleared").isFalse();
    assertThat(charged).containsExactly(FailureClass.TIMEOUT);
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2));
    assertThat(scheduler.pending()).as("the second attempt's watchdog is cancelled").isZero();
  }

  @Test
  void theTimedOutAttemptsFailureIsATimeoutExceptionWithWhatItThrewSuppressed() {
    RetryExecutor<String> retry = RetryExecutor.of(policy().maxAttempts(1).interruptOnAttemptTimeout(true).build())
        .withScheduler(timer);

    Throwable thrown = catchThrowable(() -> retry.call(() -> blockUntilInterrupted(Duration.ofSeconds(5))));

    assertThat(thrown).isInstanceOf(TimeoutException.class).hasMessageContaining("attempt 1")
        .hasMessageContaining("PT2S");
    assertThat(thrown.getSuppressed()).anySatisfy(s -> assertThat(s).isInstanceOf(InterruptedException.class));
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void anAttemptThatIgnoresTheInterruptAndReturnsLateStillTimesOut() throws Exception {
    RetryExecutor<String> retry = RetryExecutor.of(policy().interruptOnAttemptTimeout(true).build())
        .withScheduler(timer);
    AtomicInteger attempts = new AtomicInteger();

    String result = retry.call(() -> {
      if (attempts.incrementAndGet() == 1) {
        scheduler.advance(Duration.ofSeconds(3)); // the watchdog fires; this attempt does not look
        return "late";
      }
      return "ok";
    });

    assertThat(result).isEqualTo("ok");
    assertThat(charged).containsExactly(FailureClass.TIMEOUT);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aCallersInterruptBeforeTheWatchdogFiresWinsAndStopsTheCall() {
    RetryExecutor<String> retry = RetryExecutor.of(policy().interruptOnAttemptTimeout(true).build())
        .withScheduler(timer);
    AtomicInteger attempts = new AtomicInteger();

    Throwable thrown = catchThrowable(() -> retry.call(() -> {
      attempts.incrementAndGet();
      Thread.currentThread().interrupt(); // the caller's own interrupt, during the attempt
      return blockUntilInterrupted(Duration.ofSeconds(3)); // the watchdog then finds the thread interrupted
    }));

    assertThat(thrown).isInstanceOf(InterruptedException.class);
    assertThat(attempts).hasValue(1);
    assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt is kept").isTrue();
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.INTERRUPTED);
  }

  @Test
  void anAttemptWithinItsTimeoutCancelsTheWatchdogAndLeavesNoInterrupt() throws Exception {
    RetryExecutor<String> retry = RetryExecutor.of(policy().interruptOnAttemptTimeout(true).build())
        .withScheduler(timer);

    assertThat(retry.call(() -> {
      clock.advance(Duration.ofMillis(1999));
      return "ok";
    })).isEqualTo("ok");
    assertThat(scheduler.pending()).isZero();
    assertThat(scheduler.advance(Duration.ofSeconds(10))).as("no watchdog left to fire").isZero();
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void withoutOptingInTheSyncExecutorNeverInterrupts() throws Exception {
    RetryExecutor<String> retry = RetryExecutor.of(policy().build()).withScheduler(timer);

    assertThat(retry.call(() -> {
      clock.advance(Duration.ofSeconds(30));
      return "ok";
    })).isEqualTo("ok");
    assertThat(scheduler.delays()).isEmpty();
  }

  @Test
  void interruptingWithoutATimeoutIsRefusedWithAClearMessage() {
    assertThatThrownBy(() -> RetryPolicy.builder().interruptOnAttemptTimeout(true).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interruptOnAttemptTimeout").hasMessageContaining("attemptTimeout");
    assertThatThrownBy(() -> RetryPolicy.builder().attemptTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attemptTimeout");
  }

  // ---- asynchronous ---------------------------------------------------------------------------------

  @Test
  void anAsyncAttemptPastItsTimeoutIsCancelledFailsAsATimeoutAndIsRetried() {
    AsyncRetryExecutor<String> retry = AsyncRetryExecutor.of(policy().build(), scheduler);
    List<CompletableFuture<String>> stages = new CopyOnWriteArrayList<>();

    CompletableFuture<String> call = retry.call(() -> {
      CompletableFuture<String> stage = new CompletableFuture<>();
      stages.add(stage);
      if (stages.size() == 2) {
        stage.complete("ok");
      }
      return stage;
    });

    assertThat(call).isNotDone();
    scheduler.advance(Duration.ofMillis(1999));
    assertThat(call).isNotDone();
    assertThat(stages).hasSize(1);
    scheduler.advance(Duration.ofMillis(1)); // the timeout
    assertThat(stages.get(0)).isCancelled();
    assertThat(charged).containsExactly(FailureClass.TIMEOUT);
    scheduler.advance(Duration.ofMillis(100)); // the backoff
    assertThat(call).isCompletedWithValue("ok");
    assertThat(stages).hasSize(2);
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void anAsyncCallThatTimesOutEveryAttemptEndsWithATimeoutException() {
    AsyncRetryExecutor<String> retry = AsyncRetryExecutor.of(policy().maxAttempts(2).build(), scheduler);

    CompletableFuture<String> call = retry.call(CompletableFuture::new);
    scheduler.advance(Duration.ofSeconds(10));

    assertThat(call).isCompletedExceptionally();
    Throwable failure = catchThrowable(call::join).getCause();
    assertThat(failure).isInstanceOf(TimeoutException.class).hasMessageContaining("attempt 2");
    assertThat(RetryHistory.of(failure).attempts()).isEqualTo(2);
    assertThat(charged).containsExactly(FailureClass.TIMEOUT, FailureClass.TIMEOUT);
    // Two timers and one retry, at virtual times 2 s, 2.1 s and 4.1 s.
    assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(2), Duration.ofMillis(100),
        Duration.ofSeconds(2));
  }

  @Test
  void anAsyncAttemptWithinItsTimeoutCancelsItsTimer() {
    AsyncRetryExecutor<String> retry = AsyncRetryExecutor.of(policy().build(), scheduler);
    CompletableFuture<String> stage = new CompletableFuture<>();

    CompletableFuture<String> call = retry.call(() -> stage);
    assertThat(scheduler.pending()).isEqualTo(1);
    scheduler.advance(Duration.ofMillis(500));
    stage.complete("ok");

    assertThat(call).isCompletedWithValue("ok");
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void anAlreadyCompletedStageIsNotTimed() {
    AsyncRetryExecutor<String> retry = AsyncRetryExecutor.of(policy().build(), scheduler);

    assertThat(retry.call(() -> CompletableFuture.completedFuture("ok"))).isCompletedWithValue("ok");
    assertThat(scheduler.delays()).isEmpty();
  }

  @Test
  void cancellingTheCallCancelsTheTimerAndStartsNoFurtherAttempt() {
    AsyncRetryExecutor<String> retry = AsyncRetryExecutor.of(policy().build(), scheduler);
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> stage = new CompletableFuture<>();

    CompletableFuture<String> call = retry.call(() -> {
      attempts.incrementAndGet();
      return stage;
    });
    call.cancel(true);

    assertThat(stage).isCancelled();
    assertThat(scheduler.pending()).isZero();
    scheduler.advance(Duration.ofSeconds(60));
    assertThat(attempts).hasValue(1);
  }

  @Test
  void listenersHearTheTimedOutAttemptAsFinishedWithATimeout() {
    List<RetryEvent<String>> finished = new CopyOnWriteArrayList<>();
    AsyncRetryExecutor<String> retry = AsyncRetryExecutor.of(policy().maxAttempts(1)
        .listener(new RetryListener<String>() {
          @Override
          public void onAttemptFinished(RetryEvent<String> event) {
            finished.add(event);
          }
        }).build(), scheduler);

    retry.call(CompletableFuture::new);
    scheduler.advance(Duration.ofSeconds(2));

    assertThat(finished).hasSize(1);
    assertThat(finished.get(0).failure()).isInstanceOf(TimeoutException.class);
    assertThat(finished.get(0).attemptDuration()).isEqualTo(Duration.ofSeconds(2));
  }
}
