package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** Every bad argument is refused at once, with a message naming the parameter and the value. */
class ValidationTest {
  private static final Duration NEGATIVE = Duration.ofMillis(-5);
  private static final Duration ONE = Duration.ofSeconds(1);

  private static void rejects(ThrowingCallable call, String parameter, String value) {
    assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(parameter).hasMessageContaining(value);
  }

  private static void rejectsNull(ThrowingCallable call, String parameter) {
    assertThatThrownBy(call).isInstanceOf(NullPointerException.class).hasMessageContaining(parameter);
  }

  @Test
  void fixedAndLinear() {
    rejects(() -> Backoff.fixed(NEGATIVE), "delay", "PT-0.005S");
    rejectsNull(() -> Backoff.fixed(null), "delay");
    rejectsNull(() -> Backoff.fixed(ONE, null), "jitter");
    rejects(() -> Backoff.linear(Duration.ZERO, ONE, ONE), "initial", "PT0S");
    rejects(() -> Backoff.linear(ONE, NEGATIVE, ONE), "increment", "PT-0.005S");
    rejects(() -> Backoff.linear(ONE, ONE, Duration.ZERO), "cap", "PT0S");
    rejects(() -> Backoff.linear(ONE, ONE, Duration.ofMillis(999)), "cap", "PT0.999S");
    rejectsNull(() -> Backoff.linear(ONE, null, ONE), "increment");
    rejectsNull(() -> Backoff.linear(ONE, ONE, ONE, null), "jitter");
  }

  @Test
  void exponential() {
    rejects(() -> Backoff.exponential(NEGATIVE, 2, ONE), "initial", "PT-0.005S");
    rejects(() -> Backoff.exponential(Duration.ZERO, 2, ONE), "initial", "PT0S");
    rejects(() -> Backoff.exponential(ONE, 0.99, Duration.ofSeconds(5)), "multiplier", "0.99");
    rejects(() -> Backoff.exponential(ONE, -2, Duration.ofSeconds(5)), "multiplier", "-2.0");
    rejects(() -> Backoff.exponential(ONE, Double.NaN, Duration.ofSeconds(5)), "multiplier", "NaN");
    rejects(() -> Backoff.exponential(ONE, Double.POSITIVE_INFINITY, Duration.ofSeconds(5)), "multiplier",
        "Infinity");
    rejects(() -> Backoff.exponential(Duration.ofSeconds(2), 2, ONE), "cap", "PT1S");
    rejects(() -> Backoff.exponential(ONE, 2, NEGATIVE), "cap", "PT-0.005S");
    rejectsNull(() -> Backoff.exponential(null, 2, ONE), "initial");
    rejectsNull(() -> Backoff.exponential(ONE, 2, null), "cap");
    rejectsNull(() -> Backoff.exponential(ONE, 2, ONE, null), "jitter");
  }

  @Test
  void decorrelatedAndGoogle() {
    rejects(() -> Backoff.decorrelated(Duration.ZERO, ONE), "base", "PT0S");
    rejects(() -> Backoff.decorrelated(Duration.ofSeconds(2), ONE), "cap must be at least base", "PT1S");
    rejects(() -> Backoff.decorrelatedV2(NEGATIVE, ONE), "medianFirstDelay", "PT-0.005S");
    rejects(() -> Backoff.decorrelatedV2(Duration.ofSeconds(2), ONE), "cap must be at least medianFirstDelay",
        "PT1S");
    rejects(() -> Backoff.googleCloud(Duration.ZERO), "maximumBackoff", "PT0S");
    rejectsNull(() -> Backoff.googleCloud(null), "maximumBackoff");
  }

  @Test
  void policyBuilder() {
    RetryPolicy.Builder<Object> builder = RetryPolicy.builder();
    rejects(() -> builder.maxAttempts(0), "maxAttempts", "0");
    rejects(() -> builder.maxAttempts(-3), "maxAttempts", "-3");
    rejects(() -> builder.maxElapsed(Duration.ZERO), "maxElapsed", "PT0S");
    rejects(() -> builder.maxElapsed(NEGATIVE), "maxElapsed", "PT-0.005S");
    rejects(() -> builder.maxPushback(NEGATIVE), "maxPushback", "PT-0.005S");
    rejects(() -> builder.maxSuppressed(-1), "maxSuppressed", "-1");
    rejects(() -> builder.name("  "), "name", "'  '");
    rejectsNull(() -> builder.name(null), "name");
    rejectsNull(() -> builder.maxElapsed(null), "maxElapsed");
    rejectsNull(() -> builder.backoff(null), "backoff");
    rejectsNull(() -> builder.backoff(null, Backoff.none()), "failureClass");
    rejectsNull(() -> builder.backoff(FailureClass.THROTTLED, null), "backoff");
    rejectsNull(() -> builder.retryOn((Class<? extends Throwable>) null), "retryOn type");
    rejectsNull(() -> builder.retryOn((Class<? extends Throwable>[]) null), "retryOn types");
    rejectsNull(() -> builder.abortOn((Class<? extends Throwable>) null), "abortOn type");
    rejectsNull(() -> builder.retryIf(null), "retryIf predicate");
    rejectsNull(() -> builder.abortIf(null), "abortIf predicate");
    rejectsNull(() -> builder.retryOnResult(null), "retryOnResult predicate");
    rejectsNull(() -> builder.classifyFailures(null), "failure classifier");
    rejectsNull(() -> builder.classifyResults(null), "result classifier");
    rejectsNull(() -> builder.pushback(null), "pushback extractor");
    rejectsNull(() -> builder.listener(null), "listener");
    rejectsNull(() -> builder.clock(null), "clock");
    rejectsNull(() -> builder.sleeper(null), "sleeper");
    rejectsNull(() -> builder.random(null), "random");
    // a failed setter leaves the builder usable and unchanged
    assertThat(builder.build().maxAttempts()).isEqualTo(3);
  }

  @Test
  void othersNameTheirParameter() {
    rejects(() -> Pushback.after(NEGATIVE), "pushback delay", "PT-0.005S");
    rejects(() -> FailureClass.of(" "), "failure class name", "' '");
    rejectsNull(() -> FailureClass.of(null), "failure class name");
    rejectsNull(() -> RetryExecutor.of(null), "policy");
    RetryExecutor<Object> executor = RetryExecutor.of(RetryPolicy.defaults());
    rejectsNull(() -> executor.call(null), "callable");
    rejectsNull(() -> executor.run(null), "runnable");
    rejectsNull(() -> executor.decorate(null), "callable");
    rejectsNull(() -> executor.withClock(null), "clock");
    rejectsNull(() -> executor.withSleeper(null), "sleeper");
    rejectsNull(() -> executor.withRandom(null), "random");
    rejectsNull(() -> RetryPolicy.defaults().newExecution(0, null), "random");
    rejectsNull(() -> RetryListener.logging(null), "logger");
  }
}
