package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.CircuitBreaker;
import dev.backoff.FailureClass;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The policy grammar's suffixes: +budget, +breaker, +adaptive and +hedge, good and bad. */
class PolicySpecSuffixTest {

  @Test
  void aBareBreakerTakesTheDocumentedDefaults() {
    PolicySpec spec = PolicySpec.parse("full-jitter+breaker");
    assertThat(spec.base()).isEqualTo("full-jitter");
    assertThat(spec.withBudget()).isFalse();
    assertThat(spec.breaker()).isEqualTo(new PolicySpec.Breaker(50, 20, 0, 30_000_000_000L, 3));
    assertThat(spec.breaker()).isEqualTo(PolicySpec.Breaker.DEFAULT);
    assertThat(spec.adaptive()).isNull();
    assertThat(spec.hedge()).isNull();
  }

  @Test
  void breakerParametersInOrderWithEmptyOnesDefaulted() {
    assertThat(PolicySpec.parse("fixed+breaker:25%:40:1m:5").breaker())
        .isEqualTo(new PolicySpec.Breaker(25, 40, 0, 60_000_000_000L, 5));
    assertThat(PolicySpec.parse("fixed+breaker:75").breaker())
        .isEqualTo(new PolicySpec.Breaker(75, 20, 0, 30_000_000_000L, 3));
    assertThat(PolicySpec.parse("fixed+breaker::50").breaker())
        .isEqualTo(new PolicySpec.Breaker(50, 50, 0, 30_000_000_000L, 3));
    assertThat(PolicySpec.parse("fixed+breaker:50%:10s:5s").breaker())
        .isEqualTo(new PolicySpec.Breaker(50, 0, 10_000_000_000L, 5_000_000_000L, 3));
    assertThat(PolicySpec.parse("fixed+Breaker:12.5%").breaker().failureRatePercent()).isEqualTo(12.5);
  }

  @Test
  void suffixesCombineInAnyOrderEachOnce() {
    PolicySpec spec = PolicySpec.parse(" Full-Jitter+breaker:50%:20:30s+Budget+adaptive:fail+hedge:50ms:2 ");
    assertThat(spec.text()).isEqualTo("Full-Jitter+breaker:50%:20:30s+Budget+adaptive:fail+hedge:50ms:2");
    assertThat(spec.base()).isEqualTo("full-jitter");
    assertThat(spec.withBudget()).isTrue();
    assertThat(spec.breaker()).isEqualTo(PolicySpec.Breaker.DEFAULT);
    assertThat(spec.adaptive()).isEqualTo(new PolicySpec.Adaptive(0));
    assertThat(spec.adaptive().failFast()).isTrue();
    assertThat(spec.hedge()).isEqualTo(new PolicySpec.Hedge(50_000_000L, 2));
    assertThat(PolicySpec.parse("fixed+adaptive").adaptive()).isEqualTo(PolicySpec.Adaptive.DEFAULT);
    assertThat(PolicySpec.parse("fixed+adaptive:wait").adaptive()).isEqualTo(new PolicySpec.Adaptive(Long.MAX_VALUE));
    assertThat(PolicySpec.parse("fixed+adaptive:wait").adaptive().failFast()).isFalse();
    assertThat(PolicySpec.parse("fixed+adaptive:250ms").adaptive()).isEqualTo(new PolicySpec.Adaptive(250_000_000L));
    assertThat(PolicySpec.parse("fixed+hedge:0s").hedge()).isEqualTo(new PolicySpec.Hedge(0, 1));
  }

  @Test
  void badSuffixesAreNamedWithThePolicy() {
    assertBad("fixed+budget+budget", "bad policy 'fixed+budget+budget': +budget is given twice");
    assertBad("fixed+breaker+breaker:10", "bad policy 'fixed+breaker+breaker:10': +breaker is given twice");
    assertBad("fixed+budget:grpc", "bad policy 'fixed+budget:grpc': +budget takes no parameters (the budget "
        + "itself is set where the policy is used, such as the simulator's budget key)");
    assertBad("fixed+", "bad policy 'fixed+': unknown suffix '+'; use +budget, "
        + "+breaker[:rate%:window:wait:trials], +adaptive[:wait|fail|max-wait], +hedge:delay|pNN[:max-hedges][:key=value...], "
        + "+concurrency[:gradient|aimd|fixed=n][:key=value...]");
    assertBad("fixed+breaker:150%", "bad policy 'fixed+breaker:150%': breaker failure rate '150%': out of range (0..100]%");
    assertBad("fixed+breaker:0", "bad policy 'fixed+breaker:0': breaker failure rate '0': out of range (0..100]%");
    assertBad("fixed+breaker:half", "bad policy 'fixed+breaker:half': breaker failure rate 'half': not a percentage");
    assertBad("fixed+breaker:50%:0", "bad policy 'fixed+breaker:50%:0': breaker window '0': out of range (1..1000000)");
    assertBad("fixed+breaker:50%:ten", "bad policy 'fixed+breaker:50%:ten': breaker window 'ten': neither a number "
        + "of calls nor a duration ('ten' is not a duration; write e.g. 250ms, 1s, 1.5s, 2m, 1m30s, 1h, 1d or "
        + "ISO-8601 like PT1S)");
    assertBad("fixed+breaker:50%:5ms", "bad policy 'fixed+breaker:50%:5ms': breaker window '5ms': a time window "
        + "must be at least 10ms");
    assertBad("fixed+breaker:50%:20:30", "bad policy 'fixed+breaker:50%:20:30': breaker wait '30': '30' has no "
        + "unit; write 30s (or ms, m, h, ...)");
    assertBad("fixed+breaker:50%:20:30s:0", "bad policy 'fixed+breaker:50%:20:30s:0': breaker trials '0': out of "
        + "range (1..10000)");
    assertBad("fixed+breaker:1:2:3s:4:5", "bad policy 'fixed+breaker:1:2:3s:4:5': +breaker takes at most 4 "
        + "parameters (+breaker[:rate%:window:wait:trials])");
    assertBad("fixed+adaptive:sometimes", "bad policy 'fixed+adaptive:sometimes': adaptive max-wait 'sometimes': "
        + "use wait, fail or a duration ('sometimes' is not a duration; write e.g. 250ms, 1s, 1.5s, 2m, 1m30s, 1h, "
        + "1d or ISO-8601 like PT1S)");
    assertBad("fixed+adaptive:wait:1", "bad policy 'fixed+adaptive:wait:1': +adaptive takes at most 1 parameter "
        + "(+adaptive[:wait|fail|max-wait])");
    assertBad("fixed+hedge", "bad policy 'fixed+hedge': +hedge needs a delay, such as +hedge:50ms");
    assertBad("fixed+hedge::2", "bad policy 'fixed+hedge::2': +hedge needs a delay, such as +hedge:50ms");
    assertBad("fixed+hedge:-5ms", "bad policy 'fixed+hedge:-5ms': hedge delay '-5ms': duration must not be "
        + "negative, was '-5ms'");
    assertBad("fixed+hedge:50ms:11", "bad policy 'fixed+hedge:50ms:11': hedge max-hedges '11': out of range (1..10)");
    assertBad("fixed+hedge:50ms:1.5", "bad policy 'fixed+hedge:50ms:1.5': hedge max-hedges '1.5': not a whole number");
    assertBad("+breaker", "policy '+breaker' names no strategy");
  }

  @Test
  void theBreakerBuilderMakesTheBreakerItDescribes() {
    AtomicLong now = new AtomicLong();
    CircuitBreaker breaker = PolicySpec.parse("fixed+breaker:50%:4:10s:2").breaker().builder()
        .clock(now::get).build();
    // A count window of 4 calls that must all be in: 3 failures do not open it, the 4th call (a success) does,
    // at 75% >= 50%.
    for (int i = 0; i < 3; i++) {
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    }
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    breaker.tryAcquire().onSuccess();
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    now.set(9_999_999_999L);
    assertThat(breaker.tryAcquire()).isNull();
    now.set(10_000_000_000L);
    CircuitBreaker.Permit first = breaker.tryAcquire();
    CircuitBreaker.Permit second = breaker.tryAcquire();
    assertThat(first).isNotNull();
    assertThat(second).isNotNull();
    assertThat(breaker.tryAcquire()).isNull(); // two trials at a time
    first.onSuccess();
    second.onSuccess();
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
  }

  @Test
  void aTimeWindowBreakerCountsFromTenCalls() {
    AtomicLong now = new AtomicLong();
    CircuitBreaker breaker = PolicySpec.parse("fixed+breaker:50%:10s").breaker().builder().clock(now::get).build();
    for (int i = 0; i < 9; i++) {
      breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    }
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT);
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
  }

  @Test
  void theAdaptiveAndHedgeSuffixesBuildTheCoreObjects() {
    dev.backoff.AdaptiveRateLimiter waiting = PolicySpec.parse("fixed+adaptive").adaptive().builder().build();
    assertThat(waiting.maxWait()).isEqualTo(java.time.Duration.ofNanos(Long.MAX_VALUE));
    assertThat(PolicySpec.parse("fixed+adaptive:fail").adaptive().builder().build().maxWait())
        .isEqualTo(java.time.Duration.ZERO);
    assertThat(PolicySpec.parse("fixed+adaptive:2s").adaptive().builder().build().maxWait())
        .isEqualTo(java.time.Duration.ofSeconds(2));
    dev.backoff.Hedging hedging = PolicySpec.parse("fixed+hedge:50ms:2").hedge().hedging();
    assertThat(hedging.delay()).isEqualTo(java.time.Duration.ofMillis(50));
    assertThat(hedging.maxHedges()).isEqualTo(2);
  }

  private static void assertBad(String text, String message) {
    assertThatThrownBy(() -> PolicySpec.parse(text)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }
}
