package dev.backoff.spring.web;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * A loopback HTTP server answering from a script, one entry per request (the last entry repeats), and
 * recording each request's method. Two servers in one: {@link #http} (the JDK's HttpServer) for ordinary
 * replies, and {@link #raw} (a plain socket) for broken connections.
 */
final class ScriptedServer implements AutoCloseable {
  /** One scripted reply. */
  record Reply(int status, byte[] body, String... headers) {
    static Reply of(int status, String body, String... headers) {
      return new Reply(status, body.getBytes(StandardCharsets.UTF_8), headers);
    }

    /** A connection reset (RST) right after the request was read: no response at all. */
    static Reply reset() {
      return new Reply(-1, new byte[0]);
    }

    /** Headers of a 503 announcing {@code length} bytes, {@code sent} of them sent, then a reset. */
    static Reply resetMidBody(int length, int sent) {
      return new Reply(-2, new byte[sent], "Content-Length", Integer.toString(length));
    }
  }

  private final Deque<Reply> script = new ArrayDeque<>();
  private final List<String> methods = new ArrayList<>();
  private final HttpServer http;
  private final ServerSocket raw;
  private final Thread acceptor;
  private final java.util.concurrent.ExecutorService handlers = Executors.newCachedThreadPool();

  private ScriptedServer(boolean useRaw) throws IOException {
    if (useRaw) {
      http = null;
      raw = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor = new Thread(this::acceptLoop, "scripted-raw-server");
      acceptor.setDaemon(true);
      acceptor.start();
    } else {
      raw = null;
      acceptor = null;
      http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      http.setExecutor(handlers);
      http.createContext("/", exchange -> {
        Reply reply = next(exchange.getRequestMethod());
        exchange.getRequestBody().readAllBytes();
        for (int i = 0; i + 1 < reply.headers().length; i += 2) {
          exchange.getResponseHeaders().add(reply.headers()[i], reply.headers()[i + 1]);
        }
        exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(reply.body());
        }
      });
      http.start();
    }
  }

  /** A server on the JDK's HttpServer. */
  static ScriptedServer http(Reply... replies) throws IOException {
    ScriptedServer server = new ScriptedServer(false);
    server.script.addAll(List.of(replies));
    return server;
  }

  /** A server on a plain socket, one connection per request (it answers "Connection: close"). */
  static ScriptedServer raw(Reply... replies) throws IOException {
    ScriptedServer server = new ScriptedServer(true);
    server.script.addAll(List.of(replies));
    return server;
  }

  URI uri(String path) {
    int port = http != null ? http.getAddress().getPort() : raw.getLocalPort();
    return URI.create("http://127.0.0.1:" + port + path);
  }

  synchronized List<String> methods() {
    return List.copyOf(methods);
  }

  synchronized int requests() {
    return methods.size();
  }

  private synchronized Reply next(String method) {
    methods.add(method);
    return script.size() > 1 ? script.poll() : script.peek();
  }

  private void acceptLoop() {
    while (!raw.isClosed()) {
      try (Socket socket = raw.accept()) {
        String method = readRequest(socket.getInputStream());
        if (method == null) {
          continue;
        }
        Reply reply = next(method);
        OutputStream out = socket.getOutputStream();
        if (reply.status() == -1) {
          socket.setSoLinger(true, 0); // close() sends a reset
          continue;
        }
        if (reply.status() == -2) {
          out.write(("HTTP/1.1 503 Service Unavailable\r\nContent-Length: " + reply.headers()[1]
              + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(reply.body());
          out.flush();
          socket.setSoLinger(true, 0);
          continue;
        }
        StringBuilder head = new StringBuilder("HTTP/1.1 " + reply.status() + " Scripted\r\n");
        for (int i = 0; i + 1 < reply.headers().length; i += 2) {
          head.append(reply.headers()[i]).append(": ").append(reply.headers()[i + 1]).append("\r\n");
        }
        head.append("Content-Length: ").append(reply.body().length).append("\r\nConnection: close\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
        out.write(reply.body());
        out.flush();
        socket.shutdownOutput();
        socket.getInputStream().readAllBytes(); // until the client closes
      } catch (IOException e) {
        // a closed server socket ends the loop; a client that went away ends its connection only
      }
    }
  }

  /** Reads a request's head and its Content-Length body; returns the method, or null at end of stream. */
  private static String readRequest(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.append((char) b);
    }
    String text = head.toString();
    for (String line : text.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        in.readNBytes(Integer.parseInt(line.substring(15).trim()));
      }
    }
    return text.substring(0, text.indexOf(' '));
  }

  @Override
  public void close() throws IOException {
    if (http != null) {
      http.stop(0);
      handlers.shutdownNow();
    }
    if (raw != null) {
      raw.close();
    }
    handlers.shutdownNow();
  }
}
