package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

/**
 * {@link StarterScenarios} on Spring Boot 3.5 (this module's build); backoff-spring-boot4-tests runs the
 * same scenarios on Spring Boot 4.
 */
class Boot3StarterTest extends StarterScenarios {
  @Test
  void theseScenariosRunOnSpringBoot3AndSpringFramework6() {
    assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
    assertThat(SpringVersion.getVersion()).startsWith("6.");
  }

  @Test
  void springFramework6GetsNoRetryOperationsBean_andStarts() {
    // BackoffRetryOperations (compiled against Spring Framework 7) is in the jar, and never loaded here.
    assertThat(getClass().getClassLoader().getResource("dev/backoff/spring/boot/BackoffRetryOperations.class")).isNotNull();
    assertThat(context().containsBean("ordersRetryOperations")).isFalse();
    assertThat(context().containsBean("ordersRetryExecutor")).isTrue();
  }
}
