package dev.backoff.spring.boot;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Proxies beans with {@link BackoffRetry} methods (or types), as Spring proxies {@code @Async} beans, and
 * checks each annotated method when its bean is created, so a bad annotation fails the context. Class
 * proxies (CGLIB) by default, as Spring Boot's; set {@link #setProxyTargetClass} false for interface proxies.
 */
public class BackoffRetryPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {
  private static final long serialVersionUID = 1L;

  /** The advice; resolves policies from the bean factory's {@link BackoffRegistry}. */
  private transient BackoffRetryInterceptor interceptor;

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
