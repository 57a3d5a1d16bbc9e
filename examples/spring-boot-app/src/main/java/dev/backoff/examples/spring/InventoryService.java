package dev.backoff.examples.spring;

import dev.backoff.spring.boot.BackoffRetry;
import java.util.concurrent.CompletableFuture;
import org.springframework.stereotype.Service;

/** Reads stock levels from the {@link Warehouse}, retrying under the {@code inventory} policy. */
@Service
public class InventoryService {
  private final Warehouse warehouse;

  /** A service over {@code warehouse}. */
  public InventoryService(Warehouse warehouse) {
    this.warehouse = warehouse;
  }

  /** The stock level, retried on the calling thread. */
  @BackoffRetry("inventory")
  public int stock(String sku) {
    return warehouse.stock(sku);
  }

  /** The stock level, retried without holding a thread while waiting; with a shorter deadline. */
  @BackoffRetry(value = "inventory", maxElapsed = "2s")
  public CompletableFuture<Integer> stockAsync(String sku) {
    return CompletableFuture.supplyAsync(() -> warehouse.stock(sku));
  }
}
