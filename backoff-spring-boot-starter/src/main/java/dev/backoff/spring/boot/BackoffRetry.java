package dev.backoff.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Retries calls of a Spring bean's method under a named policy from {@code backoff.policies.<name>}.
 * On a method, or on a type for all its public methods (a method's own annotation wins); on a class or an
 * interface it implements. Named so as not to clash with Spring's {@code @Retryable}.
 *
 * <ul>
 *   <li>A method returning a plain value (or {@code void}) is retried on the calling thread, sleeping
 *       between attempts.
 *   <li>A method returning {@code CompletionStage} or {@code CompletableFuture} is called again for each
 *       attempt; waits are tasks on a scheduler, and no thread is held. The caller gets a
 *       {@code CompletableFuture}; cancelling it stops the retries.
 *   <li>A method returning Reactor's {@code Mono} or {@code Flux} (Reactor on the class path) is called
 *       and subscribed again for each attempt, by backoff-reactor's operators when that module is on the
 *       class path (a {@code Flux} is retried until its first element, see its {@code FluxRetry}); waits
 *       are on the context's Reactor {@code Scheduler} bean if it has one, else {@code Schedulers.parallel()}.
 *       Without backoff-reactor a {@code Mono} still works (through the asynchronous loop, one
 *       {@code toFuture()} per attempt, waiting on the registry's scheduler) and a {@code Flux} method
 *       fails the context at startup. Cancelling the subscription stops the retries.
 * </ul>
 *
 * <p>The call goes through a proxy, as with Spring's own {@code @Transactional} or {@code @Async}: a call
 * from the bean to its own method (self-invocation, {@code this.method()}) is not retried, and neither is
 * a call on an object that is not a Spring bean. An unknown policy name or a bad override fails the
 * context when the bean is created, naming the method; so does the annotation on a private, static or
 * (under a class proxy) final method, which no proxy could retry, or beside Spring's own {@code @Retryable},
 * whose retries would multiply with these.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface BackoffRetry {
  /** The policy's name under {@code backoff.policies}. */
  String value();

  /** Overrides the policy's maximum number of attempts; 0 (the default) keeps the policy's. */
  int maxAttempts() default 0;

  /** Overrides the policy's deadline, in Backoff's duration syntax ({@code 10s}); empty keeps the policy's. */
  String maxElapsed() default "";

  /** Overrides the policy's strategy, in Backoff's spec grammar ({@code fixed:1s}); empty keeps the policy's. */
  String strategy() default "";

  /**
   * Exception types retried, added to the policy's retry-on types; if the policy has none (it retries
   * every {@code Exception}), these replace that default. None: the policy's rules alone.
   */
  Class<? extends Throwable>[] retryOn() default {};

  /** Exception types that stop the call at once, in addition to the policy's abort-on types. */
  Class<? extends Throwable>[] abortOn() default {};
}
