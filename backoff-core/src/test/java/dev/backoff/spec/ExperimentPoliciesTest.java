package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The retry-storm experiment's clients, registered by name. */
class ExperimentPoliciesTest {
  private static final long MS = 1_000_000L;
  /** Every draw is 0.5: {@code nextDouble()} takes the top 53 bits of {@code nextLong()}. */
  private static final RandomGenerator HALF = () -> Long.MIN_VALUE;

  private static long delay(Backoff backoff, int retry) {
    return backoff.delayNanos(retry, 0, 0, HALF);
  }

  @Test
  void theExperimentsClients() {
    assertThat(HALF.nextDouble()).isEqualTo(0.5);
    assertThat(delay(ExperimentPolicies.backoff("storm-fixed"), 1000)).isEqualTo(100 * MS);
    Backoff exponential = ExperimentPolicies.backoff("storm-exponential");
    assertThat(delay(exponential, 2)).isCloseTo(271_828_182L, within(2L));
    // at the 5 min cap the centre drops to 5 min / 1.3 so the ±3σ window fits under it
    assertThat(delay(exponential, 100)).isCloseTo(230_769_230_769L, within(1_000L));
    assertThat(exponential.maxDelayNanos()).isEqualTo(300_000 * MS);
    RetryPolicy<Object> policy = ExperimentPolicies.<Object>policy("storm-exponential").build();
    assertThat(policy.maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    assertThat(ExperimentPolicies.canonical("Exponential-Full-Jitter")).isEqualTo("storm-exponential-full-jitter");
    assertThat(ExperimentPolicies.canonical("exponential-original")).isEqualTo("storm-exponential-original");
    assertThat(ExperimentPolicies.canonical("exponential")).isNull();
    assertThat(ExperimentPolicies.hasFirstRetryQuirk("storm-exponential-original")).isTrue();
    assertThatThrownBy(() -> ExperimentPolicies.backoff("fixed")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown experiment policy 'fixed'");
  }
}
