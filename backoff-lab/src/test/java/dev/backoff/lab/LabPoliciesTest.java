package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.RetryPolicy;
import dev.backoff.testing.ScriptedRandom;
import org.junit.jupiter.api.Test;

class LabPoliciesTest {
  private static RetryPolicy<Object> policy(String name) {
    return LabPolicies.named(name).build();
  }

  @Test
  void theExperimentsClientsRetryWithoutLimit() {
    RetryPolicy<Object> fixed = policy("storm-fixed");
    assertThat(fixed.maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    assertThat(fixed.backoff().delayNanos(7, 0, 0, new ScriptedRandom(0.9))).isEqualTo(100_000_000L);
    RetryPolicy<Object> exponential = policy("storm-exponential");
    assertThat(exponential.maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    assertThat(exponential.name()).isEqualTo("storm-exponential");
    assertThat(exponential.backoff().toString())
        .isEqualTo(dev.backoff.spec.ExperimentPolicies.backoff("storm-exponential").toString());
    assertThat(exponential.budget()).isNull();
  }

  @Test
  void exponentialFullJitterStaysUnderTheSeedsCurve() {
    RetryPolicy<Object> policy = policy("exponential-full-jitter");
    // Retry 3 of 100 ms × e^(n−1), full jitter at u = 0.5: half of 100 ms × e².
    long delay = policy.backoff().delayNanos(3, 0, 0, new ScriptedRandom(0.5));
    assertThat(delay).isBetween((long) (50_000_000L * Math.E * Math.E) - 1, (long) (50_000_000L * Math.E * Math.E) + 1);
  }

  @Test
  void strategiesAndPresetsAsTheSimulatorNamesThem() {
    // A bare strategy has the library's default attempt limit here as everywhere; the experiment's have none.
    assertThat(policy("full-jitter").maxAttempts()).isEqualTo(3);
    assertThat(policy("storm-fixed").maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    assertThat(policy("aws-standard").maxAttempts()).isEqualTo(3);
    assertThat(LabPolicies.names()).startsWith("storm-fixed", "storm-exponential", "storm-exponential-full-jitter")
        .contains("full-jitter", "aws-standard", "exponential");
    // One meaning per name: exponential is the generic strategy, full-jitter capped at 20 s, as in the simulator.
    assertThat(policy("exponential").backoff().toString())
        .isEqualTo(dev.backoff.spec.BackoffSpec.of("exponential").toBackoff().toString());
    assertThat(policy("full-jitter").backoff().maxDelayNanos()).isEqualTo(20_000_000_000L);
    assertThat(policy("exponential:200ms:3:10s:full").backoff().maxDelayNanos()).isEqualTo(10_000_000_000L);
    assertThatThrownBy(() -> policy("exponential-original"))
        .hasMessageContaining("needs the simulator's think times");
  }

  @Test
  void budgetSuffixAddsOneBudgetForTheFleet() {
    RetryPolicy<Object> policy = policy("exponential-full-jitter+budget");
    assertThat(policy.budget()).isNotNull();
    assertThat(policy.name()).isEqualTo("exponential-full-jitter+budget");
  }

  @Test
  void breakerSuffixAddsTheSimulatorsBreakerSharedByTheFleet() {
    RetryPolicy.Builder<Object> builder = LabPolicies.named("full-jitter+budget+breaker:25%:40:1m:5");
    RetryPolicy<Object> policy = builder.build();
    assertThat(policy.circuitBreaker()).isNotNull();
    assertThat(policy.budget()).isNotNull();
    assertThat(policy.circuitBreaker().toString())
        .isEqualTo("CircuitBreaker[full-jitter+budget+breaker:25%:40:1m:5: CLOSED, last 40 calls, opens at 25.0% of "
            + "at least 40 calls]");
    assertThat(builder.build().circuitBreaker()).isSameAs(policy.circuitBreaker());
    assertThat(policy("fixed+breaker").circuitBreaker().toString())
        .isEqualTo("CircuitBreaker[fixed+breaker: CLOSED, last 20 calls, opens at 50.0% of at least 20 calls]");
    assertThat(policy("fixed+breaker:50%:10s").circuitBreaker().toString())
        .isEqualTo("CircuitBreaker[fixed+breaker:50%:10s: CLOSED, last 10s, opens at 50.0% of at least 10 calls]");
    assertThat(policy("fixed").circuitBreaker()).isNull();
    RetryPolicy<Object> adaptive = policy("full-jitter+adaptive:fail");
    assertThat(adaptive.rateLimiter()).isNotNull();
    assertThat(adaptive.rateLimiter().maxWait()).isZero();
    RetryPolicy.Builder<Object> limited = LabPolicies.named("full-jitter+concurrency:aimd:max=50");
    RetryPolicy<Object> withLimiter = limited.build();
    assertThat(withLimiter.concurrencyLimiter().toString()).isEqualTo("ConcurrencyLimiter[full-jitter+concurrency:"
        + "aimd:max=50: aimd, backoff ratio 0.9, latency threshold 5s, limit 20 in [1, 50], 0 in flight, retry share "
        + "0.8]");
    assertThat(limited.build().concurrencyLimiter()).isSameAs(withLimiter.concurrencyLimiter());
    assertThat(policy("fixed").concurrencyLimiter()).isNull();
    assertThatThrownBy(() -> policy("fixed+breaker:150%")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad policy 'fixed+breaker:150%': breaker failure rate '150%': out of range (0..100]%");
  }

  @Test
  void unknownNamesListTheKnownOnes() {
    assertThatThrownBy(() -> policy("sometimes")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'sometimes'").hasMessageContaining("storm-fixed, storm-exponential");
    assertThatThrownBy(() -> policy("sometimes+budget")).hasMessageStartingWith("unknown policy 'sometimes'");
    assertThatThrownBy(() -> policy(" ")).hasMessageContaining("blank");
  }

  @Test
  void hedgeSuffixAddsTheCoresHedgingAsInTheSimulator() {
    RetryPolicy<Object> hedged = policy("full-jitter+hedge:50ms:2");
    assertThat(hedged.hedging()).isEqualTo(dev.backoff.Hedging.after(java.time.Duration.ofMillis(50)).maxHedges(2));
    assertThat(hedged.name()).isEqualTo("full-jitter+hedge:50ms:2");
    assertThat(policy("storm-exponential+hedge:100ms").hedging().maxHedges()).isEqualTo(1);
    assertThat(policy("storm-exponential").hedging()).isNull();
    // With the others: one fleet-wide budget and breaker, and the hedging.
    RetryPolicy<Object> all = policy("full-jitter+budget+breaker+hedge:20ms");
    assertThat(all.budget()).isNotNull();
    assertThat(all.circuitBreaker()).isNotNull();
    assertThat(all.hedging().delay()).isEqualTo(java.time.Duration.ofMillis(20));
  }

  @Test
  void aMalformedHedgeSaysWhatIsWrong() {
    assertThatThrownBy(() -> policy("fixed+hedge")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad policy 'fixed+hedge': +hedge needs a delay, such as +hedge:50ms");
    assertThatThrownBy(() -> policy("fixed+hedge:soon")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("bad policy 'fixed+hedge:soon': hedge delay 'soon': ");
    assertThatThrownBy(() -> policy("fixed+hedge:50ms:11")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("bad policy 'fixed+hedge:50ms:11': hedge max-hedges '11'");
    assertThatThrownBy(() -> policy("fixed+hedge:50ms:1:2")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad policy 'fixed+hedge:50ms:1:2': +hedge takes at most 2 parameters (+hedge:delay[:max-hedges])");
    // A preset keeps its attempt limit, which must leave room for the hedges.
    assertThatThrownBy(() -> policy("aws-standard+hedge:50ms:5")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("policy 'aws-standard+hedge:50ms:5': hedging maxHedges(5) needs maxAttempts of at "
            + "least 6");
  }
}
