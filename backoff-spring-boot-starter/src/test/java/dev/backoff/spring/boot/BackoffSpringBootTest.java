package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.RetryPolicy;
import dev.backoff.testing.RecordingSleeper;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** The whole starter in a Spring Boot application, configured by application-test.yaml. */
@SpringBootTest(classes = BackoffSpringBootTest.App.class, properties = "spring.config.name=backoff-test",
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
class BackoffSpringBootTest {
  @SpringBootConfiguration
  @EnableAutoConfiguration // no component scan: the test package holds other configurations
  @Import(BackoffAutoConfigurationTest.FakeTime.class)
  static class App {
    @Bean
    Beans.Flaky flaky() {
      return new Beans.Flaky(2);
    }
  }

  @Autowired
  Beans.Flaky flaky;

  @Autowired
  RecordingSleeper sleeper;

  @Autowired
  @Qualifier("ordersRetryPolicy")
  RetryPolicy<Object> orders;

  @Test
  void anAnnotatedBeanRetriesWithTheYamlPolicy() throws Exception {
    assertThat(orders.maxAttempts()).isEqualTo(4);
    assertThat(flaky.sync()).isEqualTo("ok after 3");
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(50), Duration.ofMillis(150));
  }
}
