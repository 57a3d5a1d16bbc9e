package dev.backoff.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.testing.RecordingSleeper;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example started as {@code main} starts it (no test framework between), on whichever Spring Boot
 * line the build uses: this module's 3.5, and Spring Boot 4 in examples/spring-boot4-app, which builds
 * these sources unchanged. It retries, exports its retries as Micrometer meters, and refuses to start on a
 * bad property.
 */
class ExampleLifecycleTest {
  /** Starts the application with these command-line arguments (which override application.yaml). */
  private static ConfigurableApplicationContext start(String... args) {
    return new SpringApplicationBuilder(ExampleApplication.class, FakeTime.class)
        .web(WebApplicationType.NONE).run(args);
  }

  @Test
  void theApplicationRetriesAndExportsItsRetriesAsMeters() {
    try (ConfigurableApplicationContext context = start()) {
      // The CommandLineRunner's call at startup: 3 requests (2 failures), 2 waits of the jittered backoff.
      assertThat(context.getBean(Warehouse.class).requests()).isEqualTo(3);
      assertThat(context.getBean(RecordingSleeper.class).sleeps())
          .containsExactly(Duration.ofMillis(50), Duration.ofMillis(100));
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      assertThat(meters.get("backoff.calls").tags("policy", "inventory", "outcome", "success_after_retries")
          .counter().count()).isEqualTo(1.0);
      assertThat(meters.get("backoff.attempts").tag("policy", "inventory").summary().totalAmount()).isEqualTo(3.0);
      assertThat(meters.get("backoff.retry.delay").tag("policy", "inventory").timer()
          .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(150.0);
    }
  }

  @Test
  void aBadPropertyFailsStartupNamingIt() {
    assertThatThrownBy(() -> start("--backoff.policies.inventory.max-elapsed=10").close()).rootCause()
        .hasMessageContaining("backoff.policies.inventory.max-elapsed").hasMessageContaining("'10'");
  }
}
