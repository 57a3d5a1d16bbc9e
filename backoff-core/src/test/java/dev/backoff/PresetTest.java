package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The presets reproduce the peers' documented defaults (facts in shared/reference/retry-facts.md). */
class PresetTest {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;

  private static long delay(Preset preset, int retry, double u) {
    return preset.backoff().delayNanos(retry, 0, 0, new Uniforms(u));
  }

  @Test
  void googleCloudIsTheSeedsAlgorithmCappedAt32Or64Seconds() {
    assertThat(delay(Preset.GOOGLE_CLOUD, 1, 0.5)).isEqualTo(1500 * MS);
    assertThat(delay(Preset.GOOGLE_CLOUD, 6, 0.5)).isEqualTo(32 * SECOND);
    assertThat(delay(Preset.GOOGLE_CLOUD_64S, 7, 0.5)).isEqualTo(64 * SECOND);
    assertThat(Preset.GOOGLE_CLOUD.maxAttempts()).isEqualTo(10);
  }

  @Test
  void awsStandardIsFullJitterFrom100MillisecondsTo20SecondsWithAThrottlingBackoff() {
    assertThat(delay(Preset.AWS_STANDARD, 1, 0.5)).isEqualTo(50 * MS);
    assertThat(delay(Preset.AWS_STANDARD, 20, 0.5)).isEqualTo(10 * SECOND);
    assertThat(Preset.AWS_STANDARD.maxAttempts()).isEqualTo(3);
    RetryPolicy<Object> policy = Preset.AWS_STANDARD.policy().build();
    Backoff throttled = policy.backoff(FailureClass.THROTTLED);
    assertThat(throttled.delayNanos(1, 0, 0, new Uniforms(0.5))).isEqualTo(500 * MS);
    assertThat(throttled.maxDelayNanos()).isEqualTo(20 * SECOND);
    assertThat(policy.backoff(FailureClass.TIMEOUT)).isSameAs(policy.backoff());
  }

  @Test
  void awsStandard2026IsFullJitterFrom50MillisecondsTo20SecondsWithA1SecondThrottlingBase() {
    assertThat(delay(Preset.AWS_STANDARD_2026, 1, 0.5)).isEqualTo(25 * MS);
    assertThat(delay(Preset.AWS_STANDARD_2026, 1, 1.0)).isEqualTo(50 * MS);
    assertThat(delay(Preset.AWS_STANDARD_2026, 2, 0.25)).isEqualTo(25 * MS); // U(0, 100 ms)
    assertThat(delay(Preset.AWS_STANDARD_2026, 3, 0.75)).isEqualTo(150 * MS); // U(0, 200 ms)
    assertThat(delay(Preset.AWS_STANDARD_2026, 10, 0.5)).isEqualTo(10 * SECOND); // 25.6 s capped to 20 s
    assertThat(delay(Preset.AWS_STANDARD_2026, 1, 0.0)).isZero();
    assertThat(Preset.AWS_STANDARD_2026.maxAttempts()).isEqualTo(3);
    assertThat(Preset.byName("aws-standard-2026")).isSameAs(Preset.AWS_STANDARD_2026);
    RetryPolicy<Object> policy = Preset.AWS_STANDARD_2026.policy().build();
    assertThat(policy.name()).isEqualTo("aws-standard-2026");
    Backoff throttled = policy.backoff(FailureClass.THROTTLED);
    assertThat(throttled.delayNanos(1, 0, 0, new Uniforms(0.5))).isEqualTo(500 * MS);
    assertThat(throttled.delayNanos(2, 0, 0, new Uniforms(0.5))).isEqualTo(1 * SECOND);
    assertThat(throttled.maxDelayNanos()).isEqualTo(20 * SECOND);
    assertThat(policy.backoff(FailureClass.TIMEOUT)).isSameAs(policy.backoff());
  }

  @Test
  void awsStandard2026BudgetCharges14PerRetryAnd5AfterThrottling() {
    RetryBudget budget = RetryBudgets.awsStandard2026();
    assertThat(budget.level()).isEqualTo(500.0);
    budget.onCall();
    budget.onFailure(FailureClass.TRANSIENT);
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    assertThat(budget.level()).isEqualTo(486.0);
    assertThat(budget.tryAcquire(FailureClass.THROTTLED)).isTrue();
    assertThat(budget.level()).isEqualTo(481.0);
    assertThat(budget.tryAcquire(FailureClass.TIMEOUT)).isTrue();
    assertThat(budget.level()).isEqualTo(467.0);
    // 467 tokens: 33 more retries at 14 leave 5, enough for one after throttling and nothing more.
    for (int i = 0; i < 33; i++) {
      assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isTrue();
    }
    assertThat(budget.tryAcquire(FailureClass.TRANSIENT)).isFalse();
    assertThat(budget.tryAcquire(FailureClass.THROTTLED)).isTrue();
    assertThat(budget.tryAcquire(FailureClass.THROTTLED)).isFalse();
  }

  @Test
  void grpcIsFullJitterUpToMaxBackoff() {
    assertThat(delay(Preset.GRPC, 1, 0.5)).isEqualTo(50 * MS);
    assertThat(delay(Preset.GRPC, 5, 0.5)).isEqualTo(500 * MS); // 1.6 s capped to 1 s
    assertThat(Preset.GRPC.maxAttempts()).isEqualTo(4);
  }

  @Test
  void googleHttpClientJittersAfterCappingSoDelaysPassTheMaximumInterval() {
    assertThat(delay(Preset.GOOGLE_HTTP_CLIENT, 1, 0.0)).isEqualTo(250 * MS);
    assertThat(delay(Preset.GOOGLE_HTTP_CLIENT, 1, 0.5)).isEqualTo(500 * MS);
    assertThat(delay(Preset.GOOGLE_HTTP_CLIENT, 4, 0.5)).isEqualTo(1_687_500_000L);
    assertThat(delay(Preset.GOOGLE_HTTP_CLIENT, 13, 0.5)).isEqualTo(60 * SECOND);
    assertThat(delay(Preset.GOOGLE_HTTP_CLIENT, 13, 0.75)).isEqualTo(75 * SECOND);
    assertThat(Preset.GOOGLE_HTTP_CLIENT.backoff().maxDelayNanos()).isEqualTo(90 * SECOND);
    assertThat(Preset.GOOGLE_HTTP_CLIENT.maxElapsed()).isEqualTo(Duration.ofMinutes(15));
    assertThat(Preset.GOOGLE_HTTP_CLIENT.maxAttempts()).isEqualTo(11);
  }

  @Test
  void resilience4jDefaults() {
    assertThat(delay(Preset.RESILIENCE4J, 2, 0.9)).isEqualTo(500 * MS);
    assertThat(Preset.RESILIENCE4J.backoff().isRandom()).isFalse();
    // ofExponentialRandomBackoff(): 500 ms × 1.5^(n−1) ± 50 %, no maximum interval
    assertThat(delay(Preset.RESILIENCE4J_EXPONENTIAL_RANDOM, 1, 0.5)).isEqualTo(500 * MS);
    assertThat(delay(Preset.RESILIENCE4J_EXPONENTIAL_RANDOM, 3, 0.0)).isEqualTo(562_500_000L);
    assertThat((double) delay(Preset.RESILIENCE4J_EXPONENTIAL_RANDOM, 30, 0.5))
        .isCloseTo(5e8 * Math.pow(1.5, 29), within(1e-6 * 5e8 * Math.pow(1.5, 29)));
    assertThat(Preset.RESILIENCE4J_EXPONENTIAL_RANDOM.backoff().maxDelayNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void resilience4jClampAfterRandomPilesUpAtTheCapWhenOneIsConfigured() {
    PeerBackoff capped = new PeerBackoff(500 * MS, 1.5, 30 * SECOND, 0.5, PeerBackoff.Placement.CLAMP_AFTER_RANDOM);
    assertThat(capped.delay(20, 0.1)).isEqualTo(30 * SECOND);
    assertThat(capped.delay(20, 0.9)).isEqualTo(30 * SECOND);
  }

  @Test
  void failsafe() {
    assertThat(delay(Preset.FAILSAFE, 1, 0.5)).isZero();
    assertThat(Preset.FAILSAFE.maxAttempts()).isEqualTo(3);
    assertThat(delay(Preset.FAILSAFE_BACKOFF, 1, 0.5)).isEqualTo(SECOND);
    assertThat(delay(Preset.FAILSAFE_BACKOFF, 1, 0.0)).isEqualTo(500 * MS);
    assertThat(delay(Preset.FAILSAFE_BACKOFF, 6, 0.5)).isEqualTo(30 * SECOND);
    assertThat(delay(Preset.FAILSAFE_BACKOFF, 6, 0.9)).isEqualTo(42 * SECOND);
    assertThat(Preset.FAILSAFE_BACKOFF.backoff().maxDelayNanos()).isEqualTo(45 * SECOND);
  }

  @Test
  void springRetry() {
    assertThat(delay(Preset.SPRING_RETRY, 1, 0.5)).isEqualTo(100 * MS);
    assertThat(delay(Preset.SPRING_RETRY, 9, 0.5)).isEqualTo(25_600 * MS);
    assertThat(delay(Preset.SPRING_RETRY, 10, 0.5)).isEqualTo(30 * SECOND);
    // random: × U[1, 2), then clamped to 30 s
    assertThat(delay(Preset.SPRING_RETRY_RANDOM, 1, 0.5)).isEqualTo(150 * MS);
    assertThat(delay(Preset.SPRING_RETRY_RANDOM, 8, 0.5)).isEqualTo(19_200 * MS);
    assertThat(delay(Preset.SPRING_RETRY_RANDOM, 9, 0.5)).isEqualTo(30 * SECOND);
    assertThat(delay(Preset.SPRING_RETRY_RANDOM, 12, 0.0)).isEqualTo(30 * SECOND);
  }

  @Test
  void policyCarriesTheNameLimitsAndBackoff() {
    RetryPolicy<Object> policy = Preset.GOOGLE_HTTP_CLIENT.policy().build();
    assertThat(policy.name()).isEqualTo("google-http-client");
    assertThat(policy.maxAttempts()).isEqualTo(11);
    assertThat(policy.maxElapsed()).isEqualTo(Duration.ofMinutes(15));
    assertThat(policy.backoff()).isSameAs(Preset.GOOGLE_HTTP_CLIENT.backoff());
    assertThat(Preset.GRPC.policy().build().maxElapsed()).isNull();
  }

  @Test
  void byNameAcceptsIdsAndEnumNamesInAnyCase() {
    for (Preset preset : Preset.values()) {
      assertThat(Preset.byName(preset.id())).isSameAs(preset);
      assertThat(Preset.byName(preset.name())).isSameAs(preset);
      assertThat(Preset.byName(preset.id().toUpperCase(java.util.Locale.ROOT))).isSameAs(preset);
    }
    // The experiment's clients are the simulator's named policies: these names are the generic strategies.
    assertThatThrownBy(() -> Preset.byName("fixed")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Preset.byName("exponential")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Preset.byName("hystrix"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'hystrix'").hasMessageContaining("google-cloud").hasMessageContaining("spring-retry");
    assertThatThrownBy(() -> Preset.byName(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("preset name");
  }
}
