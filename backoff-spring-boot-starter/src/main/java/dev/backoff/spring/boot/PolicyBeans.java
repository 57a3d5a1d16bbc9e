package dev.backoff.spring.boot;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import java.lang.reflect.Constructor;
import java.util.Map;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Registers, for every name under {@code backoff.policies}, the beans {@code <name>RetryPolicy}
 * ({@code RetryPolicy<Object>}), {@code <name>RetryExecutor} ({@code RetryExecutor<Object>}) and
 * {@code <name>AsyncRetryExecutor}, taken from the {@link BackoffRegistry}, and on Spring Framework 7
 * {@code <name>RetryOperations} (Spring's {@code RetryOperations} run by the policy's executor:
 * {@code BackoffRetryOperations}); inject them by name ({@code @Qualifier("paymentsRetryPolicy")}). A bean of
 * the same name defined by the application wins.
 */
public final class PolicyBeans implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {
  /**
   * {@code BackoffRetryOperations(RetryExecutor)} when Spring Framework 7's {@code RetryOperations} is there,
   * else null (Spring Framework 6.2 lacks the package). By name: that class is compiled against Spring
   * Framework 7 apart from these sources (see the pom), so they cannot name it.
   */
  private static final Constructor<?> RETRY_OPERATIONS = retryOperations();

  private Environment environment;

  /** Used by Spring. */
  public PolicyBeans() {}

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
    // Only the names are read here; values are bound and checked with the registry bean.
    Map<String, BackoffProperties.Policy> names = Binder.get(environment)
        .bind("backoff.policies", Bindable.mapOf(String.class, BackoffProperties.Policy.class)).orElse(Map.of());
    BeanFactory factory = (BeanFactory) registry;
    for (String name : names.keySet()) {
      register(registry, name + "RetryPolicy", ResolvableType.forClassWithGenerics(RetryPolicy.class, Object.class),
          () -> factory.getBean(BackoffRegistry.class).policy(name));
      register(registry, name + "RetryExecutor", ResolvableType.forClassWithGenerics(RetryExecutor.class, Object.class),
          () -> factory.getBean(BackoffRegistry.class).executor(name));
      register(registry, name + "AsyncRetryExecutor",
          ResolvableType.forClassWithGenerics(AsyncRetryExecutor.class, Object.class),
          () -> factory.getBean(BackoffRegistry.class).asyncExecutor(name));
      if (RETRY_OPERATIONS != null) {
        register(registry, name + "RetryOperations", ResolvableType.forRawClass(RETRY_OPERATIONS.getDeclaringClass()),
            () -> BeanUtils.instantiateClass(RETRY_OPERATIONS, factory.getBean(BackoffRegistry.class).executor(name)));
      }
    }
  }

  private static Constructor<?> retryOperations() {
    ClassLoader loader = PolicyBeans.class.getClassLoader();
    if (!ClassUtils.isPresent("org.springframework.core.retry.RetryOperations", loader)) {
      return null;
    }
    return ClassUtils.getConstructorIfAvailable(
        ClassUtils.resolveClassName("dev.backoff.spring.boot.BackoffRetryOperations", loader), RetryExecutor.class);
  }

  private static <T> void register(BeanDefinitionRegistry registry, String beanName, ResolvableType type,
      java.util.function.Supplier<T> supplier) {
    if (registry.containsBeanDefinition(beanName)) {
      return; // the application's own
    }
    RootBeanDefinition definition = new RootBeanDefinition();
    definition.setTargetType(type);
    definition.setInstanceSupplier(supplier);
    registry.registerBeanDefinition(beanName, definition);
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
    // nothing: the definitions are registered above
  }
}
