package dev.backoff.spring.boot;

import java.util.Arrays;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Measures the starter's startup cost: the time to start and close a small Spring Boot application
 * (one annotated bean, two policies, a budget) with the starter's auto-configurations and without them
 * (excluded), alternating, after a warm-up. Not a test (timings are not asserted); run by hand:
 * {@code java -cp <test class path> dev.backoff.spring.boot.StartupCost [rounds]}. Results are in
 * docs/benchmarks.md.
 */
public final class StartupCost {
  private StartupCost() {}

  /** The measured application. */
  @SpringBootConfiguration
  @EnableAutoConfiguration // no component scan: the test package holds other configurations
  static class App {
    @Bean
    Beans.Flaky flaky() {
      return new Beans.Flaky(0);
    }
  }

  private static final String[] PROPERTIES = {
      "backoff.budgets.shared.spec=token-bucket",
      "backoff.policies.orders.strategy=exponential:100ms:2:20s:full",
      "backoff.policies.orders.max-attempts=4",
      "backoff.policies.orders.budget=shared",
      "backoff.policies.cloud.strategy=google-cloud",
      "spring.main.banner-mode=off",
      "logging.level.root=warn"};

  private static final String EXCLUDE = "spring.autoconfigure.exclude="
      + "dev.backoff.spring.boot.BackoffAutoConfiguration,dev.backoff.spring.boot.BackoffMetricsAutoConfiguration,"
      + "dev.backoff.spring.boot.BackoffEndpointAutoConfiguration,dev.backoff.spring.boot.BackoffHttpAutoConfiguration";

  private static long startNanos(boolean withStarter) {
    String[] properties = withStarter ? PROPERTIES : append(PROPERTIES, EXCLUDE);
    long start = System.nanoTime();
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE).properties(properties).logStartupInfo(false).run()) {
      long elapsed = System.nanoTime() - start;
      if (withStarter != context.containsBean("backoffRegistry")) {
        throw new IllegalStateException("the starter was " + (withStarter ? "missing" : "present"));
      }
      return elapsed;
    }
  }

  private static String[] append(String[] array, String value) {
    String[] result = Arrays.copyOf(array, array.length + 1);
    result[array.length] = value;
    return result;
  }

  /** Runs {@code args[0]} measured rounds (default 40) after 20 warm-up rounds; prints medians in ms. */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    for (int i = 0; i < 20; i++) {
      startNanos(i % 2 == 0);
    }
    long[] with = new long[rounds];
    long[] without = new long[rounds];
    for (int i = 0; i < rounds; i++) {
      if (i % 2 == 0) {
        with[i] = startNanos(true);
        without[i] = startNanos(false);
      } else {
        without[i] = startNanos(false);
        with[i] = startNanos(true);
      }
    }
    Arrays.sort(with);
    Arrays.sort(without);
    System.out.printf("rounds %d; median start+close: without starter %.1f ms, with starter %.1f ms,"
        + " difference %.1f ms (p25 %.1f / %.1f, p75 %.1f / %.1f)%n", rounds,
        without[rounds / 2] / 1e6, with[rounds / 2] / 1e6, (with[rounds / 2] - without[rounds / 2]) / 1e6,
        without[rounds / 4] / 1e6, with[rounds / 4] / 1e6, without[3 * rounds / 4] / 1e6, with[3 * rounds / 4] / 1e6);
  }
}
