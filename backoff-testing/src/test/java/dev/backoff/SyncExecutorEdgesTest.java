package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The synchronous executor at its edges: listeners that throw errors, interrupts that arrive in awkward
 * places, and a budget charged only for retries that start. All deterministic (fake clock and sleepers).
 */
class SyncExecutorEdgesTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted(); // never leak a flag into the next test
  }

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().maxAttempts(3).backoff(Backoff.fixed(Duration.ofSeconds(1)))
        .clock(clock).sleeper(sleeper);
  }

  /** A listener whose every method throws an AssertionError, as a test's listener with an assertion might. */
  private static final class AssertingListener implements RetryListener<String> {
    final List<String> heard = new ArrayList<>();

    private AssertionError fail(String what) {
      heard.add(what);
      return new AssertionError("listener failed on " + what);
    }

    @Override
    public void onRetryScheduled(RetryEvent<String> event) {
      throw fail("retry");
    }

    @Override
    public void onSuccess(RetryEvent<String> event) {
      throw fail("success");
    }

    @Override
    public void onExhausted(RetryEvent<String> event) {
      throw fail("exhausted");
    }

    @Override
    public void onAborted(RetryEvent<String> event) {
      throw fail("aborted");
    }
  }

  @Test
  void aListenerThrowingAnErrorNeitherReplacesTheFailureNorStopsTheRetries() {
    AssertingListener throwing = new AssertingListener();
    RecordingListener<String> second = new RecordingListener<>();
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(100).build(); // retries cost 5
    RetryExecutor<String> executor = RetryExecutor.of(policy().budget(budget).listener(throwing)
        .listener(second).build());
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> executor.call(() -> {
      throw new IOException("attempt " + attempts.incrementAndGet());
    })).isInstanceOf(IOException.class).hasMessage("attempt 3")
        .satisfies(f -> assertThat(RetryHistory.of(f).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED));
    assertThat(throwing.heard).containsExactly("retry", "retry", "exhausted");
    assertThat(second.summary()).containsExactly("retry 1 in PT1S", "retry 2 in PT1S", "exhausted ATTEMPTS_EXHAUSTED");
    assertThat(sleeper.sleeps()).hasSize(2);
    assertThat(budget.level()).isEqualTo(90.0); // two retries went ahead, two charged
  }

  @Test
  void aListenerThrowingAnErrorOnSuccessOrAbortDoesNotReachTheCaller() throws Exception {
    AssertingListener throwing = new AssertingListener();
    RetryExecutor<String> executor = RetryExecutor.of(policy().listener(throwing).build());
    assertThat(executor.call(() -> "first")).isEqualTo("first");
    IllegalStateException bug = new IllegalStateException("not retryable");
    RetryExecutor<String> onlyIo = RetryExecutor.of(policy().retryOn(IOException.class).listener(throwing).build());
    assertThatThrownBy(() -> onlyIo.call(() -> {
      throw bug;
    })).isSameAs(bug);
    assertThat(throwing.heard).containsExactly("success", "aborted");
  }

  @Test
  void aVirtualMachineErrorFromAListenerStillPropagates() {
    StackOverflowError fatal = new StackOverflowError("listener recursed");
    RetryExecutor<String> executor = RetryExecutor.of(policy().listener(new RetryListener<>() {
      @Override
      public void onSuccess(RetryEvent<String> event) {
        throw fatal;
      }
    }).build());
    assertThatThrownBy(() -> executor.call(() -> "ok")).isSameAs(fatal);
  }

  @Test
  void anAttemptThatWrapsItsInterruptStopsAsInterruptedWithTheFlagSetAgain() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(policy().maxAttempts(5).build());
    assertThatThrownBy(() -> executor.call(() -> {
      attempts.incrementAndGet();
      try {
        Thread.currentThread().interrupt();
        Thread.sleep(1_000); // throws at once, clearing the flag
        return "slept";
      } catch (InterruptedException e) {
        throw new IllegalStateException("wrapped", e); // the flag is now clear
      }
    })).isInstanceOf(IllegalStateException.class)
        .satisfies(f -> assertThat(RetryHistory.of(f).stopReason()).isEqualTo(StopReason.INTERRUPTED));
    assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag restored").isTrue();
    assertThat(attempts).hasValue(1);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void aWrappedInterruptOnALaterAttemptAlsoRestoresTheFlag() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(policy().maxAttempts(5).build());
    assertThatThrownBy(() -> executor.call(() -> {
      if (attempts.incrementAndGet() < 3) {
        throw new IOException("busy");
      }
      throw new RuntimeException(new InterruptedException("caught and wrapped by the attempt"));
    })).isInstanceOf(RuntimeException.class);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(attempts).hasValue(3);
  }

  @Test
  void anInterruptLandingJustAfterTheSleepStopsTheCallBeforeTheNextAttempt() {
    // The sleep returns normally, then the interrupt arrives: the race this sleeper makes deterministic.
    Sleeper interruptedOnReturn = nanos -> Thread.currentThread().interrupt();
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(100).build();
    RecordingListener<String> listener = new RecordingListener<>();
    RetryExecutor<String> executor = RetryExecutor.of(policy().maxAttempts(5).sleeper(interruptedOnReturn)
        .budget(budget).listener(listener).build());
    AtomicInteger attempts = new AtomicInteger();
    IOException busy = new IOException("busy");
    assertThatThrownBy(() -> executor.call(() -> {
      attempts.incrementAndGet();
      throw busy;
    })).isInstanceOf(InterruptedException.class).hasSuppressedException(busy);
    assertThat(attempts).as("no attempt on an interrupted thread").hasValue(1);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(listener.summary()).containsExactly("retry 1 in PT1S", "aborted INTERRUPTED");
    assertThat(budget.level()).as("the retry that never started is not charged").isEqualTo(100.0);
  }

  @Test
  void aRetryInterruptedWhileWaitingGivesItsChargeBack() {
    RetryBudget budget = RetryBudgets.tokenBucket().capacity(100).build();
    RetryExecutor<String> executor = RetryExecutor.of(policy().maxAttempts(5).budget(budget)
        .sleeper(sleeper.interruptAfter(1)).build());
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> executor.call(() -> {
      attempts.incrementAndGet();
      throw new IOException("busy");
    })).isInstanceOf(InterruptedException.class);
    assertThat(attempts).hasValue(2);
    assertThat(budget.level()).as("retry 1 went ahead (5 tokens), retry 2 did not").isEqualTo(95.0);
  }

  @Test
  void aRatioBudgetGetsTheRetryBackToo() {
    RetryBudget budget = RetryBudgets.ratio(0.1, 10, Duration.ofSeconds(10), clock);
    double before = budget.level();
    RetryExecutor<String> executor = RetryExecutor.of(policy().maxAttempts(5).budget(budget)
        .sleeper(sleeper.interruptAfter(0)).build());
    assertThatThrownBy(() -> executor.call(() -> {
      throw new IOException("busy");
    })).isInstanceOf(InterruptedException.class);
    assertThat(budget.level()).isEqualTo(before + 0.1); // the call's deposit; the retry's withdrawal undone
  }
}
