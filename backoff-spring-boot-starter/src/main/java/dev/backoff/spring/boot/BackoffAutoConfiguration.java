package dev.backoff.spring.boot;

import dev.backoff.NanoClock;
import dev.backoff.RetryScheduler;
import dev.backoff.Sleeper;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * The starter's core auto-configuration: the {@code backoff.*} properties, a {@link BackoffRegistry} of
 * the named policies and budgets (checked at startup), per-policy {@code RetryPolicy} and
 * {@code RetryExecutor} beans, and the {@link BackoffRetry} post-processor. Each bean backs off when the
 * application defines its own of the same type.
 *
 * <p>Determinism: a {@link NanoClock}, {@link Sleeper}, {@link RetryScheduler} or {@link RandomGenerator}
 * bean in the context (exactly one of its type) is used by every policy (tests supply fakes); otherwise
 * the system's.
 */
@AutoConfiguration
@EnableConfigurationProperties(BackoffProperties.class)
public class BackoffAutoConfiguration {
  /** Used by Spring; the beans are its methods. */
  public BackoffAutoConfiguration() {}

  /**
   * The registry of named policies and budgets, built and checked from the properties.
   *
   * @param customizers every {@link BackoffRegistry.PolicyCustomizer} bean, applied in order (metrics)
   */
  @Bean
  @ConditionalOnMissingBean
  public BackoffRegistry backoffRegistry(BackoffProperties properties, ObjectProvider<NanoClock> clock,
      ObjectProvider<Sleeper> sleeper, ObjectProvider<RetryScheduler> scheduler, ObjectProvider<RandomGenerator> random,
      ObjectProvider<BackoffRegistry.PolicyCustomizer> customizers) {
    List<BackoffRegistry.PolicyCustomizer> all = customizers.orderedStream().collect(Collectors.toList());
    BackoffRegistry.PolicyCustomizer combined = (name, policy) -> {
      for (BackoffRegistry.PolicyCustomizer customizer : all) {
        policy = customizer.customize(name, policy);
      }
      return policy;
    };
    return new BackoffRegistry(properties, clock.getIfUnique(), sleeper.getIfUnique(), scheduler.getIfUnique(),
        random.getIfUnique(), combined);
  }

  /** Registers a {@code <name>RetryPolicy} and {@code <name>RetryExecutor} bean per named policy. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static PolicyBeans backoffPolicyBeans() {
    return new PolicyBeans();
  }

  /** Proxies the beans with {@link BackoffRetry} methods. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  @ConditionalOnMissingBean
  public static BackoffRetryPostProcessor backoffRetryPostProcessor() {
    return new BackoffRetryPostProcessor();
  }
}
