package dev.backoff.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** A Mono is hedged like any asynchronous call; a Flux is refused. */
class HedgingOperatorsTest {
  private final RetryPolicy<String> policy = RetryPolicy.<String>builder()
      .name("hedged")
      .maxAttempts(2)
      .hedging(Hedging.after(Duration.ofMillis(100)))
      .build();

  @Test
  void aSlowMonoIsHedgedAndTheSlowSubscriptionCancelled() {
    AtomicInteger subscriptions = new AtomicInteger();
    AtomicBoolean slowCancelled = new AtomicBoolean();
    Mono<String> source = Mono.defer(() -> subscriptions.incrementAndGet() == 1
        ? Mono.<String>never().doOnCancel(() -> slowCancelled.set(true))
        : Mono.just("hedge"));
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    StepVerifier.create(source.transform(BackoffOperators.<String>retry(policy).withScheduler(time)))
        .then(() -> assertThat(subscriptions).hasValue(1))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(99)))
        .then(() -> assertThat(subscriptions).hasValue(1))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(1)))
        .expectNext("hedge")
        .verifyComplete();
    assertThat(subscriptions).hasValue(2);
    assertThat(slowCancelled).isTrue();
  }

  @Test
  void aFluxCannotBeHedged() {
    assertThatThrownBy(() -> BackoffOperators.retryFlux(policy))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'hedged' hedges, and a Flux cannot be hedged");
  }
}
