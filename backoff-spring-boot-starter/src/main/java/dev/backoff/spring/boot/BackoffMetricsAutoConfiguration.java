package dev.backoff.spring.boot;

import dev.backoff.micrometer.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Binds every named policy to Micrometer (backoff-micrometer's {@link BackoffMetrics}: retries, delays,
 * outcomes, budget levels, hedges, and the gauges of its circuit breaker and rate limiter, tagged with the
 * policy's name) when backoff-micrometer is on the class path and the context has a
 * {@link MeterRegistry}; nothing otherwise.
 */
@AutoConfiguration(before = BackoffAutoConfiguration.class,
    // The composite registry's auto-configuration on Spring Boot 3.5, then on Spring Boot 4 (its own module).
    afterName = {"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({BackoffMetrics.class, MeterRegistry.class})
public class BackoffMetricsAutoConfiguration {
  /** Used by Spring. */
  public BackoffMetricsAutoConfiguration() {}

  /** Instruments each policy as the registry builds it, if a {@link MeterRegistry} bean exists. */
  @Bean
  public BackoffRegistry.PolicyCustomizer backoffMetricsCustomizer(ObjectProvider<MeterRegistry> registry) {
    return (name, policy) -> {
      MeterRegistry meters = registry.getIfUnique();
      if (meters == null) {
        return policy;
      }
      BackoffMetrics metrics = BackoffMetrics.of(meters);
      if (policy.circuitBreaker() != null) {
        metrics.bindCircuitBreaker(policy.circuitBreaker());
      }
      if (policy.rateLimiter() != null) {
        metrics.bindRateLimiter(policy.rateLimiter());
      }
      if (policy.concurrencyLimiter() != null) {
        metrics.bindConcurrencyLimiter(policy.concurrencyLimiter());
      }
      if (policy.hedging() != null && policy.hedging().adaptiveDelay() != null) {
        metrics.bindHedgeDelay(policy.name(), policy.hedging().adaptiveDelay());
      }
      return metrics.instrument(policy);
    };
  }
}
