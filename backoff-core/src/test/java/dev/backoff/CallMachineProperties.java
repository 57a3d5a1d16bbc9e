package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The call state machine over random calls in virtual time (a scripted mix of failures, retried results and
 * accepted results; a breaker tripped by other calls, or the caller cancelling, during any wait; a deadline or
 * none): every call completes exactly once, no attempt starts after it completed, no more than the policy's
 * attempts start, and every result is the call's outcome or discarded, exactly once.
 */
class CallMachineProperties {
  enum Outcome { FAIL, BUSY, OK }

  enum Interlude { NONE, TRIP_BREAKER, CANCEL }

  @Property(tries = 500)
  void everyCallCompletesOnceWithinItsAttemptsAndResultsHaveOneOwner(
      @ForAll @Size(min = 1, max = 6) List<Outcome> outcomes,
      @ForAll @Size(min = 1, max = 6) List<Interlude> interludes,
      @ForAll @IntRange(min = 1, max = 6) int maxAttempts,
      @ForAll @IntRange(min = 0, max = 80) int deadlineMillis,
      @ForAll @IntRange(min = 0, max = 8) int attemptMillis) {
    VirtualTimeDriver driver = new VirtualTimeDriver();
    CircuitBreaker breaker = CircuitBreaker.builder().countWindow(10).minimumCalls(10)
        .waitInOpen(Duration.ofHours(1)).clock(driver.clock).build();
    RetryPolicy.Builder<String> builder = RetryPolicy.<String>builder().maxAttempts(maxAttempts)
        .backoff(Backoff.fixed(Duration.ofMillis(10))).retryOnResult(r -> r.startsWith("busy"))
        .circuitBreaker(breaker).clock(driver.clock);
    if (deadlineMillis > 0) {
      builder.maxElapsed(Duration.ofMillis(deadlineMillis));
    }
    driver.attemptNanos = attemptMillis * 1_000_000L;
    driver.cancelInWait = attempt -> interludes.get((attempt - 1) % interludes.size()) == Interlude.CANCEL;
    driver.duringWait = attempt -> {
      if (interludes.get((attempt - 1) % interludes.size()) == Interlude.TRIP_BREAKER) {
        for (int i = 0; i < 10; i++) {
          CircuitBreaker.Permit permit = breaker.tryAcquire();
          if (permit != null) {
            permit.onFailure(FailureClass.TRANSIENT);
          }
        }
      }
      return attempt;
    };

    List<String> trace = driver.run(builder.build(), attempt -> switch (outcomes.get((attempt - 1) % outcomes.size())) {
      case FAIL -> throw new IOException("attempt " + attempt);
      case BUSY -> new String("busy-" + attempt);
      case OK -> new String("ok-" + attempt);
    });

    long completions = trace.stream().filter(e -> e.startsWith("complete") || e.startsWith("refused")).count();
    assertThat(completions).as("completions in %s", trace).isEqualTo(1);
    String last = trace.get(trace.size() - 1);
    assertThat(last).as("the completion is the last effect: %s", trace).matches("(complete|refused).*");
    long attempts = trace.stream().filter(e -> e.startsWith("attempt")).count();
    assertThat(attempts).as("attempts in %s", trace).isLessThanOrEqualTo(maxAttempts);
    assertOneOwner(driver.produced, driver.discarded, driver.delivered, driver.stopped, trace);
    if (deadlineMillis > 0) { // no wait that ends past the deadline was carried out
      assertThat(driver.now - attemptMillis * 1_000_000L).as("last attempt's start, in %s", trace)
          .isLessThanOrEqualTo(deadlineMillis * 1_000_000L);
    }
  }

  /** Every result produced is delivered (the call's outcome) or discarded, exactly once; a cancelled call delivers none. */
  private static void assertOneOwner(List<String> produced, List<String> discarded, String delivered,
      StopReason stopped, List<String> trace) {
    for (String result : produced) {
      int times = (int) discarded.stream().filter(d -> d == result).count();
      assertThat(times).as("times %s was discarded (delivered: %s) in %s", result, delivered, trace)
          .isEqualTo(result == delivered ? 0 : 1);
    }
    if (stopped == StopReason.CANCELLED) {
      assertThat(delivered).isNull();
    }
  }

  enum HedgeOutcome { FAIL, BUSY, OK, PUSHBACK, FATAL }

  /**
   * With hedges (several attempts in flight, through {@link HedgingVirtualDriver}): every call completes
   * exactly once, no attempt starts (and no hedge timer fires into the call) after it completed, at most the
   * policy's attempts start, and every result is the call's outcome or discarded, exactly once.
   */
  @Property(tries = 500)
  void withHedgesEveryCallCompletesOnceWithinItsAttemptsAndResultsHaveOneOwner(
      @ForAll @Size(min = 1, max = 6) List<HedgeOutcome> outcomes,
      @ForAll @Size(min = 1, max = 6) List<@IntRange(min = 0, max = 30) Integer> latencies,
      @ForAll @IntRange(min = 1, max = 5) int maxAttempts,
      @ForAll @IntRange(min = 0, max = 20) int delayMillis,
      @ForAll @IntRange(min = 0, max = 60) int deadlineMillis,
      @ForAll @IntRange(min = -1, max = 40) int tripBreakerAt,
      @ForAll @IntRange(min = -1, max = 40) int cancelAt) {
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    CircuitBreaker breaker = CircuitBreaker.builder().countWindow(10).minimumCalls(10)
        .waitInOpen(Duration.ofHours(1)).clock(driver.clock).build();
    RetryPolicy.Builder<String> builder = RetryPolicy.<String>builder().maxAttempts(maxAttempts)
        .backoff(Backoff.fixed(Duration.ofMillis(10))).retryOnResult(r -> r.startsWith("busy"))
        .abortOn(IllegalStateException.class)
        .pushback((result, failure) -> failure != null && failure.getMessage().startsWith("later") ? 7_000_000L
            : Pushback.NONE)
        .hedging(Hedging.after(Duration.ofMillis(delayMillis))).circuitBreaker(breaker).clock(driver.clock);
    if (deadlineMillis > 0) {
      builder.maxElapsed(Duration.ofMillis(deadlineMillis));
    }
    if (tripBreakerAt >= 0) {
      driver.at(tripBreakerAt, () -> {
        for (int i = 0; i < 10; i++) {
          CircuitBreaker.Permit permit = breaker.tryAcquire();
          if (permit != null) {
            permit.onFailure(FailureClass.TRANSIENT);
          }
        }
      });
    }
    if (cancelAt >= 0) {
      driver.cancelAt(cancelAt);
    }

    List<String> trace = driver.run(builder.build(), n -> {
      long millis = latencies.get((n - 1) % latencies.size());
      return switch (outcomes.get((n - 1) % outcomes.size())) {
        case FAIL -> HedgingVirtualDriver.Answer.fail(millis, new IOException("attempt " + n));
        case PUSHBACK -> HedgingVirtualDriver.Answer.fail(millis, new IOException("later " + n));
        case FATAL -> HedgingVirtualDriver.Answer.fail(millis, new IllegalStateException("attempt " + n));
        case BUSY -> HedgingVirtualDriver.Answer.ok(millis, new String("busy-" + n));
        case OK -> HedgingVirtualDriver.Answer.ok(millis, new String("ok-" + n));
      };
    });

    long completions = trace.stream().filter(e -> e.contains(" complete ") || e.contains(" refused ")).count();
    assertThat(completions).as("completions in %s", trace).isEqualTo(1);
    assertThat(trace.get(trace.size() - 1)).as("the completion is the last effect: %s", trace)
        .matches("\\d+ (complete|refused) .*");
    assertThat(trace).as("nothing reaches the call after it completed").noneMatch(e -> e.contains("AFTER COMPLETION"));
    assertThat(driver.started).as("attempts in %s", trace).isLessThanOrEqualTo(maxAttempts);
    assertOneOwner(driver.produced, driver.discarded, driver.delivered, driver.stopped, trace);
    if (deadlineMillis > 0) { // no hedge started past the deadline
      assertThat(trace).as("attempts started past the deadline in %s", trace).noneMatch(e ->
          e.matches("\\d+ attempt \\d+") && Long.parseLong(e.substring(0, e.indexOf(' '))) > deadlineMillis);
    }
  }
}
