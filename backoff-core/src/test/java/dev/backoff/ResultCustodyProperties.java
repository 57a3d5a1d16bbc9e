package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Result custody over random interleavings of a driver's call: attempt outcomes (a retried result, a
 * failure, an accepted result), and during each wait nothing, a circuit breaker tripped by other calls (the
 * retry is refused after its wait), the caller cancelling (or interrupting); asynchronously also a cancel
 * while an attempt is in flight, whose outcome then arrives late (from a stage that cannot be cancelled).
 * Whatever happens: every result the driver produced is either the call's outcome or handed back to the
 * driver's discard hook, exactly once, never both; no attempt starts after the call ended; and a call that
 * ends on a retried result (attempts run out, or the retry refused after its wait) returns that very result.
 */
class ResultCustodyProperties {
  enum Outcome { BUSY, FAIL, OK }

  enum Interlude { NONE, TRIP_BREAKER, CANCEL, INTERRUPT }

  private static final OutcomeJudge<String> JUDGE = (policy, result, failure) ->
      failure == null && result.startsWith("ok") ? Verdict.ACCEPT : Verdict.RETRYABLE;

  /** What the driver saw: the results it produced, the ones handed back, and attempts begun too late. */
  private static final class Ledger {
    final List<String> produced = new ArrayList<>();
    final Map<String, Integer> discarded = new IdentityHashMap<>();
    String lastProduced; // the last outcome's result, or null if it failed
    boolean ended; // the call ended (completed, cancelled, interrupted)
    int attempts;
    int startedAfterEnd;

    /** An attempt begins: counted as late if the call has ended. */
    void begin() {
      if (ended) {
        startedAfterEnd++;
      }
    }

    String answer(Outcome outcome) throws IOException {
      attempts++;
      if (outcome == Outcome.FAIL) {
        lastProduced = null;
        throw new IOException("attempt " + attempts);
      }
      String result = new String((outcome == Outcome.OK ? "ok-" : "busy-") + attempts); // its own identity
      produced.add(result);
      lastProduced = result;
      return result;
    }

    void discard(String result) {
      discarded.merge(result, 1, Integer::sum);
    }

    /** Every result produced is the delivered one or discarded, exactly once; the delivered one never discarded. */
    void assertCustody(String delivered) {
      for (String result : produced) {
        int times = discarded.getOrDefault(result, 0);
        if (result == delivered) {
          assertThat(times).as("the delivered result %s is never discarded", result).isZero();
        } else {
          assertThat(times).as("result %s discarded exactly once", result).isEqualTo(1);
        }
      }
      assertThat(discarded.keySet()).as("only produced results are discarded").allMatch(r -> produced.contains(r));
      assertThat(startedAfterEnd).as("attempts started after the call ended").isZero();
    }
  }

  private static RetryPolicy<String> policy(NanoClock clock, CircuitBreaker breaker, Sleeper sleeper) {
    return RetryPolicy.<String>builder().name("custody").maxAttempts(4).backoff(Backoff.fixed(Duration.ofMillis(10)))
        .clock(clock).sleeper(sleeper).circuitBreaker(breaker).build();
  }

  /** Opens only when other calls fail: its window (10 calls, at least 10) is more than one call's 4 attempts. */
  private static CircuitBreaker breaker(NanoClock clock) {
    return CircuitBreaker.builder().countWindow(10).minimumCalls(10).waitInOpen(Duration.ofHours(1)).clock(clock)
        .build();
  }

  /** Other calls fail through the breaker until it opens. */
  private static void trip(CircuitBreaker breaker) {
    for (int i = 0; i < 10; i++) {
      CircuitBreaker.Permit permit = breaker.tryAcquire();
      if (permit != null) {
        permit.onFailure(FailureClass.TRANSIENT);
      }
    }
  }

  @Property(tries = 400)
  void theSyncLoopHoldsARetriedResultUntilItsRetryStarts(
      @ForAll @Size(min = 1, max = 5) List<Outcome> outcomes,
      @ForAll @Size(min = 1, max = 4) List<Interlude> waits) throws Exception {
    long[] now = {0};
    NanoClock clock = () -> now[0];
    CircuitBreaker breaker = breaker(clock);
    Ledger ledger = new Ledger();
    RetryExecutor<String> executor = RetryExecutor.of(policy(clock, breaker, nanos -> now[0] += nanos));
    boolean[] stoppedByCaller = {false};
    SyncAttempt<String> attempt = new SyncAttempt<>() {
      @Override
      public String run(AttemptContext context) throws Exception {
        ledger.begin();
        return ledger.answer(outcomes.get(ledger.attempts % outcomes.size()));
      }

      @Override
      public void discard(String result) {
        ledger.discard(result);
      }

      @Override
      public boolean waitToRetry(long nanos, Sleeper sleeper) throws InterruptedException {
        sleeper.sleep(nanos);
        switch (waits.get((ledger.attempts - 1) % waits.size())) {
          case TRIP_BREAKER -> trip(breaker);
          case CANCEL -> {
            stoppedByCaller[0] = true;
            return false;
          }
          case INTERRUPT -> {
            stoppedByCaller[0] = true;
            throw new InterruptedException("the caller interrupted the wait");
          }
          default -> { }
        }
        return true;
      }
    };
    String delivered = null;
    Throwable failure = null;
    try {
      delivered = RetryLoops.sync(executor, attempt, JUDGE);
    } catch (Exception stopped) {
      failure = stopped;
    } finally {
      ledger.ended = true;
      Thread.interrupted(); // an interrupted call sets the flag again for its caller: clear it for the next try
    }
    ledger.assertCustody(delivered);
    if (stoppedByCaller[0]) {
      assertThat(failure).isInstanceOfAny(CancellationException.class, InterruptedException.class);
      assertThat(delivered).isNull();
    } else if (ledger.lastProduced != null) {
      assertThat(delivered).as("the call ends with its last result").isSameAs(ledger.lastProduced);
    } else {
      assertThat(failure).isInstanceOf(IOException.class).hasMessage("attempt " + ledger.attempts);
    }
  }

  /** A scheduler whose tasks run when the test says, in virtual time. */
  private static final class ManualScheduler implements RetryScheduler {
    final ArrayDeque<FutureTask<?>> tasks = new ArrayDeque<>();
    final ArrayDeque<Long> delays = new ArrayDeque<>();

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
      FutureTask<?> future = new FutureTask<>(task, null);
      tasks.add(future);
      delays.add(delayNanos);
      return future;
    }

    /** Runs the next task (a cancelled one does nothing) after its delay; false if none is pending. */
    boolean runNext(long[] now) {
      FutureTask<?> task = tasks.poll();
      if (task == null) {
        return false;
      }
      now[0] += delays.poll();
      task.run();
      return true;
    }
  }

  @Property(tries = 400)
  void theAsyncLoopHoldsARetriedResultUntilItsRetryStarts(
      @ForAll @Size(min = 1, max = 5) List<Outcome> outcomes,
      @ForAll @Size(min = 1, max = 4) List<Interlude> waits,
      @ForAll @IntRange(min = 0, max = 5) int cancelWhileAttemptInFlight,
      @ForAll boolean cancellableStages) {
    long[] now = {0};
    NanoClock clock = () -> now[0];
    CircuitBreaker breaker = breaker(clock);
    Ledger ledger = new Ledger();
    ManualScheduler scheduler = new ManualScheduler();
    AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(policy(clock, breaker, nanos -> { }), scheduler);
    List<CompletableFuture<String>> stages = new ArrayList<>();
    AsyncAttempt<String> attempt = new AsyncAttempt<>() {
      @Override
      public CompletionStage<String> start(AttemptContext context) {
        ledger.begin();
        CompletableFuture<String> stage = new CompletableFuture<>();
        stages.add(stage);
        return cancellableStages ? stage : stage.minimalCompletionStage();
      }

      @Override
      public void discard(String result) {
        ledger.discard(result);
      }
    };
    CompletableFuture<String> call = RetryLoops.async(executor, attempt, JUDGE);
    boolean cancelled = false;
    int answered = 0;
    int waited = 0;
    for (int step = 0; step < 40; step++) {
      if (stages.size() > answered) {
        CompletableFuture<String> stage = stages.get(answered++);
        if (answered == cancelWhileAttemptInFlight) {
          cancelled |= call.cancel(true);
          ledger.ended |= call.isDone();
        }
        String result;
        try {
          result = ledger.answer(outcomes.get(ledger.attempts % outcomes.size()));
        } catch (IOException failure) {
          stage.completeExceptionally(failure);
          ledger.ended |= call.isDone();
          continue;
        }
        if (!stage.complete(result)) {
          ledger.produced.remove(result); // the stage was cancelled first: the loop never saw this result
          ledger.lastProduced = null;
        }
        ledger.ended |= call.isDone();
        continue;
      }
      if (scheduler.tasks.isEmpty()) {
        break;
      }
      switch (waits.get(waited++ % waits.size())) {
        case TRIP_BREAKER -> trip(breaker);
        case CANCEL, INTERRUPT -> {
          cancelled |= call.cancel(true);
          ledger.ended |= call.isDone();
        }
        default -> { }
      }
      scheduler.runNext(now);
      ledger.ended |= call.isDone();
    }
    assertThat(call).as("the call ended").isDone();
    ledger.ended = true;
    String delivered = cancelled || call.isCompletedExceptionally() ? null : call.join();
    ledger.assertCustody(delivered);
    if (!cancelled && ledger.lastProduced != null) {
      assertThat(delivered).as("the call ends with its last result").isSameAs(ledger.lastProduced);
    } else if (!cancelled) {
      assertThat(call).isCompletedExceptionally();
    }
  }
}
