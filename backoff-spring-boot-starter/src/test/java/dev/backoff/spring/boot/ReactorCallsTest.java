package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** The Mono path without backoff-reactor's operators: the core's asynchronous loop, one future per attempt. */
class ReactorCallsTest {
  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final AsyncRetryExecutor<Object> executor = AsyncRetryExecutor.of(RetryPolicy.builder().maxAttempts(3)
      .backoff(Backoff.fixed(Duration.ofMillis(100))).clock(clock).build(), scheduler);
  private final AtomicInteger calls = new AtomicInteger();

  private Object method() {
    return Mono.defer(() -> calls.incrementAndGet() <= 2 ? Mono.error(new IOException("attempt " + calls.get()))
        : Mono.just("ok after " + calls.get()));
  }

  @Test
  void eachAttemptCallsTheMethodAndSubscribesAgain() {
    CompletableFuture<Object> result = ReactorCalls.mono(null, executor, this::method).toFuture();
    scheduler.advance(Duration.ofMillis(200));
    assertThat(result).isCompletedWithValue("ok after 3");
    assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
  }

  @Test
  void cancellingTheSubscriptionStopsTheRetries() {
    Disposable subscription = ReactorCalls.mono(null, executor, this::method).subscribe(value -> { }, error -> { });
    assertThat(scheduler.pending()).isEqualTo(1);
    subscription.dispose();
    assertThat(scheduler.pending()).isZero();
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(calls).hasValue(1);
  }
}
