package dev.backoff.examples.spring;

import java.io.IOException;
import java.net.URI;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;

/**
 * The example application: asks the inventory system at {@code warehouse.url} for a stock level through
 * {@link InventoryService}, whose method is retried by {@code @BackoffRetry("inventory")} under the policy in
 * application.yaml; its retries are Micrometer meters and {@code /actuator/backoff} shows the policy. Run it
 * with {@code mvn -q compile exec:java} (see examples/README.md).
 */
@SpringBootApplication
public class ExampleApplication {
  /**
   * Starts a stand-in inventory system on loopback that fails its first two requests, then the application
   * against it (unless {@code --warehouse.url=...} names another), which prints a stock level and exits.
   */
  public static void main(String[] args) throws IOException {
    try (StandInWarehouse standIn = new StandInWarehouse(2)) {
      // Defaults, which the command line and application.yaml override; any free port, as it exits at once.
      new SpringApplicationBuilder(ExampleApplication.class)
          .properties("warehouse.url=" + standIn.url(), "server.port=0")
          .run(args).close();
    }
  }

  /** The client of the inventory system, which fails while it restarts. */
  @Bean
  Warehouse warehouse(@Value("${warehouse.url}") URI url) {
    return new Warehouse(url);
  }

  /** Prints a stock level, retried through the failures. */
  @Bean
  CommandLineRunner report(InventoryService inventory, Warehouse warehouse) {
    return args -> System.out.println("stock of sku-42: " + inventory.stock("sku-42")
        + " (after " + warehouse.requests() + " requests)");
  }
}
