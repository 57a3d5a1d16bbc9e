package dev.backoff.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.backoff.ConcurrencyLimiter;
import dev.backoff.RetryHistory;
import dev.backoff.StopReason;
import dev.backoff.testing.ScriptedBudget;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Runs every row of the {@link ConformanceTable} through every driver. */
class ConformanceTest {
  /** The drivers under test; a new driver adds its runner here. */
  static List<DriverRunner> runners() {
    return List.of(new SyncRunner(), new AsyncRunner(), new ReactorRunner(), new FluxRunner(), new KotlinRunner(),
        new FlowRunner(), new GrpcRunner(), new SimRunner());
  }

  @TestFactory
  Stream<DynamicContainer> everyDriverRunsEveryRowTheSameWay() {
    return matrix(runners());
  }

  /**
   * Every row through each of {@code drivers}: a row whose mechanism a driver refuses asserts the refusal; a
   * mechanism its API does not offer is left out (the generated matrix lists it as such).
   */
  static Stream<DynamicContainer> matrix(List<DriverRunner> drivers) {
    return matrix(drivers, row -> true);
  }

  /** As {@link #matrix(List)}, with the rows that pass {@code rows} only. */
  static Stream<DynamicContainer> matrix(List<DriverRunner> drivers, java.util.function.Predicate<Scenario> rows) {
    return drivers.stream().map(runner -> dynamicContainer(runner.name(),
        ConformanceTable.scenarios().stream()
            .filter(rows)
            .filter(scenario -> runner.judgesResults() || !scenario.retriesResults())
            .filter(scenario -> !runner.notOffered().containsKey(scenario.mechanism()))
            .map(scenario -> dynamicTest(scenario.name(), () -> {
              String refusal = refusal(runner, scenario);
              String disagreement = runner.knownDisagreements().get(scenario.name());
              if (refusal == null && disagreement != null) {
                Assumptions.abort("disabled, a known disagreement: " + disagreement);
              }
              if (refusal == null) {
                check(runner, scenario);
              } else {
                checkRefused(runner, scenario, refusal);
              }
            }))));
  }

  /**
   * The part of the message with which {@code runner} refuses {@code scenario}, or null if it runs it: the
   * refusal of the row's mechanism, or of hedging when the row's policy hedges (a row in another column).
   */
  static String refusal(DriverRunner runner, Scenario scenario) {
    String refusal = runner.refusals().get(scenario.mechanism());
    return refusal == null && scenario.hedges() ? runner.refusals().get(Mechanism.HEDGING) : refusal;
  }

  /**
   * Asserts that {@code runner} refuses the row's mechanism with {@code refusal} in its message, before any
   * attempt.
   */
  static void checkRefused(DriverRunner runner, Scenario scenario, String refusal) {
    Trial trial = new Trial(scenario);
    Throwable thrown;
    try {
      DriverRunner.Outcome outcome = runner.run(trial);
      thrown = outcome.failure();
    } catch (Exception e) {
      thrown = e;
    }
    assertThat(thrown).as("the refusal of %s", scenario.hedges() ? "hedging" : scenario.mechanism().title)
        .isInstanceOfAny(IllegalArgumentException.class, IllegalStateException.class)
        .hasMessageContaining(refusal);
    assertThat(trial.attempts()).as("attempts").isZero();
    assertSlotsGivenBack(trial);
  }

  /** Once the other call gave its slots back, the row's concurrency limiter (if any) has nothing in flight. */
  static void assertSlotsGivenBack(Trial trial) {
    ConcurrencyLimiter limiter = trial.releaseHeldSlots();
    if (limiter != null) {
      assertThat(limiter.inFlight()).as("attempts in flight on %s after the call", limiter).isZero();
    }
  }

  /** Runs one row through one driver and asserts everything the row expects. */
  static void check(DriverRunner runner, Scenario scenario) throws Exception {
    Trial trial = new Trial(scenario);
    DriverRunner.Outcome outcome = runner.run(trial);
    StopReason stop = scenario.stop() == Scenario.CALLER ? runner.callerStop()
        : scenario.stop() == StopReason.ABORTED ? runner.abortStop() : scenario.stop();
    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(trial.attempts()).as("attempts").isEqualTo(scenario.attempts());
    if (runner.virtualTime()) {
      softly.assertThat(trial.waits()).as("waits between attempts").isEqualTo(scenario.waits());
      if (scenario.attempts() > 0) {
        softly.assertThat(trial.firstAttemptAt()).as("first attempt's start")
            .isEqualTo(roundUp(scenario.firstAttemptAt(), runner.timerResolution()));
      }
    } else {
      List<Duration> waits = trial.waits();
      softly.assertThat(waits).as("waits between attempts (real time)").hasSameSizeAs(scenario.waits());
      // Between arrivals only when each attempt was answered before the next started: not a hedge, nor an
      // attempt that never answers (its timeout ran from its start, before it reached the server).
      boolean answeredFirst = scenario.mechanism() != Mechanism.HEDGING && scenario.cancelledAttempts() == 0;
      for (int i = 0; answeredFirst && i < Math.min(waits.size(), scenario.waits().size()); i++) {
        softly.assertThat(waits.get(i)).as("wait %d, at least the expected one", i + 1)
            .isGreaterThanOrEqualTo(scenario.waits().get(i));
      }
      // Each arrival at least the expected waits after the call's start (the trial's clock starts before it).
      List<Duration> arrivals = trial.arrivals();
      Duration earliest = scenario.firstAttemptAt();
      for (int i = 0; i < arrivals.size(); i++) {
        if (i > 0 && i <= scenario.waits().size()) {
          earliest = earliest.plus(scenario.waits().get(i - 1));
        }
        softly.assertThat(arrivals.get(i)).as("attempt %d's arrival, at least the expected time", i + 1)
            .isGreaterThanOrEqualTo(earliest);
      }
    }
    softly.assertThat(trial.scheduled()).as("delays scheduled").isEqualTo(scenario.scheduled());
    softly.assertThat(trial.ends()).as("how listeners heard the call end").isEqualTo(scenario.attempts() == 0
        ? List.of() : List.of(Trial.end(stop, scenario.attempts()))); // a call refused before its first attempt: none
    if (runner.seesCancelledAttempts()) {
      softly.assertThat(trial.cancelledAttempts()).as("attempts that never complete, cancelled by the driver")
          .isEqualTo(scenario.cancelledAttempts());
    }
    if (scenario.budgetLog() != null) {
      softly.assertThat(((ScriptedBudget) trial.budget()).log()).as("what the budget heard")
          .isEqualTo(scenario.budgetLog());
    }
    if (scenario.recoveries() != null) {
      softly.assertThat(trial.recoveries()).as("what the recovery heard")
          .isEqualTo(Collections.nCopies(scenario.recoveries(), Trial.end(stop, scenario.attempts())));
    }
    if (scenario.result() != null) {
      softly.assertThat(outcome.failure()).as("failure").isNull();
      softly.assertThat(outcome.result()).as("result").isEqualTo(scenario.result());
    } else if (scenario.failure() != null) {
      softly.assertThat(outcome.result()).as("result").isNull();
      Throwable failure = outcome.failure();
      softly.assertThat(failure).as("failure").isNotNull();
      if (failure != null) {
        softly.assertThat(runner.failureMessage(failure)).as("failure's message").isEqualTo(scenario.failure());
      }
      if (failure != null && runner.failsWithHistory() && scenario.attempts() == 0) {
        softly.assertThat(runner.history(failure)).as("history of a call refused before its first attempt").isNull();
      } else if (failure != null && runner.failsWithHistory()) {
        RetryHistory history = runner.history(failure);
        softly.assertThat(history).as("history").isNotNull();
        if (history != null) {
          softly.assertThat(history.attempts()).as("history's attempts").isEqualTo(scenario.attempts());
          softly.assertThat(history.stopReason()).as("history's stop reason").isEqualTo(stop);
        }
        softly.assertThat(Arrays.stream(runner.earlierFailures(failure)).filter(t -> !(t instanceof RetryHistory)))
            .as("earlier failures, suppressed").hasSize(Math.max(0, scenario.attempts() - 1));
      }
    } else {
      softly.assertThat(outcome.result()).as("result after the caller stopped the call").isNull();
    }
    ConcurrencyLimiter limiter = trial.releaseHeldSlots();
    if (limiter != null) {
      softly.assertThat(limiter.inFlight()).as("attempts in flight on %s after the call", limiter).isZero();
    }
    softly.assertAll();
  }

  /** {@code duration} rounded up to a whole multiple of {@code resolution}. */
  static Duration roundUp(Duration duration, Duration resolution) {
    long step = resolution.toNanos();
    return Duration.ofNanos((duration.toNanos() + step - 1) / step * step);
  }

  /** What a test's runner does with a trial. */
  @FunctionalInterface
  interface Run {
    DriverRunner.Outcome run(Trial trial) throws Exception;
  }

  /** A runner of {@code name} that runs each trial with {@code run}: a driver that breaks a rule, in a test. */
  static DriverRunner named(String name, Run run) {
    return new DriverRunner() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Outcome run(Trial trial) throws Exception {
        return run.run(trial);
      }
    };
  }

  /** Asserts that {@code runner} fails {@code row}, the failure naming {@code what}. */
  static void assertFailsTheTable(DriverRunner runner, Scenario row, String what) {
    assertThatThrownBy(() -> check(runner, row)).isInstanceOf(AssertionError.class).hasMessageContaining(what);
  }

  @Test
  void aDriverThatDoesNotWaitFailsTheTable() {
    DriverRunner impatient = named("impatient", trial -> {
      // Sleeps without moving time: the waits between attempts come out zero.
      dev.backoff.RetryExecutor<String> executor = dev.backoff.RetryExecutor.of(
          trial.policy(new dev.backoff.testing.FakeClock())).withSleeper(nanos -> { });
      return DriverRunner.Outcome.of(executor.call(trial::attempt));
    });
    Scenario failTwice = ConformanceTable.scenarios().get(0);
    assertFailsTheTable(impatient, failTwice, "waits between attempts");
  }

  @Test
  void aDriverThatKeepsAConcurrencySlotFailsTheTable() {
    DriverRunner hoarder = named("hoarder", trial -> {
      DriverRunner.Outcome outcome = new AsyncRunner().run(trial);
      // A slot taken beside the call and never given back, as a driver losing an attempt's permit would.
      trial.releaseHeldSlots().tryAcquire(dev.backoff.ConcurrencyLimiter.AttemptKind.FIRST);
      return outcome;
    });
    Scenario lone = ConformanceTable.scenarios().stream()
        .filter(row -> row.mechanism() == Mechanism.CONCURRENCY && row.heldSlots() == 0).findFirst().orElseThrow();
    assertFailsTheTable(hoarder, lone, "attempts in flight");
  }

  @Test
  void aDriverThatRetriesOnceMoreFailsTheTable() {
    DriverRunner oneMore = named("one more", trial -> {
      DriverRunner.Outcome outcome = new SyncRunner().run(trial);
      try {
        trial.attempt(); // an attempt of its own after the engine stopped
      } catch (IllegalArgumentException expected) {
        // the row's script answers it with its abort
      }
      return outcome;
    });
    Scenario abort = ConformanceTable.scenarios().get(4);
    assertThat(abort.stop()).isEqualTo(StopReason.ABORTED);
    assertFailsTheTable(oneMore, abort, "attempts");
  }
}
