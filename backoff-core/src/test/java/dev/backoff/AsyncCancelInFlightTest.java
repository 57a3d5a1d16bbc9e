package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.ConcurrencyLimiter.AttemptKind;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What listeners hear when the caller cancels an asynchronous call: every attempt it started counts, the ones
 * cancelled in flight included, hedged or not (as a hedge's cancelled loser counts when the hedge wins, and as
 * the blocking executor counts an attempt its caller interrupted); an attempt that never started does not.
 */
class AsyncCancelInFlightTest {
  private final List<String> heard = new ArrayList<>();
  private final List<Runnable> tasks = new ArrayList<>(); // scheduled retries and hedges, run by hand
  private final List<CompletableFuture<String>> inFlight = new ArrayList<>();
  private final RetryScheduler manual = (task, delayNanos) -> {
    tasks.add(task);
    return new CompletableFuture<>();
  };

  private RetryPolicy.Builder<String> policy() {
    return RetryPolicy.<String>builder().name("cancel").maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(10)))
        .retryOn(IOException.class).listener(CallMachineTest.ends(heard));
  }

  private CompletableFuture<String> call(RetryPolicy<String> policy) {
    return AsyncRetryExecutor.of(policy, manual).call(() -> {
      CompletableFuture<String> attempt = new CompletableFuture<>();
      inFlight.add(attempt);
      return attempt;
    });
  }

  @Test
  void aPlainCallCancelledWithItsFirstAttemptInFlightCountsIt() {
    CompletableFuture<String> call = call(policy().build());

    assertThat(call.cancel(true)).isTrue();
    assertThat(inFlight.get(0)).as("the attempt was cancelled").isCancelled();
    assertThat(heard).containsExactly("CANCELLED after 1");
  }

  @Test
  void aPlainCallCancelledWithItsRetryInFlightCountsBothAttempts() {
    CompletableFuture<String> call = call(policy().build());
    inFlight.get(0).completeExceptionally(new IOException("down"));
    tasks.get(0).run(); // the retry falls due

    assertThat(inFlight).hasSize(2);
    assertThat(call.cancel(true)).isTrue();
    assertThat(heard).containsExactly("CANCELLED after 2");
  }

  @Test
  void aHedgedCallCancelledAfterItsHedgeWasRefusedCountsTheFirstAttemptInFlight() {
    // 2 slots, of which hedges may take 1: another call holds one, attempt 1 the other.
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(2).retryShare(0.5).name("cancel").build();
    ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
    CompletableFuture<String> call = call(policy().hedging(Hedging.after(Duration.ofMillis(50)))
        .concurrencyLimiter(limiter).build());
    tasks.get(0).run(); // the hedge falls due and is refused
    assertThat(inFlight).as("only the first attempt was sent").hasSize(1);
    assertThat(limiter.refusedRetriesAndHedges()).isEqualTo(1);

    assertThat(call.cancel(true)).isTrue();
    assertThat(inFlight.get(0)).isCancelled();
    assertThat(heard).containsExactly("CANCELLED after 1");
    elsewhere.release();
    assertThat(limiter.inFlight()).as("the cancelled attempt's slot given back").isZero();
  }

  @Test
  void aHedgedCallCancelledWhileItsFirstAttemptWaitsForTheLimitersTokenCountsNone() {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("cancel").build();
    limiter.onResponse(true); // enabled at its floor rate; another call takes its one token
    assertThat(limiter.reserve()).isZero();
    CompletableFuture<String> call = call(policy().hedging(Hedging.after(Duration.ofMillis(50)))
        .rateLimiter(limiter).build());
    assertThat(tasks).as("the first attempt waits for its token").hasSize(1);

    assertThat(call.cancel(true)).isTrue();
    assertThat(inFlight).isEmpty();
    assertThat(heard).containsExactly("CANCELLED after 0");
  }
}
