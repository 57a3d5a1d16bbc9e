package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.Recovery;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Recovery (a fallback value when retrying ends without success), through both executors. */
class RecoveryTest {
  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final List<Object[]> seen = new CopyOnWriteArrayList<>();

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(100)))
        .retryOn(IOException.class).clock(clock).sleeper(sleeper);
  }

  private Recovery<String> recording(String value) {
    return (lastResult, lastFailure, history) -> {
      seen.add(new Object[] {lastResult, lastFailure, history});
      return value;
    };
  }

  @Test
  void exhaustedRetriesOnFailuresReturnTheRecoveredValueWithTheLastFailureAndHistory() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String result = RetryExecutor.of(policy().build()).call(() -> {
      throw new IOException("attempt " + attempts.incrementAndGet());
    }, recording("fallback"));

    assertThat(result).isEqualTo("fallback");
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0)[0]).isNull();
    assertThat((Throwable) seen.get(0)[1]).isInstanceOf(IOException.class).hasMessage("attempt 3");
    RetryHistory history = (RetryHistory) seen.get(0)[2];
    assertThat(history.attempts()).isEqualTo(3);
    assertThat(history.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(history.elapsed()).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void exhaustedRetriesOnResultsPassTheLastResult() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String result = RetryExecutor.of(policy().retryOnResult(r -> r.startsWith("busy")).build())
        .call(() -> "busy " + attempts.incrementAndGet(), recording("fallback"));

    assertThat(result).isEqualTo("fallback");
    assertThat(seen.get(0)[0]).isEqualTo("busy 3");
    assertThat(seen.get(0)[1]).isNull();
    assertThat(((RetryHistory) seen.get(0)[2]).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
  }

  @Test
  void aFailureThatIsNotRetryableIsRecoveredAtOnce() throws Exception {
    String result = RetryExecutor.of(policy().build()).call(() -> {
      throw new IllegalStateException("bug");
    }, recording("fallback"));

    assertThat(result).isEqualTo("fallback");
    assertThat(((RetryHistory) seen.get(0)[2]).stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(((RetryHistory) seen.get(0)[2]).attempts()).isEqualTo(1);
  }

  @Test
  void aSuccessNeverRunsTheRecovery() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String result = RetryExecutor.of(policy().build()).call(() -> {
      if (attempts.incrementAndGet() == 1) {
        throw new IOException("once");
      }
      return "ok";
    }, recording("fallback"));

    assertThat(result).isEqualTo("ok");
    assertThat(seen).isEmpty();
  }

  @Test
  void anInterruptedCallIsNotRecovered() {
    RetryExecutor<String> retry = RetryExecutor.of(policy().sleeper(new RecordingSleeper(clock).interruptAfter(0))
        .build());

    Throwable thrown = catchThrowable(() -> retry.call(() -> {
      throw new IOException("down");
    }, recording("fallback")));

    assertThat(thrown).isInstanceOf(InterruptedException.class);
    assertThat(seen).isEmpty();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void anAttemptThatFailsBecauseTheThreadWasInterruptedIsNotRecovered() {
    IOException interrupted = new IOException("stream closed by interrupt");
    Throwable thrown = catchThrowable(() -> RetryExecutor.of(policy().build()).call(() -> {
      Thread.currentThread().interrupt();
      throw interrupted;
    }, recording("fallback")));

    assertThat(thrown).isSameAs(interrupted);
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.INTERRUPTED);
    assertThat(seen).isEmpty();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void whatTheRecoveryThrowsIsTheCallsFailureWithTheLastFailureSuppressed() {
    IOException last = new IOException("down");
    Throwable thrown = catchThrowable(() -> RetryExecutor.of(policy().maxAttempts(1).build()).call(() -> {
      throw last;
    }, (result, failure, history) -> {
      throw new IllegalStateException("no fallback either");
    }));

    assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("no fallback either");
    assertThat(thrown.getSuppressed()).containsExactly(last);
  }

  @Test
  void nullArgumentsAreRefusedByName() {
    RetryExecutor<String> sync = RetryExecutor.of(policy().build());
    assertThatThrownBy(() -> sync.call(() -> "ok", null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("recovery");
    AsyncRetryExecutor<String> async = AsyncRetryExecutor.of(policy().build(), scheduler);
    assertThatThrownBy(() -> async.call(() -> CompletableFuture.completedFuture("ok"), null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("recovery");
  }

  @Test
  void anAsyncCallThatRunsOutOfAttemptsCompletesWithTheRecoveredValue() {
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy().build(), scheduler)
        .call(() -> CompletableFuture.failedFuture(new IOException("attempt " + attempts.incrementAndGet())),
            recording("fallback"));
    scheduler.advance(Duration.ofSeconds(1));

    assertThat(call).isCompletedWithValue("fallback");
    assertThat((Throwable) seen.get(0)[1]).hasMessage("attempt 3");
    assertThat(((RetryHistory) seen.get(0)[2]).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
  }

  @Test
  void anAsyncRecoveryThatThrowsFailsTheFuture() {
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy().maxAttempts(1).build(), scheduler)
        .call(() -> CompletableFuture.failedFuture(new IOException("down")), (result, failure, history) -> {
          throw new IllegalStateException("no fallback either");
        });

    assertThat(call).isCompletedExceptionally();
    assertThat(catchThrowable(call::join).getCause()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aCancelledAsyncCallIsNotRecovered() {
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy().build(), scheduler)
        .call(() -> CompletableFuture.failedFuture(new IOException("down")), recording("fallback"));

    call.cancel(true);
    scheduler.advance(Duration.ofSeconds(1));

    assertThat(call).isCancelled();
    assertThat(seen).isEmpty();
  }
}
