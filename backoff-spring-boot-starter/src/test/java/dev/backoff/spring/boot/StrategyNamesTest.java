package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.RetryPolicy;
import dev.backoff.spec.PolicySpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A strategy property means the policy its name means in every command and in the library. */
class StrategyNamesTest {
  private static RetryPolicy<Object> configured(String strategy) {
    BackoffProperties.Policy settings = new BackoffProperties.Policy();
    settings.setStrategy(strategy);
    return BackoffRegistry.builder("orders", settings, Map.of(), null, null).build();
  }

  @Test
  void everyNameMeansOnePolicy() {
    for (String name : PolicySpec.names()) {
      if (name.equals("storm-exponential-original")) {
        continue;
      }
      RetryPolicy<Object> expected = PolicySpec.parse(name).builder().build();
      RetryPolicy<Object> policy = configured(name);
      assertThat(policy.maxAttempts()).as(name).isEqualTo(expected.maxAttempts());
      assertThat(policy.maxElapsed()).as(name).isEqualTo(expected.maxElapsed());
      assertThat(policy.backoff().toString()).as(name).isEqualTo(expected.backoff().toString());
      assertThat(policy.name()).isEqualTo("orders");
    }
    assertThat(configured("full-jitter").maxAttempts()).isEqualTo(RetryPolicy.builder().build().maxAttempts());
  }

  @Test
  void aNameThatNeedsTheSimulatorOrWasRenamedIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> configured("storm-exponential-original"))
        .isInstanceOf(BackoffConfigurationException.class)
        .hasMessageContaining("backoff.policies.orders.strategy").hasMessageContaining("needs the simulator's think times");
    assertThatThrownBy(() -> configured("full")).isInstanceOf(BackoffConfigurationException.class)
        .hasMessageContaining("did you mean 'full-jitter'?");
  }
}
