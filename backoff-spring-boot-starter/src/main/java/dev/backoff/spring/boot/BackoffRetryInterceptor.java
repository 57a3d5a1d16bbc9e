package dev.backoff.spring.boot;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.BackoffSpec;
import dev.backoff.spec.Durations;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * The advice behind {@link BackoffRetry}: runs each annotated method on the core's executors (the
 * synchronous loop for plain methods, the asynchronous one for stages) or backoff-reactor's operators
 * (on the same asynchronous loop, for {@code Mono} and {@code Flux}), with the named
 * policy and the annotation's overrides, resolved once per method. It owns no retry loop: each attempt is
 * one more {@code proceed()} of a fresh copy of the invocation. Thread-safe.
 */
public final class BackoffRetryInterceptor implements MethodInterceptor {
  private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
      BackoffRetryInterceptor.class.getClassLoader());
  /**
   * The other retry annotations, those present: Spring Framework 7's ({@code spring-context}) and Spring
   * Retry's. Either one on a {@link BackoffRetry} method would run a second retry loop around or inside
   * ours, multiplying the attempts past every limit the policy sets, so such a method fails the context.
   */
  static final List<Class<? extends Annotation>> OTHER_RETRIES = present(
      "org.springframework.resilience.annotation.Retryable", "org.springframework.retry.annotation.Retryable");

  private final Supplier<BackoffRegistry> registry;
  private final Function<Class<?>, Object> beans;
  private final ConcurrentMap<MethodKey, Target> targets = new ConcurrentHashMap<>();

  /**
   * An interceptor resolving policies from {@code registry} (looked up when a method is first resolved,
   * so that the registry bean is made after the post-processors).
   *
   * @param registry supplies the registry
   * @param beans the context's only bean of a type, or null (the Reactor {@code Scheduler} for reactive
   *     methods)
   * @throws NullPointerException if an argument is null
   */
  public BackoffRetryInterceptor(Supplier<BackoffRegistry> registry, Function<Class<?>, Object> beans) {
    this.registry = Objects.requireNonNull(registry, "registry must not be null");
    this.beans = Objects.requireNonNull(beans, "beans must not be null");
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Class<?> targetClass = invocation.getThis() == null ? invocation.getMethod().getDeclaringClass()
        : AopUtils.getTargetClass(invocation.getThis());
    Target target = resolve(invocation.getMethod(), targetClass);
    if (target == null) {
      return invocation.proceed();
    }
    if (!(invocation instanceof ProxyMethodInvocation proxied)) {
      // Spring's proxies always pass one; without it an attempt could not be repeated.
      throw new IllegalStateException("@BackoffRetry needs a Spring AOP proxy invocation to repeat "
          + invocation.getMethod() + ", got a " + invocation.getClass().getName());
    }
    switch (target.kind) {
      case STAGE:
        return target.async.call(() -> stage(proxied));
      case MONO:
        return ReactorCalls.mono(target.reactive, target.async, () -> proceed(proxied));
      case FLUX:
        return ReactorCalls.flux(target.reactive, () -> proceed(proxied));
      default:
        return target.sync.call(() -> proceed(proxied));
    }
  }

  /**
   * Resolves (once) the policy and executors of an annotated method, checking the annotation.
   *
   * @return null if the method is not annotated (nor its type)
   * @throws BackoffConfigurationException naming the method, for an unknown policy, a bad override or an
   *     unsupported return type
   */
  Target resolve(Method method, Class<?> targetClass) {
    MethodKey key = new MethodKey(method, targetClass);
    Target known = targets.get(key);
    if (known != null) {
      return known == Target.NONE ? null : known;
    }
    Target resolved = create(method, targetClass);
    targets.putIfAbsent(key, resolved == null ? Target.NONE : resolved);
    return resolved;
  }

  private Target create(Method method, Class<?> targetClass) {
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    BackoffRetry annotation = AnnotatedElementUtils.findMergedAnnotation(specific, BackoffRetry.class);
    if (annotation == null) {
      annotation = AnnotatedElementUtils.findMergedAnnotation(method, BackoffRetry.class);
    }
    if (annotation == null && targetClass != null) {
      annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, BackoffRetry.class);
    }
    if (annotation == null) {
      return null;
    }
    String where = "@BackoffRetry on " + ClassUtils.getQualifiedMethodName(specific, targetClass);
    for (Class<? extends Annotation> other : OTHER_RETRIES) {
      if (AnnotatedElementUtils.hasAnnotation(specific, other) || AnnotatedElementUtils.hasAnnotation(method, other)
          || (targetClass != null && AnnotatedElementUtils.hasAnnotation(targetClass, other))) {
        throw new BackoffConfigurationException(where, "@" + other.getName(), "the method is also retried by "
            + other.getName() + ", whose loop would run around or inside this one and multiply the attempts "
            + "past the policy's limits: keep one of the two annotations (see docs/spring-boot.md, Spring "
            + "Framework 7's retry)");
      }
    }
    Kind kind = kind(specific.getReturnType(), where);
    BackoffRegistry policies = registry.get();
    if (!policies.names().contains(annotation.value())) {
      throw new BackoffConfigurationException(where, annotation.value(),
          "no such policy under backoff.policies; known: " + policies.names());
    }
    BackoffRetry overrides = annotation;
    RetryPolicy<Object> policy = overridden(policies, overrides, where);
    if (policy.hedging() != null && (kind == Kind.SYNC || kind == Kind.FLUX)) {
      throw new BackoffConfigurationException(where, annotation.value(), "policy '" + annotation.value()
          + "' hedges (backoff.policies." + annotation.value() + ".hedging), which needs attempts side by side: "
          + (kind == Kind.SYNC ? "a plain method runs one attempt at a time on the calling thread"
              : "a Flux's elements come from one attempt")
          + "; return a CompletionStage or a Mono, or name a policy without hedging");
    }
    boolean plain = policy == policies.policy(overrides.value());
    RetryExecutor<Object> sync = plain ? policies.executor(overrides.value()) : RetryExecutor.of(policy);
    AsyncRetryExecutor<Object> async = plain ? policies.asyncExecutor(overrides.value())
        : policies.scheduler() == null ? AsyncRetryExecutor.of(policy) : AsyncRetryExecutor.of(policy, policies.scheduler());
    Object reactive = kind == Kind.MONO || kind == Kind.FLUX
        ? ReactorCalls.operator(specific.getReturnType(), policy, beans) : null;
    return new Target(kind, sync, async, reactive);
  }

  private static RetryPolicy<Object> overridden(BackoffRegistry policies, BackoffRetry a, String where) {
    if (a.maxAttempts() == 0 && a.maxElapsed().isEmpty() && a.strategy().isEmpty() && a.retryOn().length == 0
        && a.abortOn().length == 0) {
      return policies.policy(a.value());
    }
    if (a.maxAttempts() < 0) {
      throw new BackoffConfigurationException(where + " maxAttempts", String.valueOf(a.maxAttempts()),
          "must be at least 1 (or 0 to keep the policy's)");
    }
    try {
      return variant(policies, a, where);
    } catch (IllegalArgumentException e) {
      // A rule across settings, checked when the variant is built (hedges the overridden maxAttempts cannot allow).
      throw new BackoffConfigurationException(where, a.value(), e.getMessage());
    }
  }

  private static RetryPolicy<Object> variant(BackoffRegistry policies, BackoffRetry a, String where) {
    return policies.variant(a.value(), builder -> {
      if (a.maxAttempts() > 0) {
        builder.maxAttempts(a.maxAttempts());
      }
      if (!a.maxElapsed().isEmpty()) {
        Duration maxElapsed = BackoffRegistry.parse(where + " maxElapsed", a.maxElapsed(), Durations::parse);
        BackoffRegistry.parse(where + " maxElapsed", a.maxElapsed(), text -> builder.maxElapsed(maxElapsed));
      }
      if (!a.strategy().isEmpty()) {
        BackoffSpec spec = BackoffRegistry.parse(where + " strategy", a.strategy(), BackoffSpec::parse);
        builder.backoff(BackoffRegistry.parse(where + " strategy", a.strategy(),
            text -> spec.isPreset() ? spec.preset().backoff() : spec.toBackoff()));
      }
      if (a.retryOn().length > 0) {
        builder.retryOn(a.retryOn());
      }
      if (a.abortOn().length > 0) {
        builder.abortOn(a.abortOn());
      }
      return builder;
    });
  }

  @SuppressWarnings("unchecked")
  private static List<Class<? extends Annotation>> present(String... names) {
    List<Class<? extends Annotation>> found = new ArrayList<>();
    for (String name : names) {
      if (ClassUtils.isPresent(name, BackoffRetryInterceptor.class.getClassLoader())) {
        found.add((Class<? extends Annotation>) ClassUtils.resolveClassName(name,
            BackoffRetryInterceptor.class.getClassLoader()));
      }
    }
    return List.copyOf(found);
  }

  private static Kind kind(Class<?> returnType, String where) {
    if (returnType == CompletionStage.class || returnType == CompletableFuture.class) {
      return Kind.STAGE;
    }
    if (CompletionStage.class.isAssignableFrom(returnType)) {
      throw new BackoffConfigurationException(where, returnType.getName(),
          "a method retried asynchronously must return CompletionStage or CompletableFuture");
    }
    if (REACTOR && ReactorCalls.isMono(returnType)) {
      return Kind.MONO;
    }
    if (REACTOR && ReactorCalls.isFlux(returnType)) {
      if (!ReactorCalls.OPERATORS) {
        throw new BackoffConfigurationException(where, returnType.getName(),
            "a Flux method needs backoff-reactor on the class path");
      }
      return Kind.FLUX;
    }
    if (REACTOR && ReactorCalls.isPublisher(returnType)) {
      throw new BackoffConfigurationException(where, returnType.getName(),
          "among reactive types only Mono and Flux are supported");
    }
    return Kind.SYNC;
  }

  /** One attempt of a plain method: a fresh copy of the invocation, proceeded. */
  private static Object proceed(ProxyMethodInvocation invocation) throws Exception {
    try {
      return invocation.invocableClone().proceed();
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new UndeclaredThrowableException(t);
    }
  }

  /** One attempt of a method returning a stage; a synchronous throw or a null is a failed stage. */
  private static CompletionStage<Object> stage(ProxyMethodInvocation invocation) {
    try {
      Object stage = proceed(invocation);
      if (stage == null) {
        return CompletableFuture.failedFuture(new NullPointerException(
            invocation.getMethod().getName() + " returned null instead of a CompletionStage"));
      }
      @SuppressWarnings("unchecked")
      CompletionStage<Object> typed = (CompletionStage<Object>) stage;
      return typed;
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  enum Kind { SYNC, STAGE, MONO, FLUX }

  /** A resolved method: how it is called and the executors it runs on. */
  static final class Target {
    static final Target NONE = new Target(Kind.SYNC, null, null, null);

    final Kind kind;
    final RetryExecutor<Object> sync;
    final AsyncRetryExecutor<Object> async;
    final Object reactive; // backoff-reactor's operator for MONO and FLUX, or null

    Target(Kind kind, RetryExecutor<Object> sync, AsyncRetryExecutor<Object> async, Object reactive) {
      this.kind = kind;
      this.sync = sync;
      this.async = async;
      this.reactive = reactive;
    }
  }

  private record MethodKey(Method method, Class<?> targetClass) {}
}
