package dev.backoff.bench;

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

  private AsyncLibraries() {}

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
      default:
        throw new IllegalArgumentException(
            "library must be one of backoff, resilience4j, failsafe; was " + library);
    }
  }
}
