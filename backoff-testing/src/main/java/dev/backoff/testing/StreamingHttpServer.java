package dev.backoff.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hostile HTTP/1.1 server on loopback, for testing how a client copes with huge or trickling bodies: it
 * answers every request with one status and a body generated on the fly (never held in memory),
 * {@code bodyBytes} bytes of the pattern {@code offset % 251} ({@link #expected}), written in 64 KB chunks, or
 * one byte every {@code trickle}. One request per connection ({@code Connection: close}). It records how many
 * body bytes each connection took before it ended or the client closed it, so a test can assert that a
 * client read only a bounded prefix of a body it did not need.
 *
 * <pre>{@code
 * try (StreamingHttpServer server = new StreamingHttpServer(503, 400_000_000, null, "Retry-After", "1")) {
 *   client.send(HttpRequest.newBuilder(server.uri()).build(), BodyHandlers.discarding());
 *   assertThat(server.written()).allMatch(bytes -> bytes < 1_000_000);
 * }
 * }</pre>
 *
 * <p>Thread-safe. Each connection is served on its own daemon thread; {@link #close} stops them.
 */
public final class StreamingHttpServer implements AutoCloseable {
  /** 256 periods of the pattern: every chunk starts at a multiple of 251, so the pattern runs on. */
  private static final byte[] CHUNK = new byte[251 * 256];

  static {
    for (int i = 0; i < CHUNK.length; i++) {
      CHUNK[i] = (byte) (i % 251);
    }
  }

  private final ServerSocket socket;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "streaming-server");
    thread.setDaemon(true);
    return thread;
  });
  private final int status;
  private final long bodyBytes;
  private final Duration trickle;
  private final String[] headers;
  private final List<Long> written = new ArrayList<>();
  private int requests;
  private final AtomicInteger bodiesStarted = new AtomicInteger();

  /**
   * Starts a server on an ephemeral loopback port.
   *
   * @param status the status of every response
   * @param bodyBytes the length of every body (its {@code Content-Length})
   * @param trickle null to write the body as fast as the client reads it, or the pause after each byte
   * @param headers extra response headers as name, value pairs
   * @throws IOException if the port cannot be opened
   * @throws IllegalArgumentException if {@code bodyBytes} is negative or the headers are not in pairs
   */
  public StreamingHttpServer(int status, long bodyBytes, Duration trickle, String... headers) throws IOException {
    if (bodyBytes < 0) {
      throw new IllegalArgumentException("bodyBytes must not be negative, was " + bodyBytes);
    }
    if (headers.length % 2 != 0) {
      throw new IllegalArgumentException("headers must be name, value pairs, was " + headers.length + " strings");
    }
    this.status = status;
    this.bodyBytes = bodyBytes;
    this.trickle = trickle;
    this.headers = headers;
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    executor.execute(this::accept);
  }

  /** The expected byte at {@code offset} of every body. */
  public static byte expected(long offset) {
    return (byte) (offset % 251);
  }

  /** The server's address, {@code http://127.0.0.1:PORT/}. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/");
  }

  /** How many requests have been read (their headers complete). */
  public synchronized int requests() {
    return requests;
  }

  /** Body bytes each finished connection took, in the order they finished. */
  public synchronized List<Long> written() {
    return List.copyOf(written);
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        executor.execute(() -> serve(connection));
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void serve(Socket connection) {
    long sent = 0;
    try (connection) {
      InputStream in = connection.getInputStream();
      int matched = 0; // of "\r\n\r\n": the end of the request's headers (requests have no body)
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
      }
      synchronized (this) {
        requests++;
      }
      StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(" Status\r\n")
          .append("Content-Length: ").append(bodyBytes).append("\r\nConnection: close\r\n");
      for (int i = 0; i + 1 < headers.length; i += 2) {
        head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
      }
      OutputStream out = connection.getOutputStream();
      out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      while (sent < bodyBytes) {
        int n = trickle == null ? (int) Math.min(CHUNK.length, bodyBytes - sent) : 1;
        out.write(CHUNK, (int) (sent % 251), n);
        if (trickle != null) {
          out.flush();
        }
        if (sent == 0) {
          bodiesStarted.incrementAndGet();
        }
        sent += n;
        if (trickle != null) {
          Thread.sleep(trickle.toMillis());
        }
      }
      out.flush();
    } catch (IOException e) {
      // The client closed the connection: what it took is recorded below.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      synchronized (this) {
        written.add(sent);
      }
    }
  }

  /** How many responses' bodies have begun (their headers and first body byte are out). */
  public int bodiesStarted() {
    return bodiesStarted.get();
  }

  /** Stops accepting and ends every connection. */
  @Override
  public void close() throws IOException {
    socket.close();
    executor.shutdownNow();
  }
}
