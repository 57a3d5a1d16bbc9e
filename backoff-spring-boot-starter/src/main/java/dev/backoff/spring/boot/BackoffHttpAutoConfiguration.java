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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Customizers of Spring Boot's {@code RestClient.Builder} and {@code WebClient.Builder} that apply a
 * named policy ({@code backoff.http.rest-client-policy}, {@code backoff.http.web-client-policy}) through
 * backoff-spring-web, when it is on the class path. The policy's {@code retry-on-statuses}, if set,
 * replace the HTTP rules' default statuses. A policy with hedging hedges WebClient exchanges; naming one
 * for the RestClient, which is blocking, fails the context. On Spring Boot 3.5 the customizers are Boot 3's
 * types ({@code org.springframework.boot.web.client}, {@code ...web.reactive.function.client}); on Spring
 * Boot 4 they are Boot 4's ({@code org.springframework.boot.restclient}, {@code ...webclient}).
 */
@AutoConfiguration(after = BackoffAutoConfiguration.class)
@ConditionalOnClass(HttpRules.class)
public class BackoffHttpAutoConfiguration {
  /** Used by Spring. */
  public BackoffHttpAutoConfiguration() {}

  /** The HTTP rules of the named policy: its statuses, or the defaults. */
  static HttpRules rules(BackoffRegistry registry, String name) {
    BackoffProperties.Policy settings = registry.settings(name);
    List<Integer> statuses = settings.getRetryOnStatuses();
    if (statuses.isEmpty() && settings.getWaitHeaders().isEmpty()) {
      return HttpRules.defaults();
    }
    HttpRules.Builder rules = HttpRules.builder()
        .waitHeaders(WaitHeaderNames.parse("backoff.policies." + name + ".wait-headers", settings.getWaitHeaders()));
    if (!statuses.isEmpty()) {
      rules.retryOnlyOnStatus(statuses.stream().mapToInt(Integer::intValue).toArray());
    }
    return rules.build();
  }

  static String known(BackoffRegistry registry, String property, String name) {
    if (!registry.names().contains(name)) {
      throw new BackoffConfigurationException(property, name, "no such policy under backoff.policies; known: "
          + registry.names());
    }
    return name;
  }

  /** The RestClient interceptor of {@code backoff.http.rest-client-policy}, checked (Boot 3 and 4 alike). */
  static BackoffRestInterceptor restInterceptor(BackoffRegistry registry, BackoffProperties properties) {
    String name = known(registry, "backoff.http.rest-client-policy", properties.getHttp().getRestClientPolicy());
    if (registry.policy(name).hedging() != null) {
      throw new BackoffConfigurationException("backoff.http.rest-client-policy", name, "policy '" + name
          + "' hedges (backoff.policies." + name + ".hedging), and a RestClient runs one attempt at a time on "
          + "the calling thread: name a policy without hedging, or hedge WebClient calls "
          + "(backoff.http.web-client-policy)");
    }
    if (registry.policy(name).attemptTimeout() != null) {
      throw new BackoffConfigurationException("backoff.http.rest-client-policy", name, "policy '" + name
          + "' has an attempt timeout (backoff.policies." + name + ".attempt-timeout), which a RestClient cannot "
          + "apply: it runs each attempt on the calling thread and cannot abandon one. Set the request factory's "
          + "read timeout and name a policy without one, or time WebClient calls out "
          + "(backoff.http.web-client-policy)");
    }
    return BackoffRestInterceptor.of(registry.policy(name), rules(registry, name));
  }

  /** The WebClient filter of {@code backoff.http.web-client-policy}, checked (Boot 3 and 4 alike). */
  static BackoffExchangeFilter exchangeFilter(BackoffRegistry registry, BackoffProperties properties) {
    String name = known(registry, "backoff.http.web-client-policy", properties.getHttp().getWebClientPolicy());
    RetryScheduler scheduler = registry.scheduler() != null ? registry.scheduler()
        : RetryScheduler.of(AsyncRetryExecutor.defaultScheduler());
    return BackoffExchangeFilter.of(registry.policy(name), rules(registry, name), scheduler);
  }

  /*
   * Spring Boot 4 moved the customizer interfaces into their own modules (spring-boot-restclient,
   * spring-boot-webclient; package org.springframework.boot.restclient / .webclient). Each line's
   * customizer is a nested configuration guarded by its interface's name, so exactly one of each pair
   * applies and the other's types are never loaded: one artifact serves Boot 3.5 and Boot 4.
   */

  /** RestClient on Spring Boot 3: an interceptor added to every builder. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"dev.backoff.spring.web.BackoffRestInterceptor",
      "org.springframework.boot.web.client.RestClientCustomizer", "org.springframework.web.client.RestClient"})
  @ConditionalOnProperty(prefix = "backoff.http", name = "rest-client-policy")
  static class RestClientRetries {
    @Bean
    @ConditionalOnMissingBean(name = "backoffRestClientCustomizer")
    org.springframework.boot.web.client.RestClientCustomizer backoffRestClientCustomizer(BackoffRegistry registry,
        BackoffProperties properties) {
      BackoffRestInterceptor interceptor = restInterceptor(registry, properties);
      return builder -> builder.requestInterceptor(interceptor);
    }
  }

  /** RestClient on Spring Boot 4: the same interceptor through Boot 4's customizer type. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"dev.backoff.spring.web.BackoffRestInterceptor",
      "org.springframework.boot.restclient.RestClientCustomizer", "org.springframework.web.client.RestClient"})
  @ConditionalOnProperty(prefix = "backoff.http", name = "rest-client-policy")
  static class Boot4RestClientRetries {
    @Bean
    @ConditionalOnMissingBean(name = "backoffRestClientCustomizer")
    org.springframework.boot.restclient.RestClientCustomizer backoffRestClientCustomizer(BackoffRegistry registry,
        BackoffProperties properties) {
      BackoffRestInterceptor interceptor = restInterceptor(registry, properties);
      return builder -> builder.requestInterceptor(interceptor);
    }
  }

  /** WebClient on Spring Boot 3: a filter added to every builder. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"dev.backoff.spring.web.BackoffExchangeFilter",
      "org.springframework.boot.web.reactive.function.client.WebClientCustomizer",
      "org.springframework.web.reactive.function.client.WebClient"})
  @ConditionalOnProperty(prefix = "backoff.http", name = "web-client-policy")
  static class WebClientRetries {
    @Bean
    @ConditionalOnMissingBean(name = "backoffWebClientCustomizer")
    org.springframework.boot.web.reactive.function.client.WebClientCustomizer backoffWebClientCustomizer(
        BackoffRegistry registry, BackoffProperties properties) {
      BackoffExchangeFilter filter = exchangeFilter(registry, properties);
      return builder -> builder.filter(filter);
    }
  }

  /** WebClient on Spring Boot 4: the same filter through Boot 4's customizer type. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"dev.backoff.spring.web.BackoffExchangeFilter",
      "org.springframework.boot.webclient.WebClientCustomizer",
      "org.springframework.web.reactive.function.client.WebClient"})
  @ConditionalOnProperty(prefix = "backoff.http", name = "web-client-policy")
  static class Boot4WebClientRetries {
    @Bean
    @ConditionalOnMissingBean(name = "backoffWebClientCustomizer")
    org.springframework.boot.webclient.WebClientCustomizer backoffWebClientCustomizer(BackoffRegistry registry,
        BackoffProperties properties) {
      BackoffExchangeFilter filter = exchangeFilter(registry, properties);
      return builder -> builder.filter(filter);
    }
  }
}
