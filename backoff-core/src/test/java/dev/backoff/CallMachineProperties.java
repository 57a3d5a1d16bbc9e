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
    for (String result : driver.produced) {
      int discarded = (int) driver.discarded.stream().filter(d -> d == result).count();
      assertThat(discarded).as("times %s was discarded (delivered: %s) in %s", result, driver.delivered, trace)
          .isEqualTo(result == driver.delivered ? 0 : 1);
    }
    if (driver.stopped == StopReason.CANCELLED) {
      assertThat(driver.delivered).isNull();
    }
    if (deadlineMillis > 0) { // no wait that ends past the deadline was carried out
      assertThat(driver.now - attemptMillis * 1_000_000L).as("last attempt's start, in %s", trace)
          .isLessThanOrEqualTo(deadlineMillis * 1_000_000L);
    }
  }
}
