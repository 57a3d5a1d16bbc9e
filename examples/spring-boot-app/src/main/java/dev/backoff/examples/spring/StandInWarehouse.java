package dev.backoff.examples.spring;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the inventory system, so that {@code main} runs without one: an HTTP server on loopback
 * (the JDK's) that answers 503 to its first requests, as a restarting service would, and then the stock level.
 */
final class StandInWarehouse implements AutoCloseable {
  private final HttpServer server;
  private final AtomicInteger requests = new AtomicInteger();

  /** Starts a stand-in on a free loopback port that answers 503 to its first {@code failures} requests. */
  StandInWarehouse(int failures) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/stock/", exchange -> {
      String sku = exchange.getRequestURI().getPath().substring("/stock/".length());
      boolean failing = requests.incrementAndGet() <= failures;
      byte[] body = (failing ? "restarting" : Integer.toString(Math.abs(sku.hashCode() % 100)))
          .getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(failing ? 503 : 200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
  }

  /** Where it listens. */
  URI url() {
    return URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort());
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
