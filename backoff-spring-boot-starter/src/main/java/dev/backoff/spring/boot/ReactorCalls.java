package dev.backoff.spring.boot;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.reactor.BackoffOperators;
import dev.backoff.reactor.FluxRetry;
import dev.backoff.reactor.MonoRetry;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Reactor's part of {@link BackoffRetryInterceptor}, loaded only when Reactor is on the class path. With
 * backoff-reactor present, a method's {@code Mono} or {@code Flux} is retried by its operators (each
 * attempt calls the method again and subscribes to what it returns); without it, a {@code Mono} goes
 * through the core's asynchronous loop as a future per attempt, and a {@code Flux} is refused.
 */
final class ReactorCalls {
  /** Whether backoff-reactor's operators are on the class path. */
  static final boolean OPERATORS = ClassUtils.isPresent("dev.backoff.reactor.BackoffOperators",
      ReactorCalls.class.getClassLoader());

  private ReactorCalls() {}

  static boolean isMono(Class<?> type) {
    return type == Mono.class;
  }

  static boolean isFlux(Class<?> type) {
    return type == Flux.class;
  }

  static boolean isPublisher(Class<?> type) {
    return Publisher.class.isAssignableFrom(type);
  }

  /**
   * backoff-reactor's operator for a method returning {@code type} ({@code Mono} or {@code Flux}) under
   * {@code policy}, waiting on the context's Reactor {@code Scheduler} if it has exactly one (else
   * backoff-reactor's default); null without backoff-reactor.
   */
  static Object operator(Class<?> type, RetryPolicy<Object> policy, Function<Class<?>, Object> beans) {
    if (!OPERATORS) {
      return null;
    }
    Scheduler scheduler = (Scheduler) beans.apply(Scheduler.class);
    if (type == Mono.class) {
      MonoRetry<Object> retry = BackoffOperators.retry(policy);
      return scheduler == null ? retry : retry.withScheduler(scheduler);
    }
    FluxRetry<Object> retry = BackoffOperators.retryFlux(policy);
    return scheduler == null ? retry : retry.withScheduler(scheduler);
  }

  /** The retried Mono: by backoff-reactor's operator when given one, else through the asynchronous loop. */
  @SuppressWarnings("unchecked")
  static Mono<Object> mono(Object operator, AsyncRetryExecutor<Object> executor, Callable<Object> method) {
    if (operator != null) {
      return Mono.defer(() -> (Mono<Object>) publisher(method, "Mono")).transform((MonoRetry<Object>) operator);
    }
    // Without backoff-reactor: each attempt subscribes through toFuture(); cancelling the subscription
    // cancels the call (false: cancellation is not suppressed).
    return Mono.fromFuture(() -> executor.call(() -> {
      Object mono = publisher(method, "Mono");
      return ((Mono<Object>) mono).toFuture();
    }), false);
  }

  /** The retried Flux, by backoff-reactor's operator (until its first element: see FluxRetry). */
  @SuppressWarnings("unchecked")
  static Flux<Object> flux(Object operator, Callable<Object> method) {
    return Flux.defer(() -> (Flux<Object>) publisher(method, "Flux")).transform((FluxRetry<Object>) operator);
  }

  /** One call of the method: what it returns, or its failure as an error signal. */
  private static Publisher<?> publisher(Callable<Object> method, String kind) {
    try {
      Object value = method.call();
      if (value == null) {
        return Mono.error(new NullPointerException("the method returned null instead of a " + kind));
      }
      return (Publisher<?>) value;
    } catch (Exception e) {
      return kind.equals("Mono") ? Mono.error(e) : Flux.error(e);
    }
  }
}
