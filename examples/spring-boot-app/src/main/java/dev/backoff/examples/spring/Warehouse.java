package dev.backoff.examples.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client of a remote inventory system: {@code GET <url>/stock/<sku>} answers a stock level as text. One
 * request per call, no retry of its own ({@link InventoryService} retries it).
 */
public class Warehouse {
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI url;
  private final AtomicInteger requests = new AtomicInteger();

  /** A client of the inventory system at {@code url}. */
  public Warehouse(URI url) {
    this.url = url;
  }

  /**
   * The stock level of {@code sku}.
   *
   * @throws UncheckedIOException if the request fails or the answer is not a 200 (a 503 while the inventory
   *     system restarts, say)
   * @throws IllegalStateException if the thread is interrupted while waiting for the answer (its interrupt
   *     flag is set again)
   */
  public int stock(String sku) {
    int request = requests.incrementAndGet();
    HttpResponse<String> response;
    try {
      response = client.send(HttpRequest.newBuilder(url.resolve("/stock/" + sku)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking the warehouse for " + sku, e);
    }
    if (response.statusCode() != 200) {
      throw new UncheckedIOException(new IOException(
          "warehouse answered " + response.statusCode() + " to request " + request + " (" + sku + ")"));
    }
    return Integer.parseInt(response.body().trim());
  }

  /** The requests sent so far. */
  public int requests() {
    return requests.get();
  }
}
