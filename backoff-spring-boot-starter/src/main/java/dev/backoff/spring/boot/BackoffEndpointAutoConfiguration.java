package dev.backoff.spring.boot;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code backoff} Actuator endpoint, when Actuator is present and the endpoint is available. */
@AutoConfiguration(after = BackoffAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
public class BackoffEndpointAutoConfiguration {
  /** Used by Spring. */
  public BackoffEndpointAutoConfiguration() {}

  /** The endpoint over the registry. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  public BackoffEndpoint backoffEndpoint(BackoffRegistry registry) {
    return new BackoffEndpoint(registry);
  }
}
