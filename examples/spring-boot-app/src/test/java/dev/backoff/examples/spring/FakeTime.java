package dev.backoff.examples.spring;

import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedRandom;
import java.util.random.RandomGenerator;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** A recording sleeper and scripted jitter instead of real time, for the example's tests. */
@TestConfiguration(proxyBeanMethods = false)
class FakeTime {
  @Bean
  RecordingSleeper sleeper() {
    return new RecordingSleeper();
  }

  @Bean
  RandomGenerator jitter() {
    return new ScriptedRandom(0.5); // full jitter draws half of each cap
  }
}
