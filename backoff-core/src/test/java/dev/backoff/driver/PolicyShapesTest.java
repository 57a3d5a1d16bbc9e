package dev.backoff.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PolicyShapesTest {
  @BeforeAll
  static void registerCore() {
    RetryPolicy.defaults(); // the bridge is registered when RetryPolicy is initialised
  }

  @Test
  void exponentialStrategiesShowTheirParameters() {
    assertThat(PolicyShapes.exponential(
        Backoff.exponential(Duration.ofMillis(250), 1.5, Duration.ofSeconds(7), Jitter.equal())))
        .isEqualTo(new PolicyShapes.Exponential(250_000_000L, 1.5, 7_000_000_000L, Jitter.equal()));
  }

  @Test
  void fixedStrategiesAreExponentialWithMultiplierOne() {
    assertThat(PolicyShapes.exponential(Backoff.fixed(Duration.ofSeconds(2), Jitter.full())))
        .isEqualTo(new PolicyShapes.Exponential(2_000_000_000L, 1, 2_000_000_000L, Jitter.full()));
    assertThat(PolicyShapes.exponential(Backoff.none()))
        .isEqualTo(new PolicyShapes.Exponential(0, 1, 0, Jitter.none()));
  }

  @Test
  void otherStrategiesHaveNoExponentialShape() {
    assertThat(PolicyShapes.exponential(Backoff.decorrelated(Duration.ofMillis(100), Duration.ofSeconds(5)))).isNull();
    assertThat(PolicyShapes.exponential(Backoff.linear(Duration.ofMillis(100), Duration.ofMillis(100),
        Duration.ofSeconds(1)))).isNull();
    assertThat(PolicyShapes.exponential((retry, previous, total, random) -> 5)).isNull();
  }

  @Test
  void grpcThrottlingBudgetsShowTheirParameters() {
    assertThat(PolicyShapes.grpcThrottling(RetryBudgets.grpcThrottling(100, 0.125)))
        .isEqualTo(new PolicyShapes.GrpcThrottling(100, 0.125));
    assertThat(PolicyShapes.grpcThrottling(RetryBudgets.awsStandard())).isNull();
  }

  @Test
  void featuresSayWhichSettingsAPolicyUses() {
    assertThat(PolicyShapes.features(RetryPolicy.defaults()))
        .isEqualTo(new PolicyShapes.Features(false, false, false, false, false));
    RetryPolicy<String> busy = RetryPolicy.<String>builder()
        .abortOn(IllegalStateException.class)
        .retryOnResult(String::isEmpty)
        .backoff(dev.backoff.FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(1)))
        .listener(new dev.backoff.RetryListener<>() {})
        .pushback((result, failure) -> dev.backoff.Pushback.NONE)
        .build();
    assertThat(PolicyShapes.features(busy)).isEqualTo(new PolicyShapes.Features(true, true, true, true, true));
    assertThat(PolicyShapes.features(RetryPolicy.builder().retryOn(java.io.IOException.class).build()).failureRules())
        .isTrue();
  }

  @Test
  void nullsAreRefusedByName() {
    assertThatThrownBy(() -> PolicyShapes.features(null)).hasMessage("policy must not be null");
    assertThatThrownBy(() -> PolicyShapes.exponential(null)).hasMessage("backoff must not be null");
    assertThatThrownBy(() -> PolicyShapes.grpcThrottling(null)).hasMessage("budget must not be null");
  }
}
