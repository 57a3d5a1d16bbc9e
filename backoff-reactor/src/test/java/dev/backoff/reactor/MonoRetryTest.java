package dev.backoff.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.RetryEvent;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class MonoRetryTest {
  private final AtomicInteger subscriptions = new AtomicInteger();
  private final List<StopReason> stops = new CopyOnWriteArrayList<>();
  private final List<Duration> scheduled = new CopyOnWriteArrayList<>();

  private RetryPolicy<String> policy(int maxAttempts) {
    return RetryPolicy.<String>builder().maxAttempts(maxAttempts)
        .backoff(Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(10)))
        .listener(new RetryListener<String>() {
          @Override
          public void onRetryScheduled(RetryEvent<String> event) {
            scheduled.add(event.delay());
          }

          @Override
          public void onExhausted(RetryEvent<String> event) {
            stops.add(event.stopReason());
          }

          @Override
          public void onAborted(RetryEvent<String> event) {
            stops.add(event.stopReason());
          }
        })
        .build();
  }

  /** Fails {@code failures} times, then emits "ok"; counts subscriptions. */
  private Mono<String> failing(int failures) {
    return Mono.defer(() -> subscriptions.incrementAndGet() <= failures
        ? Mono.error(new IOException("attempt " + subscriptions.get()))
        : Mono.just("ok"));
  }

  @Test
  // Example for docs/reactor.md
  void retriesAMonoInVirtualTime() {
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(4)
        .backoff(Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(10)))
        .build();

    StepVerifier.withVirtualTime(() -> failing(2).transform(BackoffOperators.retry(policy)))
        .expectSubscription()
        .expectNoEvent(Duration.ofMillis(299)) // 100 ms, then 200 ms
        .thenAwait(Duration.ofMillis(1))
        .expectNext("ok")
        .verifyComplete();
    assertThat(subscriptions).hasValue(3);
  }

  @Test
  void waitsEachBackoffOnTheScheduler() {
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    Mono<String> retried = failing(2).transform(BackoffOperators.<String>retry(policy(4)).withScheduler(time));
    StepVerifier.create(retried)
        .then(() -> assertThat(subscriptions).hasValue(1))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(99)))
        .then(() -> assertThat(subscriptions).hasValue(1))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(1)))
        .then(() -> assertThat(subscriptions).hasValue(2))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(199)))
        .then(() -> assertThat(subscriptions).hasValue(2))
        .then(() -> time.advanceTimeBy(Duration.ofMillis(1)))
        .expectNext("ok")
        .verifyComplete();
    assertThat(scheduled).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
  }

  @Test
  void surfacesTheLastFailureWithTheEarlierOnesAndTheHistorySuppressed() {
    StepVerifier.withVirtualTime(() -> failing(10).transform(BackoffOperators.retry(policy(3))))
        .thenAwait(Duration.ofSeconds(1))
        .consumeErrorWith(failure -> {
          assertThat(failure).isInstanceOf(IOException.class).hasMessage("attempt 3");
          assertThat(failure.getSuppressed()).hasSize(3);
          assertThat(failure.getSuppressed()[0]).hasMessage("attempt 1");
          assertThat(failure.getSuppressed()[1]).hasMessage("attempt 2");
          RetryHistory history = RetryHistory.of(failure);
          assertThat(history.attempts()).isEqualTo(3);
          assertThat(history.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
        })
        .verify();
    assertThat(subscriptions).hasValue(3);
    assertThat(stops).containsExactly(StopReason.ATTEMPTS_EXHAUSTED);
  }

  @Test
  void cancellingDuringTheBackoffMakesNoFurtherSubscription() {
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    Mono<String> retried = failing(10).transform(BackoffOperators.<String>retry(policy(5)).withScheduler(time));
    StepVerifier.create(retried)
        .then(() -> time.advanceTimeBy(Duration.ofMillis(150))) // second attempt at 100 ms, next due at 300 ms
        .thenCancel()
        .verify();
    time.advanceTimeBy(Duration.ofHours(1));
    assertThat(subscriptions).hasValue(2);
    assertThat(stops).containsExactly(StopReason.CANCELLED);
  }

  @Test
  void cancellingDuringAnAttemptCancelsItsSubscription() {
    AtomicInteger cancels = new AtomicInteger();
    Sinks.One<String> never = Sinks.one();
    Mono<String> source = never.asMono().doOnSubscribe(s -> subscriptions.incrementAndGet())
        .doOnCancel(cancels::incrementAndGet);
    StepVerifier.create(source.transform(BackoffOperators.retry(policy(3))))
        .expectSubscription()
        .thenCancel()
        .verify();
    assertThat(subscriptions).hasValue(1);
    assertThat(cancels).hasValue(1);
    assertThat(stops).containsExactly(StopReason.CANCELLED);
  }

  @Test
  void everyAttemptSeesTheSubscribersContext() {
    List<String> seen = new ArrayList<>();
    Mono<String> source = Mono.deferContextual(context -> {
      seen.add(context.get("tenant"));
      return seen.size() < 2 ? Mono.error(new IOException("once")) : Mono.just("ok");
    });
    StepVerifier.withVirtualTime(() -> source.transform(BackoffOperators.retry(policy(3)))
            .contextWrite(context -> context.put("tenant", "blue")))
        .thenAwait(Duration.ofSeconds(1))
        .expectNext("ok")
        .verifyComplete();
    assertThat(seen).containsExactly("blue", "blue");
  }

  @Test
  void retriesAnEmptyMonoWhenThePolicyRetriesNullResults() {
    RetryPolicy<String> policy = policy(3).toBuilder().retryOnResult(result -> result == null).build();
    Mono<String> source = Mono.defer(() -> subscriptions.incrementAndGet() < 3 ? Mono.empty() : Mono.just("ok"));
    StepVerifier.withVirtualTime(() -> source.transform(BackoffOperators.retry(policy)))
        .thenAwait(Duration.ofSeconds(1))
        .expectNext("ok")
        .verifyComplete();
    assertThat(subscriptions).hasValue(3);
  }

  @Test
  void discardsAResultItRetriesAfter() {
    List<Object> discarded = new CopyOnWriteArrayList<>();
    RetryPolicy<String> policy = policy(3).toBuilder().retryOnResult("busy"::equals).build();
    Mono<String> source = Mono.defer(() -> Mono.just(subscriptions.incrementAndGet() < 2 ? "busy" : "ok"));
    StepVerifier.withVirtualTime(() -> source.transform(BackoffOperators.retry(policy))
            .doOnDiscard(String.class, discarded::add))
        .thenAwait(Duration.ofSeconds(1))
        .expectNext("ok")
        .verifyComplete();
    assertThat(discarded).containsExactly("busy");
  }

  @Test
  void aNonRetryableFailureStopsAtOnce() {
    RetryPolicy<String> policy = policy(5).toBuilder().abortOn(IllegalStateException.class).build();
    Mono<String> source = Mono.defer(() -> {
      subscriptions.incrementAndGet();
      return Mono.error(new IllegalStateException("bad request"));
    });
    StepVerifier.create(source.transform(BackoffOperators.retry(policy)))
        .expectErrorSatisfies(failure -> {
          assertThat(failure).isInstanceOf(IllegalStateException.class);
          assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.ABORTED);
        })
        .verify();
    assertThat(subscriptions).hasValue(1);
  }

  @Test
  void runsOnRealSchedulers() {
    RetryPolicy<String> fast = RetryPolicy.<String>builder().maxAttempts(3)
        .backoff(Backoff.fixed(Duration.ofMillis(1))).build();
    String result = failing(2).transform(BackoffOperators.retry(fast)).subscribeOn(Schedulers.boundedElastic())
        .block(Duration.ofSeconds(30));
    assertThat(result).isEqualTo("ok");
    assertThat(subscriptions).hasValue(3);
  }

  @Test
  void readsTheClockItIsGiven() {
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    RetryPolicy<String> policy = policy(100).toBuilder().maxElapsed(Duration.ofMillis(500)).build();
    Mono<String> retried = failing(100).transform(BackoffOperators.<String>retry(policy).withScheduler(time)
        .withClock(ReactorRetryScheduler.clock(time)));
    StepVerifier.create(retried)
        .then(() -> time.advanceTimeBy(Duration.ofSeconds(10)))
        .expectErrorSatisfies(failure ->
            assertThat(RetryHistory.of(failure).stopReason()).isEqualTo(StopReason.DEADLINE_EXCEEDED))
        .verify();
    // 100 + 200 = 300 ms; the next wait (400 ms) would end past 500 ms.
    assertThat(subscriptions).hasValue(3);
  }

  @Test
  void refusesNulls() {
    assertThatThrownBy(() -> BackoffOperators.retry(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("policy must not be null");
    MonoRetry<String> retry = BackoffOperators.retry(policy(2));
    assertThatThrownBy(() -> retry.withScheduler(null)).hasMessage("scheduler must not be null");
    assertThatThrownBy(() -> retry.withClock(null)).hasMessage("clock must not be null");
    assertThatThrownBy(() -> retry.withRandom(null)).hasMessage("random must not be null");
    assertThatThrownBy(() -> retry.apply(null)).hasMessage("source must not be null");
  }
}
