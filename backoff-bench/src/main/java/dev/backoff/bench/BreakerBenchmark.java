package dev.backoff.bench;

import dev.backoff.Backoff;
import dev.backoff.CircuitBreaker;
import dev.backoff.FailureClass;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
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
 * The success path through a closed circuit breaker with a count window of 100 calls: Backoff's
 * {@link CircuitBreaker} alone (permit, then success) and composed with a retry policy, against
 * Resilience4j's {@code CircuitBreaker} alone and composed with its {@code Retry}, in one run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class BreakerBenchmark {
  @Param({"direct", "backoff-breaker", "backoff+breaker", "resilience4j-breaker", "resilience4j-retry+breaker"})
  public String library;

  /** Read by the task, so that the result is not a compile-time constant. */
  public String value = "ok";

  Invocation invocation;

  @Setup
  public void setUp() {
    Callable<String> task = () -> value;
    invocation = switch (library) {
      case "direct" -> task::call;
      case "backoff-breaker" -> {
        CircuitBreaker breaker = breaker();
        yield () -> {
          CircuitBreaker.Permit permit = breaker.tryAcquire();
          if (permit == null) {
            throw new IllegalStateException("the breaker opened");
          }
          try {
            String result = task.call();
            permit.onSuccess();
            return result;
          } catch (Exception failure) {
            permit.onFailure(FailureClass.TRANSIENT);
            throw failure;
          }
        };
      }
      case "backoff+breaker" -> {
        RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
            .maxAttempts(Libraries.MAX_ATTEMPTS).backoff(Backoff.none()).circuitBreaker(breaker()).build());
        yield () -> executor.call(task);
      }
      case "resilience4j-breaker" -> {
        Callable<String> guarded = io.github.resilience4j.circuitbreaker.CircuitBreaker.decorateCallable(
            resilience4jBreaker(), task);
        yield guarded::call;
      }
      case "resilience4j-retry+breaker" -> {
        Retry retry = Retry.of("bench", RetryConfig.custom().maxAttempts(Libraries.MAX_ATTEMPTS)
            .waitDuration(Duration.ZERO).retryExceptions(Exception.class).build());
        Callable<String> guarded = io.github.resilience4j.circuitbreaker.CircuitBreaker.decorateCallable(
            resilience4jBreaker(), task);
        yield () -> retry.executeCallable(guarded);
      }
      default -> throw new IllegalArgumentException("unknown library: " + library);
    };
  }

  private static CircuitBreaker breaker() {
    return CircuitBreaker.builder().countWindow(100).minimumCalls(100).build();
  }

  private static io.github.resilience4j.circuitbreaker.CircuitBreaker resilience4jBreaker() {
    return io.github.resilience4j.circuitbreaker.CircuitBreaker.of("bench", CircuitBreakerConfig.custom()
        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED).slidingWindowSize(100)
        .minimumNumberOfCalls(100).build());
  }

  @Benchmark
  public String call() throws Exception {
    return invocation.invoke();
  }
}
