package dev.backoff.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP server on loopback (port 0) that plays a script: each request gets the next step, and the
 * last step repeats. Records every request it receives. For tests only.
 */
final class ScriptedServer implements AutoCloseable {
  /** One scripted answer. */
  static final class Step {
    final int status;
    final String body;
    final String[] headers;
    final boolean hang;
    final boolean close;

    private Step(int status, String body, String[] headers, boolean hang, boolean close) {
      this.status = status;
      this.body = body;
      this.headers = headers;
      this.hang = hang;
      this.close = close;
    }
  }

  /** A request as the server saw it. */
  static final class Recorded {
    final String method;
    final String body;
    final Map<String, List<String>> headers;
    final int remotePort;

    Recorded(String method, String body, Map<String, List<String>> headers, int remotePort) {
      this.method = method;
      this.body = body;
      this.headers = headers;
      this.remotePort = remotePort;
    }

    String header(String name) {
      List<String> values = headers.get(name);
      return values == null || values.isEmpty() ? null : values.get(0);
    }
  }

  /** Answer {@code status} with {@code body} and headers given as name, value, name, value... */
  static Step respond(int status, String body, String... headers) {
    return new Step(status, body, headers, false, false);
  }

  /** Never answer (until the server closes): the client's timeout must fire. */
  static Step hang() {
    return new Step(0, null, new String[0], true, false);
  }

  /** Close the connection without any response. */
  static Step closeWithoutResponse() {
    return new Step(0, null, new String[0], false, true);
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<Step> steps;
  private final List<Recorded> requests = new ArrayList<>();
  private final CountDownLatch closing = new CountDownLatch(1);

  ScriptedServer(Step... steps) throws IOException {
    this.steps = List.of(steps);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  int port() {
    return server.getAddress().getPort();
  }

  synchronized List<Recorded> requests() {
    return List.copyOf(requests);
  }

  synchronized int requestCount() {
    return requests.size();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Step step;
    int number;
    synchronized (this) {
      requests.add(new Recorded(exchange.getRequestMethod(), body, Map.copyOf(exchange.getRequestHeaders()),
          exchange.getRemoteAddress().getPort()));
      number = requests.size();
      step = steps.get(Math.min(number - 1, steps.size() - 1));
    }
    if (step.hang) {
      try {
        closing.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.close();
      return;
    }
    if (step.close) {
      exchange.close(); // no status line: the client sees the connection closed
      return;
    }
    for (int i = 0; i + 1 < step.headers.length; i += 2) {
      exchange.getResponseHeaders().add(step.headers[i], step.headers[i + 1]);
    }
    byte[] bytes = step.body.replace("{n}", Integer.toString(number)).getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(step.status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
