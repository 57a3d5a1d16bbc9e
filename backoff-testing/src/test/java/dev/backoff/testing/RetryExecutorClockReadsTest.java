package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.NanoClock;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The executor reads the clock only where a decision or a report needs the time. */
class RetryExecutorClockReadsTest {
  private final FakeClock fakeClock = new FakeClock(Long.MAX_VALUE - 1_000_000_000L);
  private final AtomicInteger reads = new AtomicInteger();
  private final NanoClock countingClock = () -> {
    reads.incrementAndGet();
    return fakeClock.nanoTime();
  };
  private final RecordingSleeper sleeper = new RecordingSleeper(fakeClock);

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder()
        .maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(250)))
        .clock(countingClock)
        .sleeper(sleeper);
  }

  private static Callable<String> failingTwiceThenOk(AtomicInteger attempts, FakeClock clock) {
    return () -> {
      clock.advance(Duration.ofMillis(10)); // each attempt takes 10 ms
      if (attempts.incrementAndGet() <= 2) {
        throw new IOException("attempt " + attempts.get());
      }
      return "ok";
    };
  }

  @Test
  void withoutDeadlineOrListenersASuccessAfterRetriesReadsTheClockOnce() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String result = RetryExecutor.of(policy().build()).call(failingTwiceThenOk(attempts, fakeClock));

    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
    assertThat(reads).hasValue(1); // at the first failure only
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(250), Duration.ofMillis(250));
  }

  @Test
  void withoutDeadlineOrListenersAStopStillReportsTheTrueElapsedTime() {
    AtomicInteger attempts = new AtomicInteger();
    Throwable thrown = catchThrowable(() -> RetryExecutor.of(policy().maxAttempts(2).build()).call(() -> {
      fakeClock.advance(Duration.ofMillis(10));
      throw new IOException("attempt " + attempts.incrementAndGet());
    }));

    assertThat(reads).hasValue(2); // the first failure and the stop
    RetryHistory history = RetryHistory.of(thrown);
    assertThat(history.attempts()).isEqualTo(2);
    // From the end of the first attempt (the success path reads no clock): a 250 ms sleep, a 10 ms attempt.
    assertThat(history.elapsed()).isEqualTo(Duration.ofMillis(260));
  }

  @Test
  void aDeadlineReadsTheClockAtTheStartAndAfterEveryAttempt() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    RetryExecutor.of(policy().maxElapsed(Duration.ofSeconds(5)).build())
        .call(failingTwiceThenOk(attempts, fakeClock));

    assertThat(reads).hasValue(4); // start, and after each of the three attempts
  }

  @Test
  void listenersSeeTheElapsedTimeOfEveryAttempt() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    RecordingListener<String> listener = new RecordingListener<>();
    RetryExecutor.of(policy().listener(listener).build()).call(failingTwiceThenOk(attempts, fakeClock));

    assertThat(listener.events()).extracting(dev.backoff.RetryEvent::elapsed).containsExactly(Duration.ofMillis(10), Duration.ofMillis(270), Duration.ofMillis(530));
  }
}
