package dev.backoff.examples.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;

/** A stand-in for a remote inventory system that fails its first requests, as a restarting one would. */
public class Warehouse {
  private final AtomicInteger requests = new AtomicInteger();
  private final int failures;

  /** A warehouse failing its first {@code failures} requests. */
  public Warehouse(int failures) {
    this.failures = failures;
  }

  /**
   * The stock level of {@code sku}.
   *
   * @throws UncheckedIOException for the first requests
   */
  public int stock(String sku) {
    if (requests.incrementAndGet() <= failures) {
      throw new UncheckedIOException(new IOException("warehouse unavailable (request " + requests.get() + ")"));
    }
    return Math.abs(sku.hashCode() % 100);
  }

  /** The requests made so far. */
  public int requests() {
    return requests.get();
  }
}
