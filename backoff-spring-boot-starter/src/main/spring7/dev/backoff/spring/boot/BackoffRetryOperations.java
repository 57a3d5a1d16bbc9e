package dev.backoff.spring.boot;

import dev.backoff.RetryExecutor;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryOperations;
import org.springframework.core.retry.Retryable;

/**
 * Spring Framework 7's {@link RetryOperations} run under a Backoff policy: code written against
 * {@code RetryOperations} (a {@code RetryTemplate} injected or passed in) keeps its calls, and the policy's
 * executor runs them, with the policy's backoff, attempts, deadline, budget, breaker, limiter, listeners and
 * metrics. The starter registers one per named policy on Spring Framework 7, {@code <name>RetryOperations}
 * ({@code @Qualifier("inventoryRetryOperations") RetryOperations}).
 *
 * <p>It translates, and decides nothing: every attempt and every stop is the executor's (the core's engine);
 * there is no Spring {@code RetryPolicy} or {@code BackOff} in the loop. What it translates is how the end of
 * a call is reported, as {@code RetryTemplate} reports it: {@link #execute} throws a {@link RetryException}
 * whose cause is the last failure (the executor's stop reason in its message, the {@code RetryHistory} on the
 * cause, as Backoff attaches it), for a failure that was not retried too (an {@link Error} passes through);
 * {@link #invoke(Supplier)} and
 * {@link #invoke(Runnable)} throw the last failure itself when it is unchecked and an
 * {@link UndeclaredThrowableException} around it otherwise. An interrupt while waiting between attempts ends
 * the call with the thread's interrupt flag set, its {@link InterruptedException} as that cause.
 *
 * <p>Compiled against Spring Framework 7 alone (this file is outside the starter's main sources, which build
 * against Spring Boot 3.5): on Spring Framework 6.2 it is never loaded. Thread-safe.
 */
public final class BackoffRetryOperations implements RetryOperations {
  private final RetryExecutor<Object> executor;

  /**
   * Operations run by {@code executor} (a named policy's: {@code BackoffRegistry.executor(name)}).
   *
   * @throws NullPointerException if {@code executor} is null
   */
  public BackoffRetryOperations(RetryExecutor<Object> executor) {
    this.executor = Objects.requireNonNull(executor, "executor must not be null");
  }

  /** The executor that runs the calls. */
  public RetryExecutor<Object> executor() {
    return executor;
  }

  @Override
  public <R> R execute(Retryable<R> retryable) throws RetryException {
    Objects.requireNonNull(retryable, "retryable must not be null");
    try {
      return executor.call(() -> {
        try {
          return retryable.execute();
        } catch (Exception | Error e) {
          throw e;
        } catch (Throwable t) {
          throw new UndeclaredThrowableException(t); // a Throwable neither checked, unchecked nor Error
        }
      });
    } catch (Exception failure) {
      throw new RetryException("Backoff policy '" + executor.policy().name() + "' ended " + retryable.getName()
          + " with " + failure, failure);
    }
  }

  @Override
  public <R> R invoke(Supplier<R> retryable) {
    Objects.requireNonNull(retryable, "retryable must not be null");
    try {
      return executor.call(retryable::get);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new UndeclaredThrowableException(e);
    }
  }

  @Override
  public void invoke(Runnable retryable) {
    Objects.requireNonNull(retryable, "retryable must not be null");
    invoke(() -> {
      retryable.run();
      return null;
    });
  }

  @Override
  public String toString() {
    return "BackoffRetryOperations[" + executor.policy().name() + "]";
  }
}
