package dev.backoff.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.RecordedRequest;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example started as {@code main} starts it (no test framework between), on whichever Spring Boot
 * line the build uses: Spring Boot 3.5 here, and Spring Boot 4 in examples/spring-boot4-app, which builds
 * these sources unchanged. It retries its call to a warehouse on loopback, exports its retries as Micrometer
 * meters, and refuses to start on a bad property.
 */
class ExampleLifecycleTest {
  /** Starts the application against {@code warehouse}, with these command-line arguments (which override application.yaml). */
  private static ConfigurableApplicationContext start(ScriptedHttpServer warehouse, String... args) {
    return new SpringApplicationBuilder(ExampleApplication.class, FakeTime.class)
        .web(WebApplicationType.NONE).properties("warehouse.url=" + warehouse.uri()).run(args);
  }

  @Test
  void theApplicationRetriesItsCallToTheWarehouseAndExportsItsRetriesAsMeters() throws Exception {
    try (ScriptedHttpServer warehouse = LoopbackWarehouse.restartingTwice();
         ConfigurableApplicationContext context = start(warehouse)) {
      // The CommandLineRunner's call at startup: 3 requests reached the server (2 answered 503), with the 2
      // waits of the jittered backoff between them (half of 100 ms and of 200 ms: the scripted jitter).
      assertThat(warehouse.requests()).extracting(RecordedRequest::target)
          .containsExactly("/stock/sku-42", "/stock/sku-42", "/stock/sku-42");
      assertThat(context.getBean(RecordingSleeper.class).sleeps())
          .containsExactly(Duration.ofMillis(50), Duration.ofMillis(100));
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      assertThat(meters.get("backoff.calls").tags("policy", "inventory", "outcome", "success_after_retries")
          .counter().count()).isEqualTo(1.0);
      assertThat(meters.get("backoff.attempts").tag("policy", "inventory").summary().totalAmount()).isEqualTo(3.0);
      assertThat(meters.get("backoff.retry.delay").tag("policy", "inventory").timer()
          .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(150.0);

      // The warehouse is back: one request, no retry.
      assertThat(context.getBean(InventoryService.class).stock("sku-7")).isEqualTo(42);
      assertThat(warehouse.requestCount()).isEqualTo(4);
    }
  }

  @Test
  void aBadPropertyFailsStartupNamingIt() throws Exception {
    try (ScriptedHttpServer warehouse = LoopbackWarehouse.restartingTwice()) {
      assertThatThrownBy(() -> start(warehouse, "--backoff.policies.inventory.max-elapsed=10").close()).rootCause()
          .hasMessageContaining("backoff.policies.inventory.max-elapsed").hasMessageContaining("'10'");
      assertThat(warehouse.requestCount()).as("no call made by an application that did not start").isZero();
    }
  }
}
