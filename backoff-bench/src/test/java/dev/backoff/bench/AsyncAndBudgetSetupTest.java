package dev.backoff.bench;

import static dev.backoff.bench.BenchmarkSetupTest.paramValues;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The asynchronous, memory and budget benchmarks' setups do what they claim (no timing measured). */
class AsyncAndBudgetSetupTest {

  @Test
  void everyAsyncLibraryRetriesOnceOnTheSchedulerAndSucceeds() throws Exception {
    List<String> libraries = paramValues(AsyncRetryBenchmark.class, "library");
    assertThat(libraries).containsExactly("backoff", "resilience4j", "failsafe");
    for (String library : libraries) {
      AsyncRetryBenchmark benchmark = new AsyncRetryBenchmark();
      benchmark.library = library;
      benchmark.setUp();
      try {
        for (int call = 0; call < 3; call++) {
          assertThat(benchmark.failOnceThenSucceed()).as(library).isEqualTo(FailingTwice.RESULT);
          assertThat(benchmark.attempts).as(library + " attempts").isEqualTo(2);
          assertThat(benchmark.lastAttemptThread.getName()).as(library + " retry thread").isEqualTo("bench-scheduler");
        }
      } finally {
        benchmark.tearDown();
      }
    }
  }

  @Test
  void everyMeasuredCallReallyWaitsForItsRetry() throws Exception {
    for (String library : List.of(AsyncLibraries.BACKOFF, AsyncLibraries.RESILIENCE4J, AsyncLibraries.FAILSAFE,
        AsyncLibraries.BACKOFF_REACTOR, AsyncLibraries.REACTOR_RETRY, AsyncLibraries.BACKOFF_KOTLIN)) {
      PendingRetryMemory.Result result = PendingRetryMemory.measure(library, 2_000);
      assertThat(result.queued()).as(library).isEqualTo(2_000);
    }
  }

  @Test
  void theHedgedMeasurementHasThreeAttemptsInFlightPerCallAndNothingQueued() throws Exception {
    // measureHedged throws unless exactly 3 attempts started per call and no call completed.
    PendingRetryMemory.Result result = PendingRetryMemory.measure(PendingRetryMemory.BACKOFF_HEDGED, 2_000);
    assertThat(result.calls()).isEqualTo(2_000);
    assertThat(result.queued()).isZero();
    assertThat(result.bytes()).isPositive();
  }

  @Test
  void everyDriverInTheMemoryMeasurementRetriesOnTheSchedulerAndSucceeds() throws Exception {
    java.util.concurrent.ScheduledThreadPoolExecutor scheduler = new java.util.concurrent.ScheduledThreadPoolExecutor(1);
    try {
      for (String library : List.of(AsyncLibraries.BACKOFF_REACTOR, AsyncLibraries.REACTOR_RETRY,
          AsyncLibraries.BACKOFF_KOTLIN)) {
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        AsyncLibraries.AsyncInvocation invocation = AsyncLibraries.wrap(library, scheduler, 3,
            java.time.Duration.ofMillis(1), () -> attempts.incrementAndGet() == 1
                ? java.util.concurrent.CompletableFuture.failedFuture(new java.io.IOException("once"))
                : java.util.concurrent.CompletableFuture.completedFuture("ok"));
        assertThat(invocation.start().get(30, java.util.concurrent.TimeUnit.SECONDS)).as(library).isEqualTo("ok");
        assertThat(attempts).as(library + " attempts").hasValue(2);
      }
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void everyReactorOperatorEmitsTheValueOncePerSubscription() throws Exception {
    for (String operator : paramValues(ReactorRetryBenchmark.class, "operator")) {
      ReactorRetryBenchmark benchmark = new ReactorRetryBenchmark();
      benchmark.operator = operator;
      benchmark.setUp();
      List<String> values = new java.util.ArrayList<>();
      benchmark.mono.subscribe(values::add);
      benchmark.mono.subscribe(values::add);
      assertThat(values).as(operator).containsExactly("ok", "ok");
    }
  }

  @Test
  void unknownAsyncLibraryIsNamed() {
    assertThatThrownBy(() -> AsyncLibraries.wrap("polly", null, 2, java.time.Duration.ZERO, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("polly");
  }

  @Test
  void everyBudgetGrantsRetriesWhenFresh() throws Exception {
    for (String name : paramValues(BudgetBenchmark.class, "budget")) {
      BudgetBenchmark benchmark = new BudgetBenchmark();
      benchmark.budget = name;
      benchmark.setUp();
      assertThat(benchmark.callWithOneRetry()).as(name).isTrue();
    }
  }

  @Test
  void theBaselineCountsLikeABudget() {
    RetryBudget baseline = BudgetBenchmark.create(BudgetBenchmark.ATOMIC_BASELINE);
    baseline.onCall();
    baseline.onFailure(FailureClass.TRANSIENT);
    assertThat(baseline.level()).isEqualTo(2);
    assertThat(baseline.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    baseline.onSuccess(1, FailureClass.TRANSIENT);
    assertThat(baseline.level()).isZero();
  }

  @Test
  void theSimulationBenchmarkCountsTheDefaultScenariosEvents() {
    SimulationBenchmark benchmark = new SimulationBenchmark();
    benchmark.clients = 1000; // the default scenario's (JMH sets the @Param, then runs the trial's setup)
    benchmark.scenario();
    SimulationBenchmark.Events counter = new SimulationBenchmark.Events();
    long events = benchmark.defaultScenario(counter).events();
    assertThat(events).isPositive();
    assertThat(counter.events).isEqualTo(events);
    benchmark.defaultScenario(counter);
    assertThat(counter.events).as("same seed, same events").isEqualTo(2 * events);
  }
}
