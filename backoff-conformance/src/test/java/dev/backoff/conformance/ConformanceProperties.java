package dev.backoff.conformance;

import static java.time.Duration.ofMillis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.RetryHistory;
import dev.backoff.testing.ScriptedRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The table's promise over many generated rows: every driver does exactly what the blocking executor does
 * (attempts, waits, scheduled delays, how listeners hear the end, the caller's result or failure). Jitter
 * draws are multiples of 1/8 and the backoff starts at 800 ms, so every delay is a whole number of
 * milliseconds, which coroutines' {@code delay} waits exactly.
 */
class ConformanceProperties {
  @Property(tries = 60)
  void everyDriverAgreesWithTheBlockingExecutor(
      @ForAll @IntRange(min = 0, max = 6) int failures,
      @ForAll @IntRange(min = 1, max = 6) int maxAttempts,
      @ForAll @Size(min = 1, max = 4) List<@IntRange(min = 0, max = 7) Integer> eighths,
      @ForAll @IntRange(min = 0, max = 12) int deadlineSeconds) throws Exception {
    List<Scenario.Step> script = new ArrayList<>();
    for (int i = 0; i < failures; i++) {
      script.add(ConformanceTable.fail());
    }
    script.add(ConformanceTable.answer("ok"));
    var policy = ConformanceTable.basePolicy().toBuilder()
        .maxAttempts(maxAttempts)
        .backoff(Backoff.exponential(ofMillis(800), 2, Duration.ofSeconds(10), Jitter.full()));
    if (deadlineSeconds > 0) {
      policy.maxElapsed(Duration.ofSeconds(deadlineSeconds));
    }
    // Expectations are not used: the blocking executor's observations are the reference.
    Scenario row = new Scenario("generated", policy.build(), null, script, null, 0, List.of(), List.of(), null,
        null, null, false);
    double[] draws = eighths.stream().mapToDouble(e -> e / 8.0).toArray();

    Observed reference = observe(new SyncRunner(), row, draws);
    for (DriverRunner runner : ConformanceTest.runners()) {
      assertThat(observe(runner, row, draws)).as(runner.name()).isEqualTo(reference);
    }
  }

  /**
   * The fifth attempt starts exactly at the deadline (waits 0.6 + 1.2 + 2.4 + 4.8 s = 9 s): every driver lets it
   * answer, as the blocking executor does; the gRPC attempt's token millisecond of deadline must not end it.
   */
  @Example
  void anAttemptStartedAtTheDeadlineIsAnsweredByEveryDriver() throws Exception {
    everyDriverAgreesWithTheBlockingExecutor(4, 5, List.of(6), 9);
  }

  private static Observed observe(DriverRunner runner, Scenario row, double[] draws) throws Exception {
    Trial trial = new Trial(row, () -> new ScriptedRandom(draws));
    DriverRunner.Outcome outcome = runner.run(trial);
    Throwable failure = outcome.failure();
    // The failure as its driver delivers it (gRPC: a status whose description is the script's message).
    RetryHistory history = failure == null ? null : runner.history(failure);
    return new Observed(trial.attempts(), trial.waits(), trial.scheduled(), trial.ends(), outcome.result(),
        failure == null ? null : runner.failureMessage(failure),
        history == null ? null : history.stopReason() + " after " + history.attempts());
  }

  /** Everything compared, as a value. */
  record Observed(int attempts, List<Duration> waits, List<Duration> scheduled, List<String> ends, String result,
      String failure, String history) {}
}
