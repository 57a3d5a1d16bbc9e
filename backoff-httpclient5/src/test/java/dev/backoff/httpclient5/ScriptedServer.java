package dev.backoff.httpclient5;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The JDK's HTTP server on loopback, answering requests from a script in order (the last reply repeats
 * when the script runs out), and recording every request it got. A reply may wait before answering, or
 * declare a body and close the connection half way through it. For tests only; thread-safe.
 */
final class ScriptedServer implements AutoCloseable {
  /** One scripted answer. */
  record Reply(int status, String body, List<String> headers, Duration delay, boolean cut) {
    static Reply of(int status, String body, String... headers) {
      return new Reply(status, body, List.of(headers), Duration.ZERO, false);
    }

    /** Answers only after {@code delay}. */
    Reply after(Duration wait) {
      return new Reply(status, body, headers, wait, cut);
    }

    /** Declares the whole body, sends half of it, then closes the connection. */
    Reply cutMidBody() {
      return new Reply(status, body, headers, delay, true);
    }
  }

  /** One request as the server saw it. */
  record Received(String method, String path, String idempotencyKey, String body) {}

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "scripted-server");
    thread.setDaemon(true);
    return thread;
  });
  private final Deque<Reply> script = new ArrayDeque<>();
  private Reply last = Reply.of(200, "ok");
  private final List<Received> received = new ArrayList<>();

  ScriptedServer(Reply... replies) throws IOException {
    script.addAll(List.of(replies));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Reply reply;
    synchronized (this) {
      received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
          exchange.getRequestHeaders().getFirst("Idempotency-Key"), body));
      reply = script.isEmpty() ? last : script.poll();
      last = reply;
    }
    if (!reply.delay().isZero()) {
      try {
        Thread.sleep(reply.delay().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exchange.close();
        return;
      }
    }
    for (int i = 0; i < reply.headers().size(); i += 2) {
      exchange.getResponseHeaders().add(reply.headers().get(i), reply.headers().get(i + 1));
    }
    byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
    OutputStream out = exchange.getResponseBody();
    if (reply.cut()) {
      out.write(bytes, 0, bytes.length / 2);
      out.flush();
      exchange.close(); // fewer bytes than declared: the server drops the connection
      return;
    }
    out.write(bytes);
    exchange.close();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  synchronized List<Received> received() {
    return List.copyOf(received);
  }

  synchronized int requests() {
    return received.size();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
