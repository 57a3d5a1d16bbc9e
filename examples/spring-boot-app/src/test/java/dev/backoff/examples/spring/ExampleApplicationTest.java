package dev.backoff.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.RecordingSleeper;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/** The example as its users run it, with a recording sleeper and scripted jitter instead of real time. */
@SpringBootTest
@Import(FakeTime.class)
class ExampleApplicationTest {
  @Autowired
  InventoryService inventory;

  @Autowired
  Warehouse warehouse;

  @Autowired
  RecordingSleeper sleeper;

  @Test
  void theAnnotatedMethodIsRetriedWithJitteredExponentialBackoffFromTheYaml() {
    // The CommandLineRunner already made one call at startup: 3 requests (2 failures), 2 waits.
    assertThat(warehouse.requests()).isEqualTo(3);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(50), Duration.ofMillis(100));
    assertThat(inventory.stock("sku-7")).isEqualTo(Math.abs("sku-7".hashCode() % 100));
    assertThat(warehouse.requests()).isEqualTo(4); // the warehouse has recovered: one request
  }
}
