package dev.backoff.spring.boot;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies beans with {@link BackoffRetry} methods (or types), as Spring proxies {@code @Async} beans, and
 * checks each annotated method when its bean is created, so a bad annotation fails the context. Class
 * proxies (CGLIB) by default, as Spring Boot's; set {@link #setProxyTargetClass} false for interface proxies.
 *
 * <p>An annotation the proxy could never honour fails the context too, naming the method: on a private or
 * static method (no proxy intercepts it), on a final method under a class proxy (the proxy cannot override
 * it, so the call would run on the proxy itself: never retried, and without the bean's injected fields), or
 * beside Spring's own {@code @Retryable} (spring-retry's or Spring Framework 7's), whose retries would
 * multiply with these.
 */
public class BackoffRetryPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {
  private static final long serialVersionUID = 1L;

  /** The advice; resolves policies from the bean factory's {@link BackoffRegistry}. */
  private transient BackoffRetryInterceptor interceptor;

  /** The classes whose annotated methods have been checked. */
  private final transient Set<Class<?>> checked = ConcurrentHashMap.newKeySet();

  /** A post-processor proxying with class proxies, ahead of other advisors (retries wrap them all). */
  public BackoffRetryPostProcessor() {
    setProxyTargetClass(true);
    setBeforeExistingAdvisors(true);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    this.interceptor = new BackoffRetryInterceptor(() -> beanFactory.getBean(BackoffRegistry.class),
        type -> beanFactory.getBeanProvider(type).getIfUnique());
    this.advisor = new DefaultPointcutAdvisor(new AnnotatedPointcut(interceptor), interceptor);
  }

  @Override
  protected boolean isEligible(Class<?> targetClass) {
    Class<?> type = ClassUtils.getUserClass(targetClass);
    if (!checked.contains(type)) {
      for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
        check(method, type);
      }
      checked.add(type);
    }
    return super.isEligible(targetClass);
  }

  /** Fails for an annotation on {@code method} that the proxy could not honour, and resolves the others. */
  private void check(Method method, Class<?> type) {
    int modifiers = method.getModifiers();
    BackoffRetry annotation = AnnotatedElementUtils.findMergedAnnotation(method, BackoffRetry.class);
    if (annotation == null && Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers)
        && method.getDeclaringClass() != Object.class) {
      annotation = AnnotatedElementUtils.findMergedAnnotation(type, BackoffRetry.class);
    }
    if (annotation == null) {
      return;
    }
    String where = "@BackoffRetry on " + ClassUtils.getQualifiedMethodName(method, type);
    String problem = null;
    if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers)) {
      problem = "the method is " + (Modifier.isStatic(modifiers) ? "static" : "private")
          + ", and no proxy intercepts it, so no call would be retried: make it a public (or protected or"
          + " package-private) instance method";
    } else if (Modifier.isFinal(modifiers) && isProxyTargetClass()) {
      problem = "the method is final, and the bean's class proxy cannot override it, so calls would run on the"
          + " proxy itself: never retried, and without the bean's injected fields; remove 'final' (in Kotlin,"
          + " 'open' the method or use the kotlin-spring compiler plugin)";
    }
    if (problem != null) {
      throw new BackoffConfigurationException(where, annotation.value(), problem);
    }
    // A bad policy name or override, or Spring's own @Retryable beside ours, fails now, whichever method it is on.
    interceptor.resolve(method, type);
  }

  /** Matches annotated methods (and public methods of annotated types), resolving each once. */
  private static final class AnnotatedPointcut extends StaticMethodMatcherPointcut {
    private final BackoffRetryInterceptor interceptor;

    AnnotatedPointcut(BackoffRetryInterceptor interceptor) {
      this.interceptor = interceptor;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
      Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
      boolean annotated = AnnotatedElementUtils.hasAnnotation(specific, BackoffRetry.class)
          || AnnotatedElementUtils.hasAnnotation(method, BackoffRetry.class)
          || (Modifier.isPublic(method.getModifiers()) && method.getDeclaringClass() != Object.class
              && targetClass != null && AnnotatedElementUtils.hasAnnotation(targetClass, BackoffRetry.class));
      // Resolving now checks the annotation while the bean is created: a bad one fails the context.
      return annotated && interceptor.resolve(method, targetClass) != null;
    }
  }
}
