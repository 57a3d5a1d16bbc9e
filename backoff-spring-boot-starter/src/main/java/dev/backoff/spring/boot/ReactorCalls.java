package dev.backoff.spring.boot;

import dev.backoff.AsyncRetryExecutor;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/** Reactor's part of {@link BackoffRetryInterceptor}, loaded only when Reactor is on the class path. */
final class ReactorCalls {
  private ReactorCalls() {}

  static boolean isMono(Class<?> type) {
    return type == Mono.class;
  }

  static boolean isPublisher(Class<?> type) {
    return Publisher.class.isAssignableFrom(type);
  }

  /**
   * A Mono whose subscription runs the call on the asynchronous loop: each attempt calls the method again
   * and subscribes to its Mono ({@code toFuture}); cancelling the subscription cancels the call.
   */
  static Mono<Object> mono(AsyncRetryExecutor<Object> executor, Callable<Object> method) {
    return Mono.fromFuture(() -> executor.call(() -> {
      try {
        Object mono = method.call();
        if (mono == null) {
          return CompletableFuture.failedFuture(new NullPointerException("the method returned null instead of a Mono"));
        }
        @SuppressWarnings("unchecked")
        Mono<Object> typed = (Mono<Object>) mono;
        return typed.toFuture();
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    }), false); // false: cancelling the subscription cancels the call
  }
}
