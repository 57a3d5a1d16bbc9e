package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.ScriptedBudget;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Hedged calls on a fake clock, with every attempt scripted (it succeeds, fails or never answers after some
 * time), a budget answering at random, and the caller cancelling at some point or never.
 */
class HedgingProperties {

  /** One attempt's script: its outcome ("ok", "fail", "never") after {@code millis}. */
  record Script(String outcome, int millis) {}

  @Provide
  Arbitrary<Script> script() {
    return Combinators.combine(Arbitraries.of("ok", "fail", "never"), Arbitraries.integers().between(0, 400))
        .as(Script::new);
  }

  /** The scripted attempts: each starts a future that the scheduler completes as scripted. */
  static final class Scripted implements Supplier<CompletionStage<String>> {
    final FakeScheduler scheduler;
    final List<Script> scripts;
    final List<CompletableFuture<String>> futures = new ArrayList<>();
    int inFlight;
    int maxInFlight;
    boolean startedAfterEnd;
    CompletableFuture<String> call;

    Scripted(FakeScheduler scheduler, List<Script> scripts) {
      this.scheduler = scheduler;
      this.scripts = scripts;
    }

    @Override
    public CompletionStage<String> get() {
      if (call != null && call.isDone()) {
        startedAfterEnd = true;
      }
      int number = futures.size() + 1;
      Script script = scripts.get((number - 1) % scripts.size());
      CompletableFuture<String> future = new CompletableFuture<>();
      futures.add(future);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      future.whenComplete((result, failure) -> inFlight--);
      switch (script.outcome()) {
        case "ok" -> scheduler.schedule(() -> future.complete("ok " + number), script.millis(), TimeUnit.MILLISECONDS);
        case "fail" -> scheduler.schedule(() -> future.completeExceptionally(new IOException("fail " + number)),
            script.millis(), TimeUnit.MILLISECONDS);
        default -> { } // never answers
      }
      return future;
    }
  }

  @Property(tries = 500)
  void hedgedCallsKeepEveryBound(
      @ForAll @IntRange(min = 0, max = 300) int delayMillis,
      @ForAll @IntRange(min = 1, max = 6) int maxAttempts,
      @ForAll @Size(min = 1, max = 6) List<@net.jqwik.api.From("script") Script> scripts,
      @ForAll @Size(min = 1, max = 6) List<Boolean> budgetAnswers,
      @ForAll @IntRange(min = -1, max = 1500) int cancelAtMillis) {
    FakeClock clock = new FakeClock();
    FakeScheduler scheduler = new FakeScheduler(clock);
    boolean[] answers = new boolean[budgetAnswers.size()];
    for (int i = 0; i < answers.length; i++) {
      answers[i] = budgetAnswers.get(i);
    }
    ScriptedBudget budget = ScriptedBudget.answering(answers);
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(maxAttempts)
        .hedging(Hedging.after(Duration.ofMillis(delayMillis)))
        .budget(budget)
        .clock(clock)
        .build();
    Scripted attempts = new Scripted(scheduler, scripts);
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy, scheduler).call(attempts);
    attempts.call = call;

    int startedBeforeCancel = -1;
    if (cancelAtMillis >= 0) {
      scheduler.advance(Duration.ofMillis(cancelAtMillis));
      boolean cancelled = call.cancel(true);
      startedBeforeCancel = attempts.futures.size();
      if (cancelled) {
        // Every attempt is over once cancel has returned: none is left running.
        assertThat(attempts.futures).allMatch(CompletableFuture::isDone);
      }
    }
    scheduler.advance(Duration.ofSeconds(10));

    int started = attempts.futures.size();
    assertThat(started).isBetween(1, maxAttempts);
    assertThat(attempts.maxInFlight).isLessThanOrEqualTo(maxAttempts);
    assertThat(attempts.startedAfterEnd).as("an attempt started after the call ended").isFalse();
    if (startedBeforeCancel >= 0) {
      assertThat(started).as("attempts started after the caller cancelled").isEqualTo(startedBeforeCancel);
    }
    // Every hedge sent was granted by the budget, and every grant sent a hedge.
    assertThat(budget.granted()).isEqualTo(started - 1);
    assertThat(budget.releases()).isZero();
    assertThat(budget.calls()).isLessThanOrEqualTo(1);
    if (call.isDone() && !call.isCompletedExceptionally()) {
      // The winner's result is the call's; every other attempt was cancelled or had ended before.
      String result = call.join();
      int winner = Integer.parseInt(result.substring(3));
      for (int i = 0; i < started; i++) {
        CompletableFuture<String> future = attempts.futures.get(i);
        assertThat(future).isDone();
        if (i + 1 != winner) {
          assertThat(future).as("loser " + (i + 1)).isCompletedExceptionally(); // cancelled, or failed before
        }
      }
    }
    if (call.isDone()) {
      // Nothing is left behind: no attempt in flight, no hedge, no timer.
      assertThat(attempts.futures).allMatch(CompletableFuture::isDone);
    }
    // A call whose attempts all answer must end; one that waits only on silent attempts may not.
    boolean allAnswer = scripts.stream().noneMatch(s -> s.outcome().equals("never"));
    if (allAnswer) {
      assertThat(call).isDone();
    }
  }
}
