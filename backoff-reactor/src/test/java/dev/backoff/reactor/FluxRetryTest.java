package dev.backoff.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.RetryEvent;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import reactor.test.scheduler.VirtualTimeScheduler;

class FluxRetryTest {
  private final AtomicInteger subscriptions = new AtomicInteger();
  private final List<StopReason> stops = new CopyOnWriteArrayList<>();

  private RetryPolicy<Object> policy(int maxAttempts) {
    return RetryPolicy.builder().maxAttempts(maxAttempts)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .listener(new RetryListener<Object>() {
          @Override
          public void onExhausted(RetryEvent<Object> event) {
            stops.add(event.stopReason());
          }

          @Override
          public void onAborted(RetryEvent<Object> event) {
            stops.add(event.stopReason());
          }
        })
        .build();
  }

  @Test
  // Example for docs/reactor.md
  void retriesAFluxThatFailsBeforeItsFirstElement() {
    RetryPolicy<Object> policy = RetryPolicy.builder().maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(100))).build();
    AtomicInteger subscriptions = new AtomicInteger();
    Flux<Integer> source = Flux.defer(() -> subscriptions.incrementAndGet() < 3
        ? Flux.error(new IOException("connection refused"))
        : Flux.range(1, 3));

    StepVerifier.withVirtualTime(() -> source.transform(BackoffOperators.retryFlux(policy)))
        .thenAwait(Duration.ofMillis(200))
        .expectNext(1, 2, 3)
        .verifyComplete();
    assertThat(subscriptions).hasValue(3);
  }

  @Test
  void anErrorAfterTheFirstElementIsNotRetried() {
    Flux<Integer> source = Flux.defer(() -> {
      subscriptions.incrementAndGet();
      return Flux.just(1, 2).concatWith(Flux.error(new IOException("reset mid-stream")));
    });
    StepVerifier.withVirtualTime(() -> source.transform(BackoffOperators.retryFlux(policy(5))))
        .expectNext(1, 2)
        .expectErrorMessage("reset mid-stream")
        .verify();
    assertThat(subscriptions).hasValue(1);
    assertThat(stops).isEmpty(); // the call succeeded at the first element
  }

  @Test
  void surfacesTheLastFailureWithHistory() {
    Flux<Integer> source = Flux.defer(() -> Flux.error(new IOException("down " + subscriptions.incrementAndGet())));
    StepVerifier.withVirtualTime(() -> source.transform(BackoffOperators.retryFlux(policy(3))))
        .thenAwait(Duration.ofSeconds(1))
        .consumeErrorWith(failure -> {
          assertThat(failure).hasMessage("down 3");
          assertThat(RetryHistory.of(failure).attempts()).isEqualTo(3);
          assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
        })
        .verify();
    assertThat(subscriptions).hasValue(3);
  }

  @Test
  void passesTheSubscribersDemandToTheAttemptThatStreams() {
    TestPublisher<Integer> failing = TestPublisher.create();
    TestPublisher<Integer> streaming = TestPublisher.create();
    Flux<Integer> source = Flux.defer(() -> subscriptions.incrementAndGet() == 1 ? failing.flux() : streaming.flux());
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    StepVerifier.create(source.transform(BackoffOperators.<Integer>retryFlux(policy(3)).withScheduler(time)), 2)
        .then(() -> failing.assertMinRequested(2).error(new IOException("refused")))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(100)))
        .then(() -> streaming.assertMinRequested(2).assertMaxRequested(2).next(1, 2))
        .expectNext(1, 2)
        .thenRequest(1)
        .then(() -> streaming.assertMinRequested(1).next(3).complete())
        .expectNext(3)
        .verifyComplete();
  }

  @Test
  void cancellingDuringTheBackoffMakesNoFurtherSubscription() {
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    Flux<Integer> source = Flux.defer(() -> Flux.error(new IOException("down " + subscriptions.incrementAndGet())));
    StepVerifier.create(source.transform(BackoffOperators.<Integer>retryFlux(policy(5)).withScheduler(time)))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(150)))
        .thenCancel()
        .verify();
    time.advanceTimeBy(Duration.ofHours(1));
    assertThat(subscriptions).hasValue(2);
    assertThat(stops).containsExactly(StopReason.CANCELLED);
  }

  @Test
  void aSubscriberThatCancelsAtOnceCausesNoSubscription() {
    Flux<Integer> source = Flux.defer(() -> {
      subscriptions.incrementAndGet();
      return Flux.just(1);
    });
    source.transform(BackoffOperators.retryFlux(policy(3))).subscribe(new BaseSubscriber<Integer>() {
      @Override
      protected void hookOnSubscribe(Subscription subscription) {
        cancel();
      }
    });
    assertThat(subscriptions).hasValue(0);
  }

  @Test
  void cancellingAStreamingAttemptCancelsTheSource() {
    TestPublisher<Integer> streaming = TestPublisher.create();
    StepVerifier.create(streaming.flux().transform(BackoffOperators.retryFlux(policy(3))))
        .then(() -> streaming.next(1))
        .expectNext(1)
        .thenCancel()
        .verify();
    streaming.assertCancelled();
  }
}
