package dev.backoff.bench;

import dev.backoff.Backoff;
import dev.backoff.Decision;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.CallState;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.function.CheckedSupplier;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.springframework.core.retry.Retryable;
import org.springframework.retry.RetryCallback;
import org.springframework.retry.support.RetryTemplate;

/**
 * Builds the same retry policy in each library: at most 3 attempts, retry on any {@link Exception}, zero
 * delay between attempts, configured through each library's public API (no static hooks). Each returns an
 * {@link Invocation} bound to one task, so the benchmark measures only the call.
 */
public final class Libraries {
  /** The task called with no retry wrapper at all: the baseline. */
  public static final String DIRECT = "direct";
  /** Backoff's {@link RetryExecutor}. */
  public static final String BACKOFF = "backoff";
  /**
   * Not a library: Backoff's decision engine ({@link CallState}) driven directly with a constant time, no
   * clock reads and no sleeper; the retry path's breakdown (the executor's extra cost is its clock reads).
   */
  public static final String BACKOFF_ENGINE = "backoff-engine-only";
  /** Resilience4j's {@code Retry}. */
  public static final String RESILIENCE4J = "resilience4j";
  /** Failsafe's {@code FailsafeExecutor} with a {@code RetryPolicy}. */
  public static final String FAILSAFE = "failsafe";
  /** Spring Retry's {@code RetryTemplate}. */
  public static final String SPRING_RETRY = "spring-retry";
  /** Spring Framework 7's {@code org.springframework.core.retry.RetryTemplate}. */
  public static final String SPRING_CORE_RETRY = "spring-core-retry";

  static final int MAX_ATTEMPTS = 3;

  private Libraries() {}

  /**
   * Wraps {@code task} in {@code library}'s retry.
   *
   * @throws IllegalArgumentException if {@code library} is not one of the names above
   */
  public static Invocation wrap(String library, Callable<String> task) {
    switch (library) {
      case DIRECT:
        return task::call;
      case BACKOFF:
        return backoff(task);
      case BACKOFF_ENGINE:
        return backoffEngine(task);
      case RESILIENCE4J:
        return resilience4j(task);
      case FAILSAFE:
        return failsafe(task);
      case SPRING_RETRY:
        return springRetry(task);
      case SPRING_CORE_RETRY:
        return springCoreRetry(task);
      default:
        throw new IllegalArgumentException("library must be one of direct, backoff, backoff-engine-only, "
            + "resilience4j, failsafe, spring-retry, spring-core-retry; was " + library);
    }
  }

  private static Invocation backoff(Callable<String> task) {
    RetryExecutor<String> executor = RetryExecutor.of(RetryPolicy.<String>builder()
        .maxAttempts(MAX_ATTEMPTS)
        .backoff(Backoff.none())
        .build());
    return () -> executor.call(task);
  }

  private static Invocation backoffEngine(Callable<String> task) {
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(MAX_ATTEMPTS)
        .backoff(Backoff.none())
        .build();
    return () -> {
      try {
        return task.call();
      } catch (Exception first) {
        CallState<String> execution = Engine.newExecution(policy, 0, policy.random());
        Decision decision = Engine.record(execution, null, first, Verdict.RETRYABLE, 0);
        while (decision.isRetry()) {
          try {
            String result = task.call();
            decision = Engine.record(execution, result, null, Engine.judge(policy, null, result, null), 0);
            if (decision.isSuccess()) {
              return result;
            }
          } catch (Exception failure) {
            decision = Engine.record(execution, null, failure, Verdict.RETRYABLE, 0);
          }
        }
        throw (Exception) execution.finalFailure();
      }
    };
  }

  private static Invocation resilience4j(Callable<String> task) {
    Retry retry = Retry.of("bench", RetryConfig.custom()
        .maxAttempts(MAX_ATTEMPTS)
        .waitDuration(Duration.ZERO)
        .retryExceptions(Exception.class)
        .build());
    return () -> retry.executeCallable(task);
  }

  private static Invocation failsafe(Callable<String> task) {
    // Failsafe rejects withDelay(Duration.ZERO); zero is its default, checked here.
    dev.failsafe.RetryPolicy<String> policy = dev.failsafe.RetryPolicy.<String>builder()
        .withMaxAttempts(MAX_ATTEMPTS)
        .handle(Exception.class)
        .build();
    if (!policy.getConfig().getDelay().isZero()) {
      throw new IllegalStateException("Failsafe's default delay is not zero: " + policy.getConfig().getDelay());
    }
    FailsafeExecutor<String> executor = Failsafe.with(policy);
    CheckedSupplier<String> supplier = task::call;
    return () -> executor.get(supplier);
  }

  private static Invocation springRetry(Callable<String> task) {
    RetryTemplate template = RetryTemplate.builder()
        .maxAttempts(MAX_ATTEMPTS)
        .noBackoff()
        .retryOn(Exception.class)
        .build();
    RetryCallback<String, Exception> callback = context -> task.call();
    return () -> template.execute(callback);
  }

  private static Invocation springCoreRetry(Callable<String> task) {
    org.springframework.core.retry.RetryTemplate template = new org.springframework.core.retry.RetryTemplate(
        org.springframework.core.retry.RetryPolicy.builder()
            .maxRetries(MAX_ATTEMPTS - 1)
            .delay(Duration.ZERO)
            .includes(Exception.class)
            .build());
    Retryable<String> retryable = task::call;
    return () -> template.execute(retryable);
  }
}
