package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.driver.Engine;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PolicyTest {

  @AfterEach
  void clearInterruptFlag() {
    Thread.interrupted();
  }

  @Test
  void defaultsAreBoundedAndJittered() {
    RetryPolicy<Object> policy = RetryPolicy.defaults();
    assertThat(policy.maxAttempts()).isEqualTo(3);
    assertThat(policy.maxElapsed()).isNull();
    assertThat(policy.maxPushback()).isEqualTo(Duration.ofSeconds(60));
    assertThat(policy.name()).isEqualTo("default");
    assertThat(policy.budget()).isNull();
    assertThat(Engine.needsStartTime(policy)).isFalse();
    assertThat(policy.clock()).isSameAs(NanoClock.system());
    assertThat(policy.sleeper()).isSameAs(Sleeper.system());
    Backoff backoff = policy.backoff();
    assertThat(backoff.isRandom()).isTrue();
    assertThat(backoff.maxDelayNanos()).isEqualTo(Duration.ofSeconds(20).toNanos());
    assertThat(backoff.delayNanos(1, 0, 0, new Uniforms(0.5))).isEqualTo(50_000_000L);
    assertThat(policy.toString()).isEqualTo("RetryPolicy[default: 3 attempts, " + backoff + "]");
  }

  @Test
  void toBuilderCopiesEverySettingAndLeavesTheOriginalAlone() throws Exception {
    RetryListener<String> listener = new RetryListener<>() {};
    RetryPolicy<String> original = RetryPolicy.<String>builder().name("orders").maxAttempts(7)
        .maxElapsed(Duration.ofSeconds(30)).backoff(Backoff.none())
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(2)))
        .retryOn(IOException.class).abortOn(IllegalStateException.class).retryOnResult("busy"::equals)
        .maxPushback(Duration.ofSeconds(5)).listener(listener).maxSuppressed(1).build();
    RetryPolicy<String> copy = original.toBuilder().maxAttempts(2).build();
    assertThat(copy.name()).isEqualTo("orders");
    assertThat(copy.maxAttempts()).isEqualTo(2);
    assertThat(original.maxAttempts()).isEqualTo(7);
    assertThat(copy.maxElapsed()).isEqualTo(Duration.ofSeconds(30));
    assertThat(copy.backoff(FailureClass.THROTTLED).maxDelayNanos()).isEqualTo(2_000_000_000L);
    assertThat(copy.maxPushback()).isEqualTo(Duration.ofSeconds(5));
    assertThat(Engine.needsStartTime(copy)).isTrue();
    assertThat(copy.newExecution(0).onFailure(new IllegalStateException(), 0).stopReason())
        .isEqualTo(StopReason.ABORTED);
    assertThat(copy.newExecution(0).onFailure(new IllegalArgumentException(), 0).stopReason())
        .isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(copy.newExecution(0).onResult("busy", 0).isRetry()).isTrue();
  }

  @Test
  void aLaterBackoffForTheSameClassReplacesTheEarlierOne() {
    RetryPolicy<Object> policy = RetryPolicy.builder()
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(1)))
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(4))).build();
    assertThat(policy.backoff(FailureClass.THROTTLED).maxDelayNanos()).isEqualTo(4_000_000_000L);
  }

  @Test
  void theSystemSleeperHonoursInterruptionEvenForZeroDelays() throws InterruptedException {
    Sleeper.system().sleep(0);
    Sleeper.system().sleep(-5);
    Sleeper.system().sleep(1_000);
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> Sleeper.system().sleep(0)).isInstanceOf(InterruptedException.class);
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> Sleeper.system().sleep(Duration.ofHours(1).toNanos()))
        .isInstanceOf(InterruptedException.class);
  }

  @Test
  void decisionsAndEventsDescribeThemselves() {
    RetryPolicy<String> policy = RetryPolicy.<String>builder().backoff(Backoff.fixed(Duration.ofSeconds(2)))
        .listener(new RetryListener<>() {
          @Override
          public void onRetryScheduled(RetryEvent<String> event) {
            assertThat(event.toString())
                .isEqualTo("default: attempt 1 after PT0.5S, failed with java.io.IOException: x, retrying in PT2S");
          }
        }).build();
    Decision decision = policy.newExecution(0).onFailure(new IOException("x"), 500_000_000L);
    assertThat(decision).hasToString("retry after 2s");
    assertThat(StopReason.ATTEMPTS_EXHAUSTED.description()).isEqualTo("attempts exhausted");
    assertThat(FailureClass.THROTTLED.name()).isEqualTo("throttled");
    assertThat(RetryHistory.of(null)).isNull();
    assertThat(RetryHistory.of(new IOException())).isNull();
  }
}
