package dev.backoff.spring.boot;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryScheduler;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.spring.web.BackoffExchangeFilter;
import dev.backoff.spring.web.BackoffRestInterceptor;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.client.RestClientCustomizer;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Customizers of Spring Boot's {@code RestClient.Builder} and {@code WebClient.Builder} that apply a
 * named policy ({@code backoff.http.rest-client-policy}, {@code backoff.http.web-client-policy}) through
 * backoff-spring-web, when it is on the class path. The policy's {@code retry-on-statuses}, if set,
 * replace the HTTP rules' default statuses. A policy with hedging hedges WebClient exchanges; naming one
 * for the RestClient, which is blocking, fails the context.
 */
@AutoConfiguration(after = BackoffAutoConfiguration.class)
@ConditionalOnClass(HttpRules.class)
public class BackoffHttpAutoConfiguration {
  /** Used by Spring. */
  public BackoffHttpAutoConfiguration() {}

  /** The HTTP rules of the named policy: its statuses, or the defaults. */
  static HttpRules rules(BackoffRegistry registry, String name) {
    List<Integer> statuses = registry.settings(name).getRetryOnStatuses();
    if (statuses.isEmpty()) {
      return HttpRules.defaults();
    }
    return HttpRules.builder().retryOnlyOnStatus(statuses.stream().mapToInt(Integer::intValue).toArray()).build();
  }

  static String known(BackoffRegistry registry, String property, String name) {
    if (!registry.names().contains(name)) {
      throw new BackoffConfigurationException(property, name, "no such policy under backoff.policies; known: "
          + registry.names());
    }
    return name;
  }

  /** RestClient: an interceptor added to every builder. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({BackoffRestInterceptor.class, RestClientCustomizer.class,
      org.springframework.web.client.RestClient.class})
  @ConditionalOnProperty(prefix = "backoff.http", name = "rest-client-policy")
  static class RestClientRetries {
    @Bean
    @ConditionalOnMissingBean(name = "backoffRestClientCustomizer")
    RestClientCustomizer backoffRestClientCustomizer(BackoffRegistry registry, BackoffProperties properties) {
      String name = known(registry, "backoff.http.rest-client-policy", properties.getHttp().getRestClientPolicy());
      if (registry.policy(name).hedging() != null) {
        throw new BackoffConfigurationException("backoff.http.rest-client-policy", name, "policy '" + name
            + "' hedges (backoff.policies." + name + ".hedging), and a RestClient runs one attempt at a time on "
            + "the calling thread: name a policy without hedging, or hedge WebClient calls "
            + "(backoff.http.web-client-policy)");
      }
      BackoffRestInterceptor interceptor = BackoffRestInterceptor.of(registry.policy(name), rules(registry, name));
      return builder -> builder.requestInterceptor(interceptor);
    }
  }

  /** WebClient: a filter added to every builder. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({BackoffExchangeFilter.class, WebClientCustomizer.class,
      org.springframework.web.reactive.function.client.WebClient.class})
  @ConditionalOnProperty(prefix = "backoff.http", name = "web-client-policy")
  static class WebClientRetries {
    @Bean
    @ConditionalOnMissingBean(name = "backoffWebClientCustomizer")
    WebClientCustomizer backoffWebClientCustomizer(BackoffRegistry registry, BackoffProperties properties) {
      String name = known(registry, "backoff.http.web-client-policy", properties.getHttp().getWebClientPolicy());
      RetryScheduler scheduler = registry.scheduler() != null ? registry.scheduler()
          : RetryScheduler.of(AsyncRetryExecutor.defaultScheduler());
      BackoffExchangeFilter filter = BackoffExchangeFilter.of(registry.policy(name), rules(registry, name), scheduler);
      return builder -> builder.filter(filter);
    }
  }
}
