package dev.backoff.bench;

import dev.backoff.kotlin.RetryingKt;
import dev.backoff.reactor.BackoffOperators;
import dev.backoff.reactor.MonoRetry;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlinx.coroutines.CoroutineScope;
import kotlinx.coroutines.CoroutineScopeKt;
import kotlinx.coroutines.CoroutineStart;
import kotlinx.coroutines.ExecutorsKt;
import kotlinx.coroutines.future.FutureKt;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * The asynchronous retry of each library that has one (Spring Retry and Spring Framework's core retry have
 * none for {@code CompletionStage}s): at most {@code maxAttempts} attempts, a fixed {@code delay} between
 * them, retries scheduled on the given scheduler, configured through public API only.
 */
public final class AsyncLibraries {
  /** Backoff's {@link AsyncRetryExecutor}. */
  public static final String BACKOFF = Libraries.BACKOFF;
  /** Resilience4j's {@code Retry.executeCompletionStage}. */
  public static final String RESILIENCE4J = Libraries.RESILIENCE4J;
  /** Failsafe's {@code getStageAsync}. */
  public static final String FAILSAFE = Libraries.FAILSAFE;
  /** Backoff's Reactor driver: {@code mono.transform(BackoffOperators.retry(policy)).toFuture()}. */
  public static final String BACKOFF_REACTOR = "backoff-reactor";
  /** Backoff's Kotlin driver: {@code policy.retrying { stage.await() }} in a coroutine on the scheduler. */
  public static final String BACKOFF_KOTLIN = "backoff-kotlin";
  /** Reactor's own {@code retryWhen(Retry.fixedDelay(...))}. */
  public static final String REACTOR_RETRY = "reactor-retry";

  private AsyncLibraries() {}

  private static RetryPolicy<String> policy(int maxAttempts, Duration delay) {
    return RetryPolicy.<String>builder()
        .maxAttempts(maxAttempts)
        .backoff(delay.isZero() ? Backoff.none() : Backoff.fixed(delay))
        .build();
  }

  /** Starts one retried asynchronous call. */
  @FunctionalInterface
  public interface AsyncInvocation {
    /** Starts the call; the future completes with its outcome. */
    CompletableFuture<String> start();
  }

  /**
   * Wraps {@code attempt} in {@code library}'s asynchronous retry.
   *
   * @param delay the delay before each retry; zero for none
   * @throws IllegalArgumentException if {@code library} is unknown
   */
  public static AsyncInvocation wrap(String library, ScheduledExecutorService scheduler, int maxAttempts,
      Duration delay, Supplier<CompletionStage<String>> attempt) {
    switch (library) {
      case BACKOFF: {
        AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(RetryPolicy.<String>builder()
            .maxAttempts(maxAttempts)
            .backoff(delay.isZero() ? Backoff.none() : Backoff.fixed(delay))
            .build(), scheduler);
        return () -> executor.call(attempt);
      }
      case RESILIENCE4J: {
        Retry retry = Retry.of("bench", RetryConfig.custom()
            .maxAttempts(maxAttempts)
            .waitDuration(delay)
            .retryExceptions(Exception.class)
            .build());
        return () -> retry.executeCompletionStage(scheduler, attempt).toCompletableFuture();
      }
      case FAILSAFE: {
        dev.failsafe.RetryPolicyBuilder<String> builder = dev.failsafe.RetryPolicy.<String>builder()
            .withMaxAttempts(maxAttempts)
            .handle(Exception.class);
        if (!delay.isZero()) { // Failsafe rejects an explicit zero delay; zero is its default
          builder.withDelay(delay);
        }
        FailsafeExecutor<String> executor = Failsafe.with(builder.build()).with(scheduler);
        return () -> executor.getStageAsync(attempt::get);
      }
      case BACKOFF_REACTOR: {
        MonoRetry<String> retry = BackoffOperators.<String>retry(policy(maxAttempts, delay))
            .withScheduler(Schedulers.fromExecutorService(scheduler));
        Mono<String> mono = Mono.fromCompletionStage(attempt).transform(retry);
        return mono::toFuture;
      }
      case REACTOR_RETRY: {
        Mono<String> mono = Mono.fromCompletionStage(attempt)
            .retryWhen(reactor.util.retry.Retry.fixedDelay(maxAttempts - 1, delay)
                .scheduler(Schedulers.fromExecutorService(scheduler)));
        return mono::toFuture;
      }
      case BACKOFF_KOTLIN: {
        RetryPolicy<String> policy = policy(maxAttempts, delay);
        // The suspend functions called from Java in continuation-passing style: retrying's block awaits the
        // attempt's stage; the coroutine runs on the scheduler (whose delay the dispatcher uses).
        CoroutineScope scope = CoroutineScopeKt.CoroutineScope(ExecutorsKt.from(scheduler));
        return () -> FutureKt.future(scope, EmptyCoroutineContext.INSTANCE, CoroutineStart.DEFAULT,
            (coroutine, continuation) -> RetryingKt.retrying(policy, policy.clock(), policy.random(),
                blockContinuation -> FutureKt.await(attempt.get(), blockContinuation), continuation));
      }
      default:
        throw new IllegalArgumentException("library must be one of backoff, resilience4j, failsafe, backoff-reactor, "
            + "reactor-retry, backoff-kotlin; was " + library);
    }
  }
}
