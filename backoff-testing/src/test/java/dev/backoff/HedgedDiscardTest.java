package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * A hedged call holds a retried result while the call may still end with it: the caller gets it intact (never
 * discarded), and every result nobody reads is discarded exactly once.
 */
class HedgedDiscardTest {

  /** Attempts completed by hand, recording every discard. */
  static final class Attempts implements AsyncAttempt<String> {
    final List<CompletableFuture<String>> futures = new ArrayList<>();
    final List<String> discarded = new ArrayList<>();

    @Override
    public synchronized CompletionStage<String> start(AttemptContext context) {
      CompletableFuture<String> future = new CompletableFuture<>();
      futures.add(future);
      return future;
    }

    @Override
    public synchronized void discard(String result) {
      discarded.add(result);
    }

    synchronized CompletableFuture<String> attempt(int number) {
      return futures.get(number - 1);
    }

    synchronized int count() {
      return futures.size();
    }

    synchronized List<String> discards() {
      return new ArrayList<>(discarded);
    }
  }

  /** Results starting with "503" are retried (at once, a new hedge), all others accepted. */
  private static final OutcomeJudge<String> JUDGE = (policy, result, failure) ->
      failure != null || result.startsWith("503") ? Verdict.retryable(0) : Verdict.ACCEPT;

  private final FakeClock clock = new FakeClock(0);
  private final FakeScheduler scheduler = new FakeScheduler(clock);

  private RetryPolicy.Builder<String> policy(int maxAttempts) {
    return RetryPolicy.<String>builder()
        .name("hedged")
        .maxAttempts(maxAttempts)
        .hedging(Hedging.after(Duration.ofMillis(100)))
        .clock(clock);
  }

  private CompletableFuture<String> call(RetryPolicy<String> policy, Attempts attempts) {
    return RetryLoops.async(AsyncRetryExecutor.of(policy, scheduler), attempts, JUDGE);
  }

  @Example
  void attemptsRunOutOnRetryableResults_theCallerGetsTheLastOneNeverDiscarded() throws Exception {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = call(policy(3).build(), attempts);
    scheduler.advance(Duration.ofMillis(200)); // three attempts in flight
    assertThat(attempts.count()).isEqualTo(3);

    attempts.attempt(2).complete("503-b");
    assertThat(attempts.discards()).isEmpty(); // held: the call may still end with it
    attempts.attempt(1).complete("503-a");
    assertThat(attempts.discards()).containsExactly("503-b"); // replaced by a newer retried result
    assertThat(call).isNotDone();
    attempts.attempt(3).complete("503-c");

    assertThat(call.get()).isEqualTo("503-c");
    assertThat(attempts.discards()).containsExactly("503-b", "503-a");
  }

  @Example
  void aHedgeRefusedByTheBudgetAfterARetryableResult_theCallerGetsThatResult() throws Exception {
    Attempts attempts = new Attempts();
    ScriptedBudget budget = ScriptedBudget.refusing();
    CompletableFuture<String> call = call(policy(3).budget(budget).build(), attempts);

    attempts.attempt(1).complete("503-a");
    scheduler.runDue(); // the hedge after the retryable result: refused by the budget
    assertThat(budget.log()).contains("acquire transient refused");

    assertThat(attempts.count()).isEqualTo(1);
    assertThat(call.get()).isEqualTo("503-a");
    assertThat(attempts.discards()).isEmpty();
  }

  @Example
  void aLaterFailureReplacesAHeldResult_itIsDiscardedAndTheCallFails() {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = call(policy(2).build(), attempts);
    scheduler.advance(Duration.ofMillis(100));
    assertThat(attempts.count()).isEqualTo(2);

    attempts.attempt(1).complete("503-a");
    assertThat(attempts.discards()).isEmpty();
    IOException reset = new IOException("reset");
    attempts.attempt(2).completeExceptionally(reset);

    assertThatThrownBy(call::get).isInstanceOf(ExecutionException.class).hasCause(reset);
    assertThat(attempts.discards()).containsExactly("503-a");
  }

  @Example
  void aWinnerAfterAHeldResult_theHeldOneIsDiscarded() throws Exception {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = call(policy(3).build(), attempts);
    scheduler.advance(Duration.ofMillis(100));

    attempts.attempt(1).complete("503-a");
    attempts.attempt(2).complete("200");

    assertThat(call.get()).isEqualTo("200");
    assertThat(attempts.discards()).containsExactly("503-a");
  }

  @Example
  void cancellingTheCallDiscardsTheHeldResult() {
    Attempts attempts = new Attempts();
    CompletableFuture<String> call = call(policy(3).build(), attempts);
    scheduler.advance(Duration.ofMillis(100));
    attempts.attempt(1).complete("503-a");
    assertThat(attempts.discards()).isEmpty();

    assertThat(call.cancel(false)).isTrue();
    assertThat(attempts.discards()).containsExactly("503-a");
    assertThat(attempts.attempt(2)).isCancelled();
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(attempts.count()).isEqualTo(2); // no further attempt
    assertThat(attempts.discards()).containsExactly("503-a"); // once
  }

  /**
   * Random interleavings: attempts answer (a retryable result, a failure, or an accepted result) in a random
   * order, hedges fire between them, and the caller may cancel at any step. Every result is discarded at most
   * once, the delivered one never, and every other one exactly once.
   */
  @Property(tries = 300)
  void everyResultIsDiscardedAtMostOnceAndTheDeliveredOneNever(
      @ForAll @IntRange(min = 1, max = 4) int maxAttempts,
      @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 0, max = 19) Integer> steps) {
    FakeClock clock = new FakeClock(0);
    FakeScheduler scheduler = new FakeScheduler(clock);
    Attempts attempts = new Attempts();
    RetryPolicy<String> policy = RetryPolicy.<String>builder().name("hedged").maxAttempts(maxAttempts)
        .hedging(Hedging.after(Duration.ofMillis(100))).clock(clock).build();
    CompletableFuture<String> call = RetryLoops.async(AsyncRetryExecutor.of(policy, scheduler), attempts, JUDGE);
    List<String> produced = new ArrayList<>();
    int n = 0;
    for (int step : steps) {
      if (call.isDone() && n > 0) {
        break;
      }
      n++;
      if (step < 4) {
        scheduler.advance(Duration.ofMillis(100)); // a hedge may start
        continue;
      }
      if (step == 19) {
        call.cancel(false);
        continue;
      }
      List<CompletableFuture<String>> open = new ArrayList<>();
      synchronized (attempts) {
        for (CompletableFuture<String> f : attempts.futures) {
          if (!f.isDone()) {
            open.add(f);
          }
        }
      }
      if (open.isEmpty()) {
        continue;
      }
      CompletableFuture<String> target = open.get(step % open.size());
      String result = (step < 14 ? "503-" : step < 18 ? "fail-" : "200-") + produced.size();
      if (result.startsWith("fail")) {
        target.completeExceptionally(new IOException(result));
      } else {
        produced.add(result);
        target.complete(result);
      }
    }
    // Let the call end: every open attempt answers a retryable result, hedges fire until none is left.
    for (int guard = 0; guard < 50 && !call.isDone(); guard++) {
      scheduler.advance(Duration.ofMillis(100));
      List<CompletableFuture<String>> open = new ArrayList<>();
      synchronized (attempts) {
        for (CompletableFuture<String> f : attempts.futures) {
          if (!f.isDone()) {
            open.add(f);
          }
        }
      }
      for (CompletableFuture<String> f : open) {
        String result = "503-" + produced.size();
        produced.add(result);
        f.complete(result);
      }
    }
    assertThat(call).isDone();
    String delivered = null;
    if (!call.isCancelled() && !call.isCompletedExceptionally()) {
      delivered = call.join();
    }
    List<String> discards = attempts.discards();
    Map<String, Integer> counts = new HashMap<>();
    for (String d : discards) {
      counts.merge(d, 1, Integer::sum);
    }
    for (String result : produced) {
      int times = counts.getOrDefault(result, 0);
      if (result.equals(delivered)) {
        assertThat(times).as("the delivered result %s was discarded", result).isZero();
      } else {
        assertThat(times).as("discards of %s in %s (delivered %s)", result, discards, delivered).isEqualTo(1);
      }
    }
    assertThat(counts.keySet()).isSubsetOf(produced);
    if (call.isCancelled()) {
      assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
    }
  }
}
