package dev.backoff.lab;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The lab's HTTP/1.1 server: one selector thread, non-blocking from accept to the last byte, bound to the
 * loopback interface. It exists because the JDK's {@code com.sun.net.httpserver} cannot give the lab two
 * things it needs: it reads a request's line and headers with a blocking read on whichever thread runs the
 * exchange (the dispatcher itself without an executor), so a client that never finishes its headers holds
 * that thread, with no per-server time limit (only the global {@code sun.net.httpserver.maxReqTime}); and
 * while a handler holds an exchange it stops watching the socket, so a client that hangs up leaves its
 * descriptor in CLOSE-WAIT until the answer is written.
 *
 * <p>Here headers are parsed as bytes arrive, a connection must complete its headers within the header
 * timeout (an idle keep-alive connection is closed after the idle timeout), and a connection whose exchange
 * is held stays registered for reading: when its client hangs up, the descriptor is closed at once and the
 * exchange's {@linkplain Exchange#onAbandoned abandon callback} runs. Handlers run on the selector thread and
 * must not block; they answer at once or keep the exchange and answer later from any thread.
 *
 * <p>Only what the lab needs: no request bodies beyond {@value #MAX_BODY_BYTES} bytes (they are read and
 * discarded), no chunked requests, no pipelining beyond one request in flight per connection, no TLS.
 *
 * <p>Thread-safe: {@link Exchange#respond} and {@link Exchange#close} may be called from any thread.
 */
final class LoopbackHttpServer implements AutoCloseable {
  /** Request line and headers, as the JDK server's default cap on header count keeps them small too. */
  static final int MAX_HEADER_BYTES = 16 * 1024;
  static final long MAX_BODY_BYTES = 64 * 1024;

  /** Runs on the selector thread for each request; must not block. */
  interface Handler {
    void handle(Exchange exchange);
  }

  private final ServerSocketChannel listener;
  private final Selector selector;
  private final Handler handler;
  private final long headerTimeoutNanos;
  private final long idleTimeoutNanos;
  private final long sweepNanos;
  private final int maxOpenConnections;
  private final Thread thread;
  private final Set<Connection> connections = new HashSet<>(); // selector thread only
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  private final ByteBuffer scratch = ByteBuffer.allocateDirect(16 * 1024); // selector thread only
  private volatile boolean running = true;
  private SelectionKey listenerKey;
  private boolean acceptSuspended; // selector thread only

  private LoopbackHttpServer(int port, int backlog, int maxOpenConnections, Duration headerTimeout,
      Duration idleTimeout, Handler handler) throws IOException {
    this.handler = handler;
    this.maxOpenConnections = maxOpenConnections;
    this.headerTimeoutNanos = headerTimeout.toNanos();
    this.idleTimeoutNanos = idleTimeout.toNanos();
    this.sweepNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10),
        Math.min(TimeUnit.MILLISECONDS.toNanos(250), Math.min(headerTimeoutNanos, idleTimeoutNanos) / 4));
    this.selector = Selector.open();
    this.listener = ServerSocketChannel.open();
    try {
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), backlog);
      listener.configureBlocking(false);
      listenerKey = listener.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      listener.close();
      selector.close();
      throw e;
    }
    this.thread = new Thread(this::run, "backoff-lab-server-selector");
    thread.setDaemon(true);
  }

  /**
   * Binds 127.0.0.1:{@code port} (0: any free port); connections queue until {@link #start()}.
   *
   * @throws IOException if the port cannot be bound
   */
  static LoopbackHttpServer bind(int port, int backlog, int maxOpenConnections, Duration headerTimeout,
      Duration idleTimeout, Handler handler) throws IOException {
    return new LoopbackHttpServer(port, backlog, maxOpenConnections, headerTimeout, idleTimeout, handler);
  }

  /** Starts serving on the selector thread. */
  void start() {
    thread.start();
  }

  int port() {
    return listener.socket().getLocalPort();
  }

  /** Stops at once: closes the listening socket and every connection. */
  @Override
  public void close() {
    running = false;
    selector.wakeup();
    if (!thread.isAlive()) {
      closeQuietly(listener); // never started (or already stopped)
      closeQuietly(selector);
    } else if (Thread.currentThread() != thread) {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the selector thread closes everything by itself
      }
    }
  }

  private void execute(Runnable task) {
    tasks.add(task);
    if (wakeupPending.compareAndSet(false, true)) {
      selector.wakeup();
    }
  }

  private void run() {
    long nextSweep = System.nanoTime() + sweepNanos;
    try {
      while (running) {
        long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextSweep - System.nanoTime()));
        selector.select(waitMillis);
        wakeupPending.set(false);
        for (Runnable task; (task = tasks.poll()) != null; ) {
          task.run();
        }
        Set<SelectionKey> selected = selector.selectedKeys();
        for (SelectionKey key : selected) {
          try {
            handleKey(key);
          } catch (CancelledKeyException closedMeanwhile) {
            // The connection was closed by an earlier event in this round.
          }
        }
        selected.clear();
        long now = System.nanoTime();
        if (now - nextSweep >= 0) {
          sweep(now);
          nextSweep = now + sweepNanos;
        }
      }
    } catch (IOException | ClosedSelectorException e) {
      // The selector failed: nothing more can be served; close everything below.
    } finally {
      for (Connection connection : new ArrayList<>(connections)) {
        connection.close();
      }
      closeQuietly(listener);
      closeQuietly(selector);
    }
  }

  private void handleKey(SelectionKey key) {
    if (!key.isValid()) {
      return;
    }
    if (key.isAcceptable()) {
      accept();
      return;
    }
    Connection connection = (Connection) key.attachment();
    if (key.isReadable()) {
      connection.onReadable();
    }
    if (key.isValid() && key.isWritable()) {
      connection.flush();
    }
  }

  private void accept() {
    for (int i = 0; i < 256; i++) {
      SocketChannel channel;
      try {
        channel = listener.accept();
      } catch (IOException e) {
        // Out of descriptors, most likely: leave the connection queued and retry at the next sweep rather
        // than spin on a listener that stays ready.
        acceptSuspended = true;
        listenerKey.interestOps(0);
        return;
      }
      if (channel == null) {
        return;
      }
      if (connections.size() >= maxOpenConnections) {
        closeQuietly(channel); // bounded descriptors: like a full accept queue, the client sees a reset
        continue;
      }
      try {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        Connection connection = new Connection(channel);
        connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
        connections.add(connection);
      } catch (IOException e) {
        closeQuietly(channel);
      }
    }
  }

  /** Closes connections stuck in their headers or idle too long, and ones whose client stopped reading. */
  private void sweep(long now) {
    if (acceptSuspended) {
      acceptSuspended = false;
      listenerKey.interestOps(SelectionKey.OP_ACCEPT);
    }
    List<Connection> expired = new ArrayList<>();
    for (Connection connection : connections) {
      if (connection.expired(now)) {
        expired.add(connection);
      }
    }
    for (Connection connection : expired) {
      connection.timeOut();
    }
  }

  private static void closeQuietly(java.io.Closeable closeable) {
    try {
      closeable.close();
    } catch (IOException ignored) {
      // Closing: nothing left to do with it.
    }
  }

  private static final byte[] EMPTY = new byte[0];

  /** One client connection. Selector thread only. */
  private final class Connection {
    final SocketChannel channel;
    SelectionKey key;
    byte[] buffer = EMPTY;
    int length;
    long bodyToSkip;
    Exchange current; // the request being served, from its headers to the end of its answer
    ByteBuffer out;
    boolean closeAfterWrite;
    long readingSince = System.nanoTime();
    long firstByteAt;
    long writingSince;
    boolean closed;
    boolean serving;

    Connection(SocketChannel channel) {
      this.channel = channel;
    }

    void onReadable() {
      scratch.clear();
      int read;
      try {
        read = channel.read(scratch);
      } catch (IOException e) {
        read = -1;
      }
      if (read < 0) {
        clientGone();
        return;
      }
      scratch.flip();
      if (bodyToSkip > 0) {
        int skip = (int) Math.min(bodyToSkip, scratch.remaining());
        scratch.position(scratch.position() + skip);
        bodyToSkip -= skip;
      }
      if (!scratch.hasRemaining()) {
        return;
      }
      if (length + scratch.remaining() > MAX_HEADER_BYTES + 4) {
        if (current == null) {
          answerAndClose(431, "request headers longer than " + MAX_HEADER_BYTES + " bytes\n");
        } else {
          clientGone(); // pipelining this much while waiting is no client of ours
        }
        return;
      }
      if (length == 0 && current == null) {
        firstByteAt = System.nanoTime();
      }
      if (buffer.length < length + scratch.remaining()) {
        buffer = java.util.Arrays.copyOf(buffer, Math.min(MAX_HEADER_BYTES + 4,
            Math.max(512, Math.max(buffer.length * 2, length + scratch.remaining()))));
      }
      int added = scratch.remaining();
      scratch.get(buffer, length, added);
      length += added;
      serveBuffered();
    }

    /** Parses and dispatches buffered requests, one at a time. */
    void serveBuffered() {
      if (serving) {
        return; // an answer written from inside a handler: the loop below goes on with the next request
      }
      serving = true;
      try {
        serveLoop();
      } finally {
        serving = false;
      }
    }

    private void serveLoop() {
      while (!closed && current == null && out == null && length > 0) {
        int end = headerEnd();
        if (end < 0) {
          if (length > MAX_HEADER_BYTES) {
            answerAndClose(431, "request headers longer than " + MAX_HEADER_BYTES + " bytes\n");
          }
          return;
        }
        String head = new String(buffer, 0, end, StandardCharsets.ISO_8859_1);
        consume(end);
        dispatch(head);
      }
    }

    /** The index just past the blank line ending the headers, or -1. */
    private int headerEnd() {
      for (int i = 0; i < length; i++) {
        if (buffer[i] == '\n') {
          if (i + 1 < length && buffer[i + 1] == '\n') {
            return i + 2;
          }
          if (i + 2 < length && buffer[i + 1] == '\r' && buffer[i + 2] == '\n') {
            return i + 3;
          }
        }
      }
      return -1;
    }

    private void consume(int count) {
      System.arraycopy(buffer, count, buffer, 0, length - count);
      length -= count;
      if (bodyToSkip > 0) {
        int skip = (int) Math.min(bodyToSkip, length);
        System.arraycopy(buffer, skip, buffer, 0, length - skip);
        length -= skip;
        bodyToSkip -= skip;
      }
      if (length == 0) {
        buffer = EMPTY; // a held request keeps no buffer
      }
    }

    private void dispatch(String head) {
      String[] lines = head.split("\r?\n");
      String[] requestLine = lines[0].split(" ", -1);
      if (requestLine.length != 3 || requestLine[0].isEmpty() || !requestLine[1].startsWith("/")
          || !requestLine[2].startsWith("HTTP/1.")) {
        answerAndClose(400, "malformed request line\n");
        return;
      }
      Map<String, String> headers = new HashMap<>();
      for (int i = 1; i < lines.length; i++) {
        if (lines[i].isEmpty()) {
          continue;
        }
        int colon = lines[i].indexOf(':');
        if (colon <= 0 || lines[i].substring(0, colon).indexOf(' ') >= 0) {
          answerAndClose(400, "malformed header line\n");
          return;
        }
        String name = lines[i].substring(0, colon).toLowerCase(Locale.ROOT);
        String value = lines[i].substring(colon + 1).trim();
        headers.merge(name, value, (a, b) -> a + ", " + b);
      }
      if (headers.containsKey("transfer-encoding")) {
        answerAndClose(501, "chunked request bodies are not supported\n");
        return;
      }
      long contentLength = 0;
      String declared = headers.get("content-length");
      if (declared != null) {
        try {
          contentLength = Long.parseLong(declared);
        } catch (NumberFormatException e) {
          contentLength = -1;
        }
        if (contentLength < 0) {
          answerAndClose(400, "bad Content-Length: " + declared + "\n");
          return;
        }
        if (contentLength > MAX_BODY_BYTES) {
          answerAndClose(413, "request body longer than " + MAX_BODY_BYTES + " bytes\n");
          return;
        }
      }
      bodyToSkip = contentLength;
      consume(0);
      String connectionHeader = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
      boolean keepAlive = requestLine[2].equals("HTTP/1.1")
          ? !connectionHeader.contains("close") : connectionHeader.contains("keep-alive");
      String target = requestLine[1];
      int query = target.indexOf('?');
      Exchange exchange = new Exchange(this, requestLine[0], query < 0 ? target : target.substring(0, query),
          headers, keepAlive);
      current = exchange;
      try {
        handler.handle(exchange);
      } catch (RuntimeException e) {
        exchange.respond(500, "internal error\n".getBytes(StandardCharsets.US_ASCII), "text/plain");
      }
    }

    /** Answers a request that cannot be served, then closes. */
    private void answerAndClose(int status, String message) {
      current = null;
      length = 0;
      buffer = EMPTY;
      send(null, response(status, message.getBytes(StandardCharsets.US_ASCII), "text/plain", List.of(), true,
          false), true);
    }

    void send(Exchange exchange, byte[] response, boolean close) {
      if (closed || exchange != current) {
        return; // the client has gone (or the connection was closed meanwhile): nobody to answer
      }
      out = ByteBuffer.wrap(response);
      closeAfterWrite = close;
      writingSince = System.nanoTime();
      flush();
    }

    void flush() {
      if (closed || out == null) {
        return;
      }
      try {
        channel.write(out);
      } catch (IOException e) {
        close();
        return;
      }
      if (out.hasRemaining()) {
        key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        return;
      }
      out = null;
      current = null;
      if (closeAfterWrite) {
        close();
        return;
      }
      key.interestOps(SelectionKey.OP_READ);
      readingSince = System.nanoTime();
      firstByteAt = readingSince;
      serveBuffered();
    }

    boolean expired(long now) {
      if (out != null) {
        return now - writingSince > idleTimeoutNanos; // the client stopped reading its answer
      }
      if (current != null) {
        return false; // held: the model decides when it is answered
      }
      if (length == 0 && bodyToSkip == 0) {
        return now - readingSince > idleTimeoutNanos;
      }
      return now - firstByteAt > headerTimeoutNanos;
    }

    void timeOut() {
      if (out == null && current == null && (length > 0 || bodyToSkip > 0)) {
        answerAndClose(408, "request not completed within " + Duration.ofNanos(headerTimeoutNanos) + "\n");
        if (!closed) {
          close(); // whatever the client has not read of the 408 does not matter
        }
      } else {
        close();
      }
    }

    /** The client closed its end or reset: release the descriptor now and tell the held exchange. */
    void clientGone() {
      Exchange abandoned = current != null && out == null ? current : null;
      close();
      if (abandoned != null) {
        abandoned.abandon();
      }
    }

    void close() {
      if (closed) {
        return;
      }
      closed = true;
      connections.remove(this);
      if (key != null) {
        key.cancel();
      }
      closeQuietly(channel);
    }
  }

  private static byte[] response(int status, byte[] body, String contentType, List<String> extraHeaders,
      boolean close, boolean head) {
    StringBuilder text = new StringBuilder(128).append("HTTP/1.1 ").append(status).append(' ')
        .append(reason(status)).append("\r\nContent-Length: ").append(body.length).append("\r\n");
    if (contentType != null) {
      text.append("Content-Type: ").append(contentType).append("\r\n");
    }
    for (int i = 0; i + 1 < extraHeaders.size(); i += 2) {
      text.append(extraHeaders.get(i)).append(": ").append(extraHeaders.get(i + 1)).append("\r\n");
    }
    if (close) {
      text.append("Connection: close\r\n");
    }
    byte[] headerBytes = text.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    if (head) {
      return headerBytes;
    }
    byte[] all = java.util.Arrays.copyOf(headerBytes, headerBytes.length + body.length);
    System.arraycopy(body, 0, all, headerBytes.length, body.length);
    return all;
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 413 -> "Content Too Large";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 501 -> "Not Implemented";
      case 503 -> "Service Unavailable";
      default -> "Status";
    };
  }

  /**
   * One request and its answer. Answered at most once: {@link #respond} and {@link #close} after the first
   * of them do nothing. Thread-safe.
   */
  final class Exchange {
    private final Connection connection;
    private final String method;
    private final String path;
    private final Map<String, String> headers;
    private final boolean keepAlive;
    private final AtomicBoolean finished = new AtomicBoolean();
    private Runnable onAbandoned; // selector thread only

    private Exchange(Connection connection, String method, String path, Map<String, String> headers,
        boolean keepAlive) {
      this.connection = connection;
      this.method = method;
      this.path = path;
      this.headers = headers;
      this.keepAlive = keepAlive;
    }

    String method() {
      return method;
    }

    /** The request target without its query. */
    String path() {
      return path;
    }

    /** The header's value (repeated ones joined with ", "), or null. */
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** Runs on the selector thread if the client hangs up before the answer; call from the handler. */
    void onAbandoned(Runnable callback) {
      this.onAbandoned = callback;
    }

    private void abandon() {
      if (finished.compareAndSet(false, true) && onAbandoned != null) {
        onAbandoned.run();
      }
    }

    /** Answers with this status and body; extra headers as name, value pairs. */
    void respond(int status, byte[] body, String contentType, String... extraHeaders) {
      if (!finished.compareAndSet(false, true)) {
        return;
      }
      boolean close = !keepAlive || status >= 400 && status != 404 && status != 405 && status != 503;
      byte[] response = response(status, body, contentType, List.of(extraHeaders), close,
          method.equals("HEAD"));
      if (Thread.currentThread() == thread) {
        connection.send(this, response, close);
      } else {
        execute(() -> connection.send(this, response, close));
      }
    }

    /** Closes the connection without an answer (a request dropped as a full accept queue would). */
    void close() {
      if (!finished.compareAndSet(false, true)) {
        return;
      }
      if (Thread.currentThread() == thread) {
        closeIfCurrent();
      } else {
        execute(this::closeIfCurrent);
      }
    }

    private void closeIfCurrent() {
      if (connection.current == this) {
        connection.close();
      }
    }
  }
}
