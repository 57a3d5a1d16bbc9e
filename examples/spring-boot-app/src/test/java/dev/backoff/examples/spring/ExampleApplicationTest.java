package dev.backoff.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedRandom;
import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** The example as its users run it, with a recording sleeper and scripted jitter instead of real time. */
@SpringBootTest
class ExampleApplicationTest {
  @TestConfiguration
  static class FakeTime {
    @Bean
    RecordingSleeper sleeper() {
      return new RecordingSleeper();
    }

    @Bean
    RandomGenerator jitter() {
      return new ScriptedRandom(0.5); // full jitter draws half of each cap
    }
  }

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
