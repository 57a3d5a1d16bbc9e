package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backoff.Backoff;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The synchronous executor on virtual threads (JDK 21+), with the real clock and sleeper. Virtual threads are
 * reached by reflection so this compiles with {@code --release 17}; on JDK 17 the tests are skipped.
 */
class VirtualThreadsTest {

  @BeforeEach
  void requireVirtualThreads() {
    assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
  }

  private static Thread virtualThread(Runnable task) throws Exception {
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    Method unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class);
    return (Thread) unstarted.invoke(builder, task);
  }

  private static boolean isVirtual(Thread thread) throws Exception {
    return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
  }

  @Test
  void manyVirtualThreadsShareOneExecutor() throws Exception {
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(1))).build());
    int count = 200;
    ConcurrentHashMap<Integer, String> results = new ConcurrentHashMap<>();
    AtomicInteger virtual = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int id = i;
      AtomicInteger attempts = new AtomicInteger();
      Thread thread = virtualThread(() -> {
        try {
          if (isVirtual(Thread.currentThread())) {
            virtual.incrementAndGet();
          }
          results.put(id, executor.call(() -> {
            if (attempts.incrementAndGet() < 3) {
              throw new IOException("not yet");
            }
            return id + ":" + attempts.get();
          }));
        } catch (Exception e) {
          results.put(id, "failed: " + e);
        }
      });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join(Duration.ofSeconds(60).toMillis());
    }
    assertThat(virtual).hasValue(count);
    assertThat(results).hasSize(count);
    for (int i = 0; i < count; i++) {
      assertThat(results.get(i)).isEqualTo(i + ":3");
    }
  }

  @Test
  void aVirtualThreadInterruptedWhileSleepingStopsAtOnce() throws Exception {
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder().maxAttempts(5)
        .backoff(Backoff.fixed(Duration.ofHours(1))).build());
    AtomicInteger attempts = new AtomicInteger();
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    AtomicReference<Boolean> flagAfter = new AtomicReference<>();
    Thread thread = virtualThread(() -> {
      outcome.set(catchThrowable(() -> executor.call(() -> {
        attempts.incrementAndGet();
        throw new IOException("down");
      })));
      flagAfter.set(Thread.currentThread().isInterrupted());
    });
    thread.start();
    RetryExecutorTest.awaitSleeping(thread);
    thread.interrupt();
    thread.join(Duration.ofSeconds(30).toMillis());
    assertThat(thread.isAlive()).isFalse();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertThat(flagAfter.get()).isTrue();
    assertThat(attempts).hasValue(1);
  }
}
