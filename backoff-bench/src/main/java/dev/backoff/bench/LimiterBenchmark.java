package dev.backoff.bench;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.Backoff;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The success path through a client-side rate limiter: what a call that goes through at once pays for the
 * limiter's bookkeeping. Backoff's {@link AdaptiveRateLimiter} composed with a retry policy, not yet enabled
 * (no throttle seen: the common case) and enabled, against Resilience4j's {@code RateLimiter} alone and
 * composed with its {@code Retry}. No configuration ever makes a call wait: the enabled limiter's minimum
 * fill rate (10^12 tokens/s) and capacity (10^6) are far above any call rate here, Resilience4j's limit per
 * period is {@code Integer.MAX_VALUE} per second, so what is measured is the permission bookkeeping.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class LimiterBenchmark {
  @Param({"direct", "backoff", "backoff+limiter", "backoff+limiter-enabled", "resilience4j-retry",
      "resilience4j-ratelimiter", "resilience4j-retry+ratelimiter"})
  public String library;

  /** Read by the task, so that the result is not a compile-time constant. */
  public String value = "ok";

  Invocation invocation;
  AdaptiveRateLimiter limiter; // Backoff's, when the setup has one (for the setup test)

  @Setup
  public void setUp() {
    Callable<String> task = () -> value;
    invocation = switch (library) {
      case "direct" -> task::call;
      case "backoff" -> backoff(task, null);
      case "backoff+limiter" -> {
        limiter = AdaptiveRateLimiter.builder().build();
        yield backoff(task, limiter);
      }
      case "backoff+limiter-enabled" -> {
        limiter = AdaptiveRateLimiter.builder().minFillRate(1e12).minCapacity(1e6).build();
        limiter.onResponse(true); // a throttle enables it
        if (!limiter.enabled()) {
          throw new IllegalStateException("the limiter did not enable");
        }
        yield backoff(task, limiter);
      }
      case "resilience4j-retry" -> {
        Retry retry = retry();
        yield () -> retry.executeCallable(task);
      }
      case "resilience4j-ratelimiter" -> {
        Callable<String> limited = RateLimiter.decorateCallable(rateLimiter(), task);
        yield limited::call;
      }
      case "resilience4j-retry+ratelimiter" -> {
        Retry retry = retry();
        Callable<String> limited = RateLimiter.decorateCallable(rateLimiter(), task);
        yield () -> retry.executeCallable(limited);
      }
      default -> throw new IllegalArgumentException("unknown library: " + library);
    };
  }

  private static Invocation backoff(Callable<String> task, AdaptiveRateLimiter limiter) {
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(Libraries.MAX_ATTEMPTS).backoff(Backoff.none()).rateLimiter(limiter).build());
    return () -> executor.call(task);
  }

  private static Retry retry() {
    return Retry.of("bench", RetryConfig.custom().maxAttempts(Libraries.MAX_ATTEMPTS).waitDuration(Duration.ZERO)
        .retryExceptions(Exception.class).build());
  }

  private static RateLimiter rateLimiter() {
    return RateLimiter.of("bench", RateLimiterConfig.custom().limitForPeriod(Integer.MAX_VALUE)
        .limitRefreshPeriod(Duration.ofSeconds(1)).timeoutDuration(Duration.ZERO).build());
  }

  @Benchmark
  public String call() throws Exception {
    return invocation.invoke();
  }
}
