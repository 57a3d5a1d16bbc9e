package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.Jitter;
import dev.backoff.NanoClock;
import dev.backoff.Pushback;
import dev.backoff.RetryEvent;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.Sleeper;
import dev.backoff.StopReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The synchronous executor, in zero real time: a fake clock, a recording sleeper and scripted jitter. */
class RetryExecutorTest {
  private static final Duration MS_100 = Duration.ofMillis(100);
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);

  @AfterEach
  void clearInterruptFlag() {
    Thread.interrupted();
  }

  private <R> RetryPolicy.Builder<R> policy() {
    return RetryPolicy.<R>builder().clock(clock).sleeper(sleeper)
        .backoff(Backoff.exponential(Duration.ofSeconds(1), 2, Duration.ofSeconds(30)));
  }

  /** A callable that fails {@code failures} times (each attempt taking {@code attemptTime}), then returns. */
  private Callable<String> failing(int failures, AtomicInteger attempts, Duration attemptTime) {
    return () -> {
      int attempt = attempts.incrementAndGet();
      clock.advance(attemptTime);
      if (attempt <= failures) {
        throw new IOException("attempt " + attempt);
      }
      return "ok after " + attempt;
    };
  }

  @Test
  void retriesWithTheBackoffUntilSuccess() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String result = RetryExecutor.of(this.<String>policy().maxAttempts(5).build())
        .call(failing(3, attempts, Duration.ZERO));
    assertThat(result).isEqualTo("ok after 4");
    assertThat(attempts).hasValue(4);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4));
    assertThat(clock.nanoTime()).isEqualTo(Duration.ofSeconds(7).toNanos());
  }

  @Test
  void sleepsExactlyTheScriptedJitter() throws Exception {
    RetryPolicy<String> jittered = this.<String>policy().maxAttempts(4)
        .backoff(Backoff.exponential(Duration.ofSeconds(1), 2, Duration.ofSeconds(30), Jitter.full()))
        .random(new ScriptedRandom(0.5, 0.25, 0.1)).build();
    RetryExecutor.of(jittered).call(failing(3, new AtomicInteger(), Duration.ZERO));
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(500), Duration.ofMillis(500),
        Duration.ofMillis(400));
  }

  @Test
  void theLastFailureIsRethrownUnchangedWithTheEarlierOnesAndTheHistory() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().name("fetch").maxAttempts(3).build());
    Throwable thrown = catchThrowable(() -> executor.call(failing(10, attempts, MS_100)));
    assertThat(thrown).isInstanceOf(IOException.class).hasMessage("attempt 3");
    assertThat(attempts).hasValue(3);
    assertThat(thrown.getSuppressed()).hasSize(3);
    assertThat(thrown.getSuppressed()[0]).hasMessage("attempt 1");
    assertThat(thrown.getSuppressed()[1]).hasMessage("attempt 2");
    RetryHistory history = RetryHistory.of(thrown);
    assertThat(history.attempts()).isEqualTo(3);
    assertThat(history.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    // Without a deadline or listeners elapsed time runs from the end of the first attempt (no clock read before).
    assertThat(history.elapsed()).isEqualTo(Duration.ofMillis(1000 + 100 + 2000 + 100));
    assertThat(history.policyName()).isEqualTo("fetch");
  }

  @Test
  void nestedRetriesReportTheOutermostHistory() {
    RetryExecutor<String> inner = RetryExecutor.of(this.<String>policy().name("inner").maxAttempts(2).build());
    RetryExecutor<String> outer = RetryExecutor.of(this.<String>policy().name("outer").maxAttempts(3).build());
    IOException shared = new IOException("always the same instance");
    Throwable thrown = catchThrowable(() -> outer.call(() -> inner.call(() -> {
      throw shared;
    })));
    assertThat(thrown).isSameAs(shared);
    RetryHistory history = RetryHistory.of(thrown);
    assertThat(history.policyName()).isEqualTo("outer");
    assertThat(history.attempts()).isEqualTo(3);
    assertThat(java.util.Arrays.stream(thrown.getSuppressed()).filter(RetryHistory.class::isInstance))
        .as("each inner call and the outer call attach their own history").hasSize(4);
  }

  @Test
  void earlierFailuresAreBounded() {
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(20).maxSuppressed(3)
        .backoff(Backoff.none()).build());
    Throwable thrown = catchThrowable(() -> executor.call(failing(100, new AtomicInteger(), Duration.ZERO)));
    assertThat(thrown).hasMessage("attempt 20");
    assertThat(thrown.getSuppressed()).hasSize(4);
    assertThat(thrown.getSuppressed()[0]).hasMessage("attempt 17");
    assertThat(thrown.getSuppressed()[3]).isInstanceOf(RetryHistory.class);
  }

  @Test
  void neverStartsASleepThatWouldEndPastTheDeadline() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().unlimitedAttempts()
        .maxElapsed(Duration.ofSeconds(5)).backoff(Backoff.fixed(Duration.ofSeconds(2))).build());
    Throwable thrown = catchThrowable(() -> executor.call(failing(100, attempts, Duration.ofMillis(600))));
    // The deadline counts from the start of the first attempt: attempt 1 ends at 0.6 s, sleeps to 2.6 s;
    // attempt 2 ends at 3.2 s, and a 2 s sleep would end at 5.2 s, past the 5 s deadline.
    assertThat(attempts).hasValue(2);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2));
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED);
    assertThat(RetryHistory.of(thrown).elapsed()).isEqualTo(Duration.ofMillis(3200));
  }

  @Test
  void aSleepEndingExactlyAtTheDeadlineIsAllowed() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().unlimitedAttempts()
        .maxElapsed(Duration.ofSeconds(5)).backoff(Backoff.fixed(Duration.ofSeconds(2))).build());
    catchThrowable(() -> executor.call(failing(100, attempts, Duration.ofMillis(500))));
    // attempts end at 0.5 s, 3 s (its sleep ends at exactly 5 s) and 5.5 s
    assertThat(attempts).hasValue(3);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2));
  }

  @Test
  void theDeadlineIsWrapSafeOnAClockNearLongMaxValue() {
    FakeClock late = new FakeClock(Long.MAX_VALUE - 1_000_000_000L);
    RecordingSleeper lateSleeper = new RecordingSleeper(late);
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().clock(late).sleeper(lateSleeper)
        .unlimitedAttempts().maxElapsed(Duration.ofSeconds(10)).backoff(Backoff.fixed(Duration.ofSeconds(3)))
        .build());
    Throwable thrown = catchThrowable(() -> executor.call(() -> {
      attempts.incrementAndGet();
      throw new IOException();
    }));
    assertThat(attempts).hasValue(4); // at 0, 3, 6, 9 s; a sleep to 12 s would pass the deadline
    assertThat(lateSleeper.sleeps()).hasSize(3);
    assertThat(late.nanoTime()).isNegative(); // the clock wrapped
    assertThat(RetryHistory.of(thrown).elapsed()).isEqualTo(Duration.ofSeconds(9));
  }

  @Test
  void abortRulesAndNonRetryableFailuresAreNotRetried() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().retryOn(IOException.class)
        .abortOn(IllegalArgumentException.class).build());
    IllegalArgumentException bad = new IllegalArgumentException("bad");
    Throwable thrown = catchThrowable(() -> executor.call(() -> {
      attempts.incrementAndGet();
      throw new UncheckedIOException(new IOException(bad));
    }));
    assertThat(thrown).isInstanceOf(UncheckedIOException.class);
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.ABORTED);
    assertThat(attempts).hasValue(1);
    AssertionError error = new AssertionError("bug");
    assertThat(catchThrowable(() -> executor.call(() -> {
      throw error;
    }))).isSameAs(error);
    assertThat(catchThrowable(() -> executor.call(() -> {
      throw new IllegalStateException();
    }))).isInstanceOf(IllegalStateException.class);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void retryOnResultReturnsTheLastResultWhenRetriesRunOut() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    RecordingListener<Integer> listener = new RecordingListener<>();
    RetryExecutor<Integer> executor = RetryExecutor.of(RetryPolicy.<Integer>builder().clock(clock).sleeper(sleeper)
        .backoff(Backoff.fixed(MS_100)).maxAttempts(3).retryOnResult(status -> status >= 500)
        .listener(listener).build());
    assertThat(executor.call(() -> 500 + attempts.incrementAndGet())).isEqualTo(503);
    assertThat(listener.stopReasons()).containsExactly(StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(executor.call(() -> attempts.incrementAndGet() < 5 ? 503 : 200)).isEqualTo(200);
    assertThat(sleeper.sleeps()).hasSize(3);
  }

  @Test
  void interruptedDuringASleepStopsAtOnceRestoresTheFlagAndSurfacesIt() {
    sleeper.interruptAfter(1);
    AtomicInteger attempts = new AtomicInteger();
    RecordingListener<String> listener = new RecordingListener<>();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(10)
        .listener(listener).build());
    Throwable thrown = catchThrowable(() -> executor.call(failing(100, attempts, Duration.ZERO)));
    assertThat(thrown).isInstanceOf(InterruptedException.class);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(attempts).as("no attempt after the interruption").hasValue(2);
    assertThat(thrown.getSuppressed()).singleElement().satisfies(last -> {
      assertThat(last).hasMessage("attempt 2");
      assertThat(RetryHistory.of(last).stopReason()).isEqualTo(StopReason.INTERRUPTED);
    });
    assertThat(listener.summary()).containsExactly("retry 1 in PT1S", "retry 2 in PT2S", "aborted INTERRUPTED");
  }

  @Test
  void aRealSleepIsCutShortByAnInterrupt() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    AtomicReference<Boolean> flagAfter = new AtomicReference<>();
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .backoff(Backoff.fixed(Duration.ofHours(1))).maxAttempts(5).build()); // system clock and sleeper
    Thread caller = new Thread(() -> {
      outcome.set(catchThrowable(() -> executor.call(() -> {
        attempts.incrementAndGet();
        throw new IOException("down");
      })));
      flagAfter.set(Thread.currentThread().isInterrupted());
    });
    caller.start();
    awaitSleeping(caller);
    caller.interrupt();
    caller.join(Duration.ofSeconds(30).toMillis());
    assertThat(caller.isAlive()).isFalse();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertThat(outcome.get().getSuppressed()[0]).hasMessage("down");
    assertThat(flagAfter.get()).isTrue();
    assertThat(attempts).hasValue(1);
  }

  static void awaitSleeping(Thread thread) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (thread.getState() != Thread.State.TIMED_WAITING) {
      assertThat(System.nanoTime() - deadline).as("thread never went to sleep").isNegative();
      Thread.sleep(1);
    }
  }

  @Test
  void anAttemptThatFailsWhileInterruptedIsNotRetried() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(5).build());
    Throwable thrown = catchThrowable(() -> executor.call(() -> {
      attempts.incrementAndGet();
      Thread.currentThread().interrupt(); // e.g. an I/O library noticed the interrupt and gave up
      throw new IOException("gave up");
    }));
    assertThat(thrown).isInstanceOf(IOException.class);
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.INTERRUPTED);
    assertThat(attempts).hasValue(1);
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void anInterruptedExceptionFromTheAttemptIsRethrownNotRetried() {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(5).build());
    Throwable thrown = catchThrowable(() -> executor.call(() -> {
      attempts.incrementAndGet();
      throw new InterruptedException("cancelled");
    }));
    assertThat(thrown).isInstanceOf(InterruptedException.class).hasMessage("cancelled");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void pushbackHintsStretchTheSleep() throws Exception {
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(4)
        .pushback((result, failure) -> failure != null && failure.getMessage().equals("attempt 1")
            ? Pushback.after(Duration.ofSeconds(9)) : Pushback.NONE)
        .build());
    executor.call(failing(2, new AtomicInteger(), Duration.ZERO));
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(9), Duration.ofSeconds(2));
    RetryExecutor<String> refusing = RetryExecutor.of(this.<String>policy().maxAttempts(4)
        .pushback((result, failure) -> Pushback.after(Duration.ofMinutes(5))).build());
    Throwable thrown = catchThrowable(() -> refusing.call(failing(2, new AtomicInteger(), Duration.ZERO)));
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.PUSHBACK_TOO_LONG);
  }

  @Test
  void eachFailureClassUsesItsOwnBackoff() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(4)
        .backoff(Backoff.fixed(MS_100))
        .backoff(FailureClass.TIMEOUT, Backoff.fixed(Duration.ofSeconds(3))).build());
    executor.call(() -> {
      int attempt = attempts.incrementAndGet();
      if (attempt == 1) {
        throw new TimeoutException();
      }
      if (attempt == 2) {
        throw new IOException();
      }
      return "ok";
    });
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(3), MS_100);
  }

  @Test
  void listenersHearTheCallAndAThrowingListenerChangesNothing() throws Exception {
    RecordingListener<String> listener = new RecordingListener<>();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(3)
        .listener(new RetryListener<>() {
          @Override
          public void onRetryScheduled(RetryEvent<String> event) {
            throw new IllegalStateException("listener bug");
          }

          @Override
          public void onSuccess(RetryEvent<String> event) {
            throw new IllegalStateException("listener bug");
          }
        })
        .listener(listener).build());
    assertThat(executor.call(failing(1, new AtomicInteger(), MS_100))).isEqualTo("ok after 2");
    assertThat(executor.call(() -> {
      clock.advance(MS_100);
      return "first";
    })).isEqualTo("first");
    assertThat(listener.summary()).containsExactly("retry 1 in PT1S", "success 2 ok after 2", "success 1 first");
    assertThat(listener.events()).extracting(RetryEvent::elapsed)
        .containsExactly(Duration.ofMillis(100), Duration.ofMillis(1200), Duration.ofMillis(100));
  }

  @Test
  void theLoggingListenerReportsExhaustion() {
    List<String> logged = new ArrayList<>();
    System.Logger logger = new RecordingLogger(logged);
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(2)
        .listener(RetryListener.logging(logger)).build());
    catchThrowable(() -> executor.call(failing(5, new AtomicInteger(), Duration.ZERO)));
    assertThat(logged).hasSize(2);
    assertThat(logged.get(0)).startsWith("DEBUG default: attempt 1").contains("retrying in PT1S");
    assertThat(logged.get(1)).startsWith("WARNING default: attempt 2").contains("attempts exhausted")
        .endsWith("java.io.IOException: attempt 2");
  }

  @Test
  void aBudgetCanRefuseRetries() {
    ScriptedBudget none = ScriptedBudget.refusing();
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().budget(none).build());
    Throwable thrown = catchThrowable(() -> executor.call(failing(5, attempts, Duration.ZERO)));
    assertThat(RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.BUDGET_EXHAUSTED);
    assertThat(attempts).hasValue(1);
    assertThat(none.calls()).isEqualTo(1);
    assertThat(none.acquires()).isEqualTo(1);
  }

  @Test
  void decorateAndRunRetryEachCall() throws Exception {
    RetryExecutor<String> executor = RetryExecutor.of(this.<String>policy().maxAttempts(3).build());
    AtomicInteger attempts = new AtomicInteger();
    Callable<String> decorated = executor.decorate(() -> {
      if (attempts.incrementAndGet() % 2 == 1) {
        throw new IOException();
      }
      return "even";
    });
    assertThat(decorated.call()).isEqualTo("even");
    assertThat(decorated.call()).isEqualTo("even");
    assertThat(attempts).hasValue(4);

    AtomicInteger runs = new AtomicInteger();
    executor.run(() -> {
      if (runs.incrementAndGet() < 3) {
        throw new IOException();
      }
    });
    assertThat(runs).hasValue(3);
    executor.run(runs::incrementAndGet);
    assertThat(runs).hasValue(4);
    assertThatThrownBy(() -> executor.run(() -> {
      throw new IOException("always");
    })).isInstanceOf(IOException.class).hasMessage("always");
  }

  @Test
  void runRetriesWhenTheResultPredicateRejectsNull() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    RetryExecutor<Object> executor = RetryExecutor.of(RetryPolicy.builder().clock(clock).sleeper(sleeper)
        .maxAttempts(3).retryOnResult(result -> runs.get() < 2).build());
    executor.run(runs::incrementAndGet);
    assertThat(runs).hasValue(2);
  }

  @Test
  void anExecutorCanOverrideThePolicysClockSleeperAndRandom() throws Exception {
    FakeClock otherClock = new FakeClock(5);
    RecordingSleeper otherSleeper = new RecordingSleeper(otherClock);
    RetryPolicy<String> jittered = RetryPolicy.<String>builder().maxAttempts(2)
        .backoff(Backoff.fixed(Duration.ofSeconds(10), Jitter.full())).build(); // system clock, sleeper, random
    RetryExecutor<String> executor = RetryExecutor.of(jittered).withClock(otherClock).withSleeper(otherSleeper)
        .withRandom(new ScriptedRandom(0.25));
    assertThat(executor.policy()).isSameAs(jittered);
    executor.call(failing(1, new AtomicInteger(), Duration.ZERO));
    assertThat(otherSleeper.sleeps()).containsExactly(Duration.ofMillis(2500));
  }

  @Test
  void theSuccessPathReadsNoClockWithoutDeadlineOrListeners() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    NanoClock counting = () -> {
      reads.incrementAndGet();
      return 0;
    };
    Sleeper never = nanos -> {
      throw new AssertionError("no sleep on success");
    };
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().clock(counting).sleeper(never)
        .build());
    assertThat(executor.call(() -> "ok")).isEqualTo("ok");
    executor.run(() -> {});
    assertThat(reads).hasValue(0);
    RetryExecutor<String> withDeadline = RetryExecutor.of(RetryPolicy.<String>builder().clock(counting)
        .maxElapsed(Duration.ofSeconds(1)).build());
    withDeadline.call(() -> "ok");
    assertThat(reads).hasValue(1);
  }

  @Test
  void theSuccessPathAllocatesNothing() throws Exception {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(threads instanceof com.sun.management.ThreadMXBean,
        "allocation counting needs com.sun.management.ThreadMXBean");
    com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) threads;
    org.junit.jupiter.api.Assumptions.assumeTrue(counter.isThreadAllocatedMemorySupported()
        && counter.isThreadAllocatedMemoryEnabled());
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .retryOn(IOException.class).retryOnResult("retry"::equals).build());
    Callable<String> attempt = () -> "ok";
    RetryExecutor.CheckedRunnable block = () -> {};
    long id = Thread.currentThread().getId();
    int calls = 200_000;
    for (int i = 0; i < calls; i++) { // warm up: class loading and first-call linking allocate
      executor.call(attempt);
      executor.run(block);
    }
    long before = counter.getThreadAllocatedBytes(id);
    for (int i = 0; i < calls; i++) {
      executor.call(attempt);
      executor.run(block);
    }
    long allocated = counter.getThreadAllocatedBytes(id) - before;
    // One allocation per call would be at least 16 bytes × 400 000; allow only measurement noise.
    assertThat(allocated).as("bytes allocated by %d successful calls", 2 * calls).isLessThan(64 * 1024);
  }

  /** Records formatted log lines. */
  static final class RecordingLogger implements System.Logger {
    private final List<String> lines;

    RecordingLogger(List<String> lines) {
      this.lines = lines;
    }

    @Override
    public String getName() {
      return "recording";
    }

    @Override
    public boolean isLoggable(Level level) {
      return true;
    }

    @Override
    public void log(Level level, java.util.ResourceBundle bundle, String message, Throwable thrown) {
      lines.add(level + " " + message + (thrown == null ? "" : " " + thrown));
    }

    @Override
    public void log(Level level, java.util.ResourceBundle bundle, String format, Object... params) {
      lines.add(level + " " + (params == null || params.length == 0 ? format
          : java.text.MessageFormat.format(format, params)));
    }
  }
}
