package dev.backoff.testing;

import static dev.backoff.testing.RecordingListener.Kind.ABORTED;
import static dev.backoff.testing.RecordingListener.Kind.EXHAUSTED;
import static dev.backoff.testing.RecordingListener.Kind.RETRY;
import static dev.backoff.testing.RecordingListener.Kind.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryEvent;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RecordingListenerTest {
  private final FakeClock clock = new FakeClock();

  private RetryExecutor<String> executor(RecordingListener<String> listener, int maxAttempts) {
    return RetryExecutor.of(RetryPolicy.<String>builder().maxAttempts(maxAttempts)
        .backoff(Backoff.fixed(Duration.ofMillis(100))).abortOn(IllegalStateException.class)
        .clock(clock).sleeper(new RecordingSleeper(clock)).listener(listener).build());
  }

  private static String failTwiceThenOk(AtomicInteger attempts) throws IOException {
    if (attempts.incrementAndGet() <= 2) {
      throw new IOException("down " + attempts.get());
    }
    return "ok";
  }

  @Test
  void recordsEveryEventInOrderWithItsKind() throws Exception {
    RecordingListener<String> listener = new RecordingListener<>();
    RetryExecutor<String> executor = executor(listener, 3);
    AtomicInteger attempts = new AtomicInteger();
    assertThat(executor.call(() -> failTwiceThenOk(attempts))).isEqualTo("ok");
    catchThrowable(() -> executor.call(() -> {
      throw new IOException("always");
    }));
    catchThrowable(() -> executor.call(() -> {
      throw new IllegalStateException("abort");
    }));

    assertThat(listener.kinds()).containsExactly(RETRY, RETRY, SUCCESS, RETRY, RETRY, EXHAUSTED, ABORTED);
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "retry 2 in PT0.1S", "success 3 ok",
        "retry 1 in PT0.1S", "retry 2 in PT0.1S", "exhausted ATTEMPTS_EXHAUSTED", "aborted ABORTED");
    assertThat(listener.stopReasons()).containsExactly(StopReason.ATTEMPTS_EXHAUSTED, StopReason.ABORTED);
    assertThat(listener.endings()).isEqualTo(3);
    assertThat(listener.events()).hasSize(7);
    assertThat(listener.events(RETRY)).extracting(RetryEvent::attempts).containsExactly(1, 2, 1, 2);
    assertThat(listener.events(SUCCESS)).singleElement().extracting(RetryEvent::result).isEqualTo("ok");
    assertThat(listener.heard().get(5).kind()).isEqualTo(EXHAUSTED);
    assertThat(listener.last().failure()).hasMessage("abort");
    assertThat(listener).hasToString("RecordingListener" + listener.summary());
  }

  @Test
  void snapshotsDoNotChangeAndClearForgets() throws Exception {
    RecordingListener<String> listener = new RecordingListener<>();
    RetryExecutor<String> executor = executor(listener, 3);
    executor.call(() -> "first");
    List<RecordingListener.Kind> before = listener.kinds();
    executor.call(() -> "second");
    assertThat(before).containsExactly(SUCCESS);
    assertThat(listener.kinds()).containsExactly(SUCCESS, SUCCESS);
    assertThatThrownBy(() -> before.add(RETRY)).isInstanceOf(UnsupportedOperationException.class);
    listener.clear();
    assertThat(listener.heard()).isEmpty();
    assertThatThrownBy(listener::last).isInstanceOf(IllegalStateException.class).hasMessage("no event heard yet");
  }

  @Test
  void onlyRecordsTheKindsAskedFor() throws Exception {
    RecordingListener<String> endings = RecordingListener.only(SUCCESS, EXHAUSTED);
    AtomicInteger attempts = new AtomicInteger();
    executor(endings, 3).call(() -> failTwiceThenOk(attempts));
    assertThat(endings.summary()).containsExactly("success 3 ok");
    assertThatThrownBy(() -> RecordingListener.only(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("kinds must not be null");
    assertThatThrownBy(() -> RecordingListener.only(RETRY, (RecordingListener.Kind) null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> endings.events(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("kind must not be null");
  }

  @Test
  void keepsEveryEventFromManyThreads() throws Exception {
    RecordingListener<String> listener = new RecordingListener<>();
    RetryExecutor<String> executor = executor(listener, 3);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < 500; i++) {
            AtomicInteger attempts = new AtomicInteger();
            executor.call(() -> failTwiceThenOk(attempts));
          }
          return null;
        }));
      }
      for (Future<?> future : done) {
        future.get(); // rethrows what a thread threw
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(listener.events(SUCCESS)).hasSize(2000);
    assertThat(listener.events(RETRY)).hasSize(4000);
    assertThat(listener.endings()).isEqualTo(2000);
  }

  @Test
  void aHeardEventNeedsBothParts() {
    assertThatThrownBy(() -> new RecordingListener.Heard<String>(RETRY, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("must not be null");
  }
}
