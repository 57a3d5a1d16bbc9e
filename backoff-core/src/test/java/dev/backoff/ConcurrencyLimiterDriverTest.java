package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.ConcurrencyLimiter.AttemptKind;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The concurrency limiter composed with a policy, through the call machine's gate, as the synchronous and
 * asynchronous loops carry it out: a slot per attempt given back when it ends, a refused first attempt, a
 * refused retry, the outcomes the limiter hears, and the breaker's permit it carries.
 */
class ConcurrencyLimiterDriverTest {
  /** Runs every task at once, on the scheduling thread (the policies here have no backoff). */
  private static final RetryScheduler INLINE = (task, delayNanos) -> {
    task.run();
    return CompletableFuture.completedFuture(null);
  };

  /** An overload answer (a 429), classified {@link FailureClass#THROTTLED}. */
  static final class Throttled extends IOException {
    Throttled() {
      super("429");
    }
  }

  private static RetryPolicy<String> policy(ConcurrencyLimiter limiter) {
    return RetryPolicy.<String>builder().name("users").maxAttempts(3).backoff(Backoff.none())
        .retryOn(IOException.class)
        .classifyFailures(failure -> failure instanceof Throttled ? FailureClass.THROTTLED : FailureClass.TRANSIENT)
        .concurrencyLimiter(limiter).build();
  }

  @Test
  void aSyncFirstAttemptFindingTheLimitFullFailsAtOnce() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).name("db").build();
    ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(() -> RetryExecutor.of(policy(limiter)).call(() -> "ok" + attempts.incrementAndGet()))
        .isInstanceOf(ConcurrencyLimitedException.class)
        .hasMessage("concurrency limiter 'db' refused the first attempt: 1 attempts in flight, limit 1");
    assertThat(attempts).hasValue(0);
    assertThat(limiter.refusedFirstAttempts()).isEqualTo(1);
    elsewhere.release();
  }

  @Test
  void aRecoveryGetsTheRefusalAndItsHistory() throws Exception {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).name("db").build();
    ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
    List<Object> seen = new ArrayList<>();

    String value = RetryExecutor.of(policy(limiter)).call(() -> "ok", (last, failure, history) -> {
      seen.add(failure.getClass().getSimpleName());
      seen.add(history.stopReason());
      seen.add(history.attempts());
      return "fallback";
    });
    assertThat(value).isEqualTo("fallback");
    assertThat(seen).containsExactly("ConcurrencyLimitedException", StopReason.CONCURRENCY_LIMITED, 0);
    elsewhere.release();
  }

  @Test
  void aRetryBeyondTheRetryShareStopsTheCallWithItsLastFailureSyncAndAsync() throws Exception {
    // A limit of 2 with a retry share of 0.5: retries only while fewer than 1 attempt is in flight.
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(2).retryShare(0.5).build();
    ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
    AtomicInteger attempts = new AtomicInteger();
    Throwable[] failures = new Throwable[2];

    try {
      RetryExecutor.of(policy(limiter)).call(() -> {
        throw new IOException("down " + attempts.incrementAndGet());
      });
    } catch (IOException expected) {
      failures[0] = expected;
    }
    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(limiter), INLINE)
        .call(() -> CompletableFuture.failedFuture(new IOException("down " + attempts.incrementAndGet())));
    failures[1] = call.handle((result, failure) -> failure).get();

    assertThat(failures).extracting(Throwable::getMessage).containsExactly("down 1", "down 2");
    assertThat(failures).extracting(failure -> RetryHistory.of(failure).stopReason())
        .containsOnly(StopReason.CONCURRENCY_LIMITED);
    assertThat(failures).extracting(failure -> RetryHistory.of(failure).attempts()).containsOnly(1);
    assertThat(limiter.refusedRetriesAndHedges()).isEqualTo(2);
    assertThat(limiter.inFlight()).as("only the slot held elsewhere").isEqualTo(1);
    elsewhere.release();
    assertThat(limiter.inFlight()).isZero();
  }

  @Test
  void everySyncAttemptHoldsOneSlotWhileItRunsAndTheLimiterHearsItsOutcome() throws Exception {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.aimd().initialLimit(2).backoffRatio(0.5).build();
    List<String> during = new ArrayList<>();
    AtomicInteger attempts = new AtomicInteger();

    String result = RetryExecutor.of(policy(limiter)).call(() -> {
      int attempt = attempts.incrementAndGet();
      during.add(attempt + ": " + limiter.inFlight() + " in flight, limit " + limiter.limit());
      if (attempt == 1) {
        throw new IOException("reset"); // transient: no sample
      }
      if (attempt == 2) {
        throw new Throttled(); // an overload: a drop, floor(2 × 0.5)
      }
      return "ok"; // a success at 1 in flight of 1: +1
    });

    assertThat(result).isEqualTo("ok");
    assertThat(during).containsExactly("1: 1 in flight, limit 2", "2: 1 in flight, limit 2",
        "3: 1 in flight, limit 1");
    assertThat(limiter.limit()).isEqualTo(2);
    assertThat(limiter.inFlight()).isZero();
  }

  @Test
  void anAsyncFirstAttemptFindingTheLimitFullFailsAtOnceHedgedOrNot() {
    for (boolean hedging : new boolean[] {false, true}) {
      ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).name("db").build();
      ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
      AtomicInteger attempts = new AtomicInteger();

      CompletableFuture<String> call = AsyncRetryExecutor.of(hedging ? hedged(limiter) : policy(limiter), INLINE)
          .call(() -> CompletableFuture.completedFuture("ok" + attempts.incrementAndGet()));
      assertThatThrownBy(call::get).as("hedging " + hedging).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(ConcurrencyLimitedException.class)
          .hasMessage("concurrency limiter 'db' refused the first attempt: 1 attempts in flight, limit 1");
      assertThat(attempts).hasValue(0);
      elsewhere.release();
    }
  }

  @Test
  void anAsyncCallGivesEachAttemptsSlotBackAndTheLimiterHearsItsOutcome() throws Exception {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.aimd().initialLimit(2).backoffRatio(0.5).build();
    List<String> during = new ArrayList<>();
    AtomicInteger attempts = new AtomicInteger();

    String result = AsyncRetryExecutor.of(policy(limiter), INLINE).call(() -> {
      int attempt = attempts.incrementAndGet();
      during.add(attempt + ": " + limiter.inFlight() + " in flight, limit " + limiter.limit());
      return attempt == 1 ? CompletableFuture.<String>failedFuture(new Throttled())
          : CompletableFuture.completedFuture("ok");
    }).get();

    assertThat(result).isEqualTo("ok");
    assertThat(during).containsExactly("1: 1 in flight, limit 2", "2: 1 in flight, limit 1");
    assertThat(limiter.limit()).isEqualTo(2);
    assertThat(limiter.inFlight()).isZero();
  }

  /** A rate limiter throttled once before any measurement, whose one token another call took: the next waits. */
  private static AdaptiveRateLimiter emptyRateLimiter() {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().name("rate").clock(() -> 0).build();
    limiter.onResponse(true);
    assertThat(limiter.reserve()).isZero();
    return limiter;
  }

  @Test
  void aSyncFirstAttemptWaitingForATokenHoldsNoSlotAndIsRefusedIfTheLimitFillsMeanwhile() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).name("db").build();
    AdaptiveRateLimiter rate = emptyRateLimiter();
    double tokens = rate.tokens();
    List<ConcurrencyLimiter.Permit> elsewhere = new ArrayList<>();
    RetryPolicy<String> policy = policy(limiter).toBuilder().rateLimiter(rate).sleeper(nanos -> {
      elsewhere.add(limiter.tryAcquire(AttemptKind.FIRST)); // the slot is free while this call waits
    }).build();

    assertThatThrownBy(() -> RetryExecutor.of(policy).call(() -> "ok")).isInstanceOf(ConcurrencyLimitedException.class)
        .hasMessage("concurrency limiter 'db' refused the first attempt: 1 attempts in flight, limit 1");
    assertThat(elsewhere).doesNotContainNull().hasSize(1);
    assertThat(rate.tokens()).as("the token waited for is given back").isEqualTo(tokens);
    elsewhere.get(0).release();
  }

  @Test
  void anAsyncFirstAttemptWaitingForATokenHoldsNoSlotAndIsRefusedIfTheLimitFillsMeanwhile() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).name("db").build();
    AdaptiveRateLimiter rate = emptyRateLimiter();
    double tokens = rate.tokens();
    List<Runnable> waits = new ArrayList<>();
    RetryScheduler manual = (task, delayNanos) -> {
      waits.add(task);
      return new CompletableFuture<>();
    };
    AtomicInteger attempts = new AtomicInteger();

    CompletableFuture<String> call = AsyncRetryExecutor.of(policy(limiter).toBuilder().rateLimiter(rate).build(), manual)
        .call(() -> CompletableFuture.completedFuture("ok" + attempts.incrementAndGet()));
    assertThat(waits).as("waiting for the rate limiter's token").hasSize(1);
    ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
    assertThat(elsewhere).as("the waiting call holds no slot").isNotNull();
    waits.get(0).run();

    assertThatThrownBy(call::get).cause().isInstanceOf(ConcurrencyLimitedException.class)
        .hasMessage("concurrency limiter 'db' refused the first attempt: 1 attempts in flight, limit 1");
    assertThat(attempts).hasValue(0);
    assertThat(rate.tokens()).as("the token waited for is given back").isEqualTo(tokens);
    elsewhere.release();
  }

  @Test
  void anAsyncFirstAttemptWaitingForATokenFailsWithTheBreakersRefusalIfItOpensMeanwhile() {
    CircuitBreaker breaker = CircuitBreaker.builder().name("db").countWindow(1).minimumCalls(1).build();
    AdaptiveRateLimiter rate = emptyRateLimiter();
    List<Runnable> waits = new ArrayList<>();
    RetryScheduler manual = (task, delayNanos) -> {
      waits.add(task);
      return new CompletableFuture<>();
    };
    RetryPolicy<String> policy = RetryPolicy.<String>builder().circuitBreaker(breaker).rateLimiter(rate).build();

    CompletableFuture<String> call = AsyncRetryExecutor.of(policy, manual)
        .call(() -> CompletableFuture.completedFuture("ok"));
    assertThat(waits).hasSize(1);
    breaker.tryAcquire().onFailure(FailureClass.TRANSIENT); // another call's failure opens the breaker
    waits.get(0).run();

    // It used to complete with null, having run no attempt.
    assertThatThrownBy(call::get).cause().isInstanceOf(CircuitOpenException.class)
        .hasMessage("circuit breaker 'db' is OPEN and refused the call");
  }

  @Test
  void listenersHearARefusedRetryAsTheCallsEnd() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(2).retryShare(0.5).build();
    ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
    List<StopReason> exhausted = new ArrayList<>();
    RetryPolicy<String> policy = policy(limiter).toBuilder().listener(new RetryListener<String>() {
      @Override
      public void onExhausted(RetryEvent<String> event) {
        exhausted.add(event.stopReason());
      }
    }).build();

    assertThatThrownBy(() -> RetryExecutor.of(policy).call(() -> {
      throw new IOException("down");
    })).isInstanceOf(IOException.class);
    assertThat(exhausted).containsExactly(StopReason.CONCURRENCY_LIMITED);
    elsewhere.release();
  }

  @Test
  void theSlotCarriesTheBreakersPermitAndARefusalGivesItBack() throws Exception {
    CircuitBreaker breaker = CircuitBreaker.builder().countWindow(10).minimumCalls(10).build();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(1).build();
    RetryPolicy<String> policy = RetryPolicy.<String>builder().maxAttempts(3).backoff(Backoff.none())
        .retryOn(IOException.class).circuitBreaker(breaker).concurrencyLimiter(limiter).build();
    AtomicInteger attempts = new AtomicInteger();

    String result = RetryExecutor.of(policy).call(() -> {
      if (attempts.incrementAndGet() == 1) {
        throw new IOException("reset");
      }
      return "ok";
    });
    assertThat(result).isEqualTo("ok");
    assertThat(breaker.metrics().calls()).as("both attempts reached the breaker").isEqualTo(2);
    assertThat(breaker.metrics().failures()).isEqualTo(1);

    ConcurrencyLimiter.Permit elsewhere = limiter.tryAcquire(AttemptKind.FIRST);
    assertThatThrownBy(() -> RetryExecutor.of(policy).call(() -> "ok")).isInstanceOf(ConcurrencyLimitedException.class);
    assertThat(breaker.metrics().calls()).as("the refused attempt's permit was released, not counted").isEqualTo(2);
    elsewhere.release();
  }

  /** A hedged policy on {@code limiter}: a hedge 50 ms after each attempt, up to 3 attempts. */
  private static RetryPolicy<String> hedged(ConcurrencyLimiter limiter) {
    return policy(limiter).toBuilder().hedging(Hedging.after(Duration.ofMillis(50))).build();
  }

  @Test
  void aHedgeIsAdmittedAsARetryIsAndItsSlotIsGivenBackWhenTheCallEnds() {
    // A limit of 4, retry share 0.8: a hedge may start while fewer than 3 attempts are in flight.
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(4).build();
    List<Runnable> hedges = new ArrayList<>();
    RetryScheduler manual = (task, delayNanos) -> {
      hedges.add(task);
      return new CompletableFuture<>();
    };
    List<CompletableFuture<String>> inFlight = new ArrayList<>();

    CompletableFuture<String> call = AsyncRetryExecutor.of(hedged(limiter), manual).call(() -> {
      CompletableFuture<String> attempt = new CompletableFuture<>();
      inFlight.add(attempt);
      return attempt;
    });
    assertThat(limiter.inFlight()).isEqualTo(1);
    hedges.get(0).run();
    assertThat(inFlight).as("the hedge started").hasSize(2);
    assertThat(limiter.inFlight()).isEqualTo(2);

    inFlight.get(1).complete("hedge");
    assertThat(call).isCompletedWithValue("hedge");
    assertThat(limiter.inFlight()).as("the winner's slot and the cancelled attempt's, both given back").isZero();
    assertThat(limiter.refusedRetriesAndHedges()).isZero();
  }

  @Test
  void aHedgeBeyondTheRetryShareIsNotSentAndTheAttemptInFlightStillWins() {
    // A limit of 2, retry share 0.5: a hedge may start only while no other attempt is in flight.
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(2).retryShare(0.5).build();
    List<Runnable> hedges = new ArrayList<>();
    RetryScheduler manual = (task, delayNanos) -> {
      hedges.add(task);
      return new CompletableFuture<>();
    };
    List<CompletableFuture<String>> inFlight = new ArrayList<>();
    RecordingStops stops = new RecordingStops();

    CompletableFuture<String> call = AsyncRetryExecutor.of(hedged(limiter).toBuilder().listener(stops).build(), manual)
        .call(() -> {
          CompletableFuture<String> attempt = new CompletableFuture<>();
          inFlight.add(attempt);
          return attempt;
        });
    hedges.get(0).run();
    assertThat(inFlight).as("the hedge was refused: only the first attempt is in flight").hasSize(1);
    assertThat(limiter.refusedRetriesAndHedges()).isEqualTo(1);
    assertThat(hedges).as("no further hedge is planned").hasSize(1);

    inFlight.get(0).complete("first");
    assertThat(call).isCompletedWithValue("first");
    assertThat(limiter.inFlight()).isZero();
    assertThat(stops.successes).hasValue(1);
  }

  /** Counts the calls that ended in success. */
  private static final class RecordingStops implements RetryListener<Object> {
    final AtomicInteger successes = new AtomicInteger();

    @Override
    public void onSuccess(RetryEvent<Object> event) {
      successes.incrementAndGet();
    }
  }

  @Test
  void thePolicyShowsItsLimiter() {
    RetryPolicy<String> policy = policy(ConcurrencyLimiter.fixed(4).name("db").build());
    assertThat(policy.concurrencyLimiter().name()).isEqualTo("db");
    assertThat(policy.toString()).contains(", concurrency limiter db");
    assertThat(policy.toBuilder().concurrencyLimiter(null).build().concurrencyLimiter()).isNull();
  }
}
