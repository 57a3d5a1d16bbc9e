package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.NanoClock;
import dev.backoff.RetryEvent;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Attempt-started and attempt-finished events, and what they cost when nobody listens to them. */
class AttemptEventsTest {
  private final FakeClock clock = new FakeClock();
  private final AtomicInteger reads = new AtomicInteger();
  private final NanoClock counting = () -> {
    reads.incrementAndGet();
    return clock.nanoTime();
  };
  private final List<String> heard = new CopyOnWriteArrayList<>();

  /** Hears every event, as one line each. */
  private final RetryListener<String> everything = new RetryListener<>() {
    @Override
    public void onAttemptStarted(RetryEvent<String> e) {
      heard.add("started " + e.attempts() + " at " + e.elapsed().toMillis());
    }

    @Override
    public void onAttemptFinished(RetryEvent<String> e) {
      heard.add("finished " + e.attempts() + " at " + e.elapsed().toMillis() + " took "
          + e.attemptDuration().toMillis() + " " + (e.failure() != null ? e.failure().getMessage() : e.result()));
    }

    @Override
    public void onRetryScheduled(RetryEvent<String> e) {
      heard.add("retry in " + e.delay().toMillis());
    }

    @Override
    public void onSuccess(RetryEvent<String> e) {
      heard.add("success " + e.attempts());
    }
  };

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(250)))
        .clock(counting).sleeper(new RecordingSleeper(clock));
  }

  private Callable<String> failingOnceTaking10ms() {
    AtomicInteger attempts = new AtomicInteger();
    return () -> {
      clock.advance(Duration.ofMillis(10));
      if (attempts.incrementAndGet() == 1) {
        throw new IOException("down");
      }
      return "ok";
    };
  }

  @Test
  void theSyncLoopTellsEachAttemptsStartAndEndInOrder() throws Exception {
    RetryExecutor.of(policy().listener(everything).build()).call(failingOnceTaking10ms());

    assertThat(heard).containsExactly(
        "started 1 at 0", "finished 1 at 10 took 10 down", "retry in 250",
        "started 2 at 260", "finished 2 at 270 took 10 ok", "success 2");
  }

  @Test
  void theAsyncLoopTellsEachAttemptsStartAndEndInOrder() {
    FakeScheduler scheduler = new FakeScheduler(clock);
    AtomicInteger attempts = new AtomicInteger();
    List<CompletableFuture<String>> stages = new CopyOnWriteArrayList<>();
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy().listener(everything).build(), scheduler)
        .call(() -> {
          CompletableFuture<String> stage = new CompletableFuture<>();
          stages.add(stage);
          attempts.incrementAndGet();
          return stage;
        });
    clock.advance(Duration.ofMillis(10));
    stages.get(0).completeExceptionally(new IOException("down"));
    scheduler.advance(Duration.ofMillis(250));
    clock.advance(Duration.ofMillis(10));
    stages.get(1).complete("ok");

    assertThat(call).isCompletedWithValue("ok");
    assertThat(heard).containsExactly(
        "started 1 at 0", "finished 1 at 10 took 10 down", "retry in 250",
        "started 2 at 260", "finished 2 at 270 took 10 ok", "success 2");
  }

  @Test
  void everyEventOfOneCallNamesTheSameCallAndEachCallADifferentOne() throws Exception {
    List<RetryEvent<String>> events = new CopyOnWriteArrayList<>();
    RetryListener<String> recording = new RetryListener<>() {
      @Override
      public void onAttemptStarted(RetryEvent<String> e) {
        events.add(e);
      }

      @Override
      public void onRetryScheduled(RetryEvent<String> e) {
        events.add(e);
      }

      @Override
      public void onSuccess(RetryEvent<String> e) {
        events.add(e);
      }
    };
    RetryExecutor<String> sync = RetryExecutor.of(policy().listener(recording).build());
    sync.call(failingOnceTaking10ms());
    sync.call(() -> "at once");
    FakeScheduler scheduler = new FakeScheduler(clock);
    CompletableFuture<String> async = AsyncRetryExecutor.of(policy().listener(recording).build(), scheduler)
        .call(() -> CompletableFuture.completedFuture("async"));

    assertThat(events).hasSize(4 + 2 + 2); // started, scheduled, started, success; started, success; twice
    Object first = events.get(0).call();
    assertThat(first).isNotNull();
    assertThat(events.subList(0, 4)).allSatisfy(e -> assertThat(e.call()).isSameAs(first));
    Object second = events.get(4).call();
    assertThat(second).isNotNull().isNotSameAs(first);
    assertThat(events.get(5).call()).isSameAs(second);
    assertThat(events.get(6).call()).isSameAs(events.get(7).call()).isNotSameAs(first).isNotSameAs(second);
    assertThat(async).isCompletedWithValue("async");

    List<Object> withoutAttemptListeners = new CopyOnWriteArrayList<>();
    RetryExecutor.of(policy().listener(new RetryListener<String>() {
      @Override
      public void onSuccess(RetryEvent<String> e) {
        withoutAttemptListeners.add(e.call() == null ? "null" : e.call());
      }
    }).build()).call(() -> "ok");
    assertThat(withoutAttemptListeners).containsExactly("null");
  }

  @Test
  void aListenerWithoutAttemptMethodsCostsNoClockReadPerAttempt() throws Exception {
    RetryListener<String> retriesOnly = new RetryListener<>() {
      @Override
      public void onRetryScheduled(RetryEvent<String> e) {
        heard.add("retry");
      }
    };
    RetryExecutor.of(policy().listener(retriesOnly).build()).call(failingOnceTaking10ms());
    int withoutAttemptEvents = reads.get();
    reads.set(0);
    RetryExecutor.of(policy().listener(retriesOnly).listener(everything).build()).call(failingOnceTaking10ms());

    // Start, and one after each attempt; attempt listeners add a reading before and after each attempt.
    assertThat(withoutAttemptEvents).isEqualTo(3);
    assertThat(reads.get()).isEqualTo(3 + 2 * 2);
  }

  @Test
  void aListenerThatThrowsOnAttemptEventsChangesNothing() throws Exception {
    RetryListener<String> throwing = new RetryListener<>() {
      @Override
      public void onAttemptStarted(RetryEvent<String> e) {
        throw new AssertionError("listener bug");
      }

      @Override
      public void onAttemptFinished(RetryEvent<String> e) {
        throw new IllegalStateException("listener bug");
      }
    };

    String result = RetryExecutor.of(policy().listener(throwing).listener(everything).build())
        .call(failingOnceTaking10ms());

    assertThat(result).isEqualTo("ok");
    assertThat(heard).contains("started 1 at 0", "success 2");
  }

  @Test
  void withoutAttemptListenersOrAnEnforcedTimeoutTheSuccessPathAllocatesNothingAndReadsNoClock() throws Exception {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(threads instanceof com.sun.management.ThreadMXBean,
        "allocation counting needs com.sun.management.ThreadMXBean");
    com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) threads;
    org.junit.jupiter.api.Assumptions.assumeTrue(counter.isThreadAllocatedMemorySupported()
        && counter.isThreadAllocatedMemoryEnabled());
    // An attempt timeout the synchronous executor does not enforce (no interruptOnAttemptTimeout).
    RetryExecutor<String> executor = RetryExecutor.of(policy().attemptTimeout(Duration.ofSeconds(1)).build());
    Callable<String> attempt = () -> "ok";
    long id = Thread.currentThread().getId();
    int calls = 200_000;
    for (int i = 0; i < calls; i++) {
      executor.call(attempt);
    }
    long before = counter.getThreadAllocatedBytes(id);
    for (int i = 0; i < calls; i++) {
      executor.call(attempt);
    }
    long allocated = counter.getThreadAllocatedBytes(id) - before;

    assertThat(allocated).as("bytes allocated by %d successful calls", calls).isLessThan(64 * 1024);
    assertThat(reads).hasValue(0);
  }
}
