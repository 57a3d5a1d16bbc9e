package dev.backoff.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A real HTTP server on loopback (port 0) answering from a script (the last answer repeats) and recording
 * the method, Idempotency-Key and body of every request. For tests only.
 */
final class LoopbackServer implements AutoCloseable {
  /** status, body, then header name/value pairs. */
  static String[] answer(int status, String body, String... headers) {
    String[] answer = new String[headers.length + 2];
    answer[0] = Integer.toString(status);
    answer[1] = body;
    System.arraycopy(headers, 0, answer, 2, headers.length);
    return answer;
  }

  private final HttpServer server;
  private final List<String[]> script;
  private final List<String> requests = new ArrayList<>();

  LoopbackServer(String[]... script) throws IOException {
    this.script = List.of(script);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/api";
  }

  synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String[] answer;
    synchronized (this) {
      requests.add(exchange.getRequestMethod() + " key=" + exchange.getRequestHeaders().getFirst("Idempotency-Key")
          + " body=" + body);
      answer = script.get(Math.min(requests.size() - 1, script.size() - 1));
    }
    for (int i = 2; i + 1 < answer.length; i += 2) {
      exchange.getResponseHeaders().add(answer[i], answer[i + 1]);
    }
    byte[] bytes = answer[1].getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(Integer.parseInt(answer[0]), bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
