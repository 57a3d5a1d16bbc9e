package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.Preset;
import dev.backoff.RetryPolicy;
import dev.backoff.sim.PolicyCandidate;
import dev.backoff.sim.PolicyCandidate.Family;
import dev.backoff.spec.BackoffSpec;
import dev.backoff.spec.BudgetSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The Spring properties {@code backoff advise} prints for its recommendation bind into this starter (whose
 * properties refuse unknown keys) and configure the policy the simulator ran: same delays, attempts and budget.
 */
class AdvisedPropertiesTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class));

  private static List<PolicyCandidate> everyKind() {
    return List.of(
        new PolicyCandidate(Family.FULL_JITTER, null, Duration.ofMillis(100), 2, Duration.ofSeconds(20), 5,
            "token-bucket:200:5:10"),
        new PolicyCandidate(Family.EQUAL_JITTER, null, Duration.ofMillis(250), 1.5, Duration.ofMinutes(1), 3, null),
        new PolicyCandidate(Family.NO_JITTER, null, Duration.ofNanos(12_500_000), 3, Duration.ofMillis(2500), 8,
            "grpc:20:0.2"),
        new PolicyCandidate(Family.DECORRELATED, null, Duration.ofSeconds(1), 0, Duration.ofSeconds(30), 4,
            "ratio:0.1:10:30s"),
        new PolicyCandidate(Family.FIXED, null, Duration.ofMillis(1500), 0, null, 2, null),
        new PolicyCandidate(Family.PRESET, "aws-standard", null, 0, null, null, "token-bucket:100:5:10"),
        new PolicyCandidate(Family.PRESET, "google-cloud", null, 0, null, 6, null),
        new PolicyCandidate(Family.FIXED, null, Duration.ofMillis(100), 0, null, 8, null,
            PolicyCandidate.Protection.ADAPTIVE),
        new PolicyCandidate(Family.FULL_JITTER, null, Duration.ofMillis(100), 2, Duration.ofSeconds(20), 3,
            "token-bucket:500:5:10", PolicyCandidate.Protection.CONCURRENCY),
        new PolicyCandidate(Family.PRESET, "aws-standard", null, 0, null, null, null,
            PolicyCandidate.Protection.CONCURRENCY_AIMD));
  }

  @Test
  void theAdvisorsPropertiesBindAndBuildTheSimulatedPolicy() {
    for (PolicyCandidate candidate : everyKind()) {
      Map<String, String> properties = candidate.springProperties("advised");
      String[] pairs = properties.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
      runner.withPropertyValues(pairs).run(context -> {
        assertThat(context).as(candidate.label()).hasNotFailed();
        BackoffRegistry registry = context.getBean(BackoffRegistry.class);
        assertThat(registry.names()).containsExactly("advised");
        RetryPolicy<Object> policy = registry.policy("advised");
        int expectedAttempts = candidate.maxAttempts() != null ? candidate.maxAttempts()
            : Preset.byName(candidate.preset()).maxAttempts();
        assertThat(policy.maxAttempts()).as(candidate.label()).isEqualTo(expectedAttempts);
        assertSameDelays(candidate.label(), policy.backoff(), BackoffSpec.parse(candidate.strategySpec()).toBackoff());
        assertThat(policy.rateLimiter() != null).as(candidate.label())
            .isEqualTo(candidate.protection() == PolicyCandidate.Protection.ADAPTIVE);
        assertThat(policy.concurrencyLimiter() != null).as(candidate.label())
            .isEqualTo(candidate.protection().id().startsWith("concurrency"));
        if (candidate.budget() == null) {
          assertThat(policy.budget()).as(candidate.label()).isNull();
          assertThat(registry.budgetNames()).isEmpty();
        } else {
          assertThat(registry.budgetNames()).containsExactly("advised");
          assertThat(policy.budget()).isSameAs(registry.budget("advised"));
          var expected = BudgetSpec.parse(candidate.budget()).create(() -> 0L);
          assertThat(policy.budget().getClass()).isEqualTo(expected.getClass());
          assertThat(policy.budget().level()).isEqualTo(expected.level());
        }
      });
    }
  }

  @Test
  void aMistypedKeyWouldFailTheContext() {
    // The check above means something only because the starter refuses keys it does not know.
    runner.withPropertyValues("backoff.policies.advised.strategy=fixed:1s", "backoff.policies.advised.max-attempt=3")
        .run(context -> assertThat(context).hasFailed());
  }

  private static void assertSameDelays(String label, Backoff actual, Backoff expected) {
    SplittableRandom a = new SplittableRandom(11);
    SplittableRandom b = new SplittableRandom(11);
    long previousA = 0;
    long previousB = 0;
    for (int retry = 1; retry <= 10; retry++) {
      long delayA = actual.delayNanos(retry, previousA, 0, a);
      long delayB = expected.delayNanos(retry, previousB, 0, b);
      assertThat(delayA).as("%s retry %d", label, retry).isEqualTo(delayB);
      previousA = delayA;
      previousB = delayB;
    }
  }
}
