package dev.backoff.examples.spring;

import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The example application: asks a flaky warehouse for stock levels through {@link InventoryService},
 * whose method is retried by {@code @BackoffRetry("inventory")} under the policy in application.yaml.
 * Run it with {@code mvn -q -pl examples/spring-boot-app -am test-compile} and then
 * {@code java -cp ... dev.backoff.examples.spring.ExampleApplication} (see the README).
 */
@SpringBootApplication
public class ExampleApplication {
  /** Starts the application, which prints a few stock levels and exits. */
  public static void main(String[] args) {
    SpringApplication.run(ExampleApplication.class, args).close();
  }

  /** The flaky dependency: fails its first two requests. */
  @Bean
  Warehouse warehouse() {
    return new Warehouse(2);
  }

  /** Prints a stock level, retried through the failures. */
  @Bean
  CommandLineRunner report(InventoryService inventory, Warehouse warehouse) {
    return args -> System.out.println("stock of sku-42: " + inventory.stock("sku-42")
        + " (after " + warehouse.requests() + " requests)");
  }
}
