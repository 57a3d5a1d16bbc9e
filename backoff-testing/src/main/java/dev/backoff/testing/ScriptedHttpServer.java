package dev.backoff.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP/1.1 server on loopback that plays a script, for tests of clients that retry: the first request
 * gets the first {@link Response}, the second the second, and the last one repeats. Each response can carry
 * a status, headers and a body (a text, or a generated body of any length that is never held in memory),
 * wait before answering, trickle its body, or misbehave: never answer, close the connection without an
 * answer, or reset it (TCP RST) before the answer or part-way through the body. The server records every
 * request it reads (method, target, headers, body, the client's port) and how many body bytes each response
 * got out before it ended, so a test can assert what the client sent and how much of a body it read.
 *
 * <pre>{@code
 * try (ScriptedHttpServer server = new ScriptedHttpServer(
 *     Response.of(503, "busy").header("Retry-After", "1"),
 *     Response.of(200, "ok"))) {
 *   HttpResponse<String> response = client.send(HttpRequest.newBuilder(server.uri("/api")).build(), ofString());
 *   assertThat(server.requests()).extracting(RecordedRequest::method).containsExactly("GET", "GET");
 * }
 * }</pre>
 *
 * <p>Connections are kept alive between requests (unless a request asks for {@code Connection: close} or a
 * response {@link Response#closeConnection() closes it}), request bodies may come with a
 * {@code Content-Length} or chunked, {@code Expect: 100-continue} is honoured, and an {@code Upgrade} to
 * HTTP/2 is ignored (the answer is HTTP/1.1). A connection whose first byte cannot begin an HTTP request (a
 * TLS ClientHello, say) gets the response the next request would get at once, without its request being
 * read or recorded, and is then closed: so a client speaking TLS to it sees a handshake failure.
 *
 * <p>Thread-safe. Each connection is served on its own daemon thread; {@link #close} ends every connection
 * and wakes every response that is waiting.
 */
public final class ScriptedHttpServer implements AutoCloseable {
  /** 256 periods of the body pattern: every chunk starts at a multiple of 251, so the pattern runs on. */
  private static final byte[] CHUNK = new byte[251 * 256];
  private static final int MAX_HEAD_BYTES = 64 * 1024;

  static {
    for (int i = 0; i < CHUNK.length; i++) {
      CHUNK[i] = (byte) (i % 251);
    }
  }

  private final List<Response> script;
  private final ServerSocket socket;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "scripted-http-server");
    thread.setDaemon(true);
    return thread;
  });
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final CountDownLatch closing = new CountDownLatch(1);
  private final List<RecordedRequest> requests = new ArrayList<>();
  private final List<Long> bodyBytesSent = new ArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger bodiesStarted = new AtomicInteger();

  /**
   * Starts a server on an ephemeral loopback port that answers with these responses in turn, the last one
   * repeating.
   *
   * @param script the responses, at least one
   * @throws IOException if the port cannot be opened
   * @throws IllegalArgumentException if the script is empty
   * @throws NullPointerException if the script or one of its responses is null
   */
  public ScriptedHttpServer(Response... script) throws IOException {
    if (script == null || Arrays.asList(script).contains(null)) {
      throw new NullPointerException("script and its responses must not be null, was " + Arrays.toString(script));
    }
    if (script.length == 0) {
      throw new IllegalArgumentException("script must have at least one response, had none");
    }
    this.script = List.of(script);
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    executor.execute(this::accept);
  }

  /**
   * The byte at {@code offset} of every generated body ({@link Response#ofLength}): {@code offset % 251}.
   *
   * @throws IllegalArgumentException if {@code offset} is negative
   */
  public static byte patternByte(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must not be negative, was " + offset);
    }
    return (byte) (offset % 251);
  }

  /** The server's root, {@code http://127.0.0.1:PORT/}. */
  public URI uri() {
    return uri("/");
  }

  /**
   * The server's address with this path (and query), {@code http://127.0.0.1:PORT/path}.
   *
   * @throws IllegalArgumentException if {@code path} does not start with {@code /}
   * @throws NullPointerException if {@code path} is null
   */
  public URI uri(String path) {
    if (path == null) {
      throw new NullPointerException("path must not be null");
    }
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with /, was " + path);
    }
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  /** The port the server listens on. */
  public int port() {
    return socket.getLocalPort();
  }

  /** Every request read so far (its head and body complete), in the order they arrived. */
  public synchronized List<RecordedRequest> requests() {
    return List.copyOf(requests);
  }

  /** How many requests have been read so far. */
  public synchronized int requestCount() {
    return requests.size();
  }

  /** How many connections have been accepted so far. */
  public int connections() {
    return connections.get();
  }

  /**
   * The body bytes each response wrote before it ended (finished, reset, or cut short because the client
   * closed the connection), in the order they ended. A client that read only a bounded prefix of a large
   * body shows here as a number well below the body's length.
   */
  public synchronized List<Long> bodyBytesSent() {
    return List.copyOf(bodyBytesSent);
  }

  /** How many responses have begun their body (the head and the first body byte are out). */
  public int bodiesStarted() {
    return bodiesStarted.get();
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        connections.incrementAndGet();
        open.add(connection);
        executor.execute(() -> serve(connection));
      } catch (IOException closed) {
        return;
      } catch (RejectedExecutionException closed) {
        return;
      }
    }
  }

  private void serve(Socket connection) {
    try (connection) {
      InputStream in = new BufferedInputStream(connection.getInputStream());
      OutputStream out = connection.getOutputStream();
      in.mark(1);
      int first = in.read();
      if (first < 0) {
        return;
      }
      in.reset();
      if (!isTokenChar(first)) {
        Response response;
        synchronized (this) {
          response = script.get(Math.min(requests.size(), script.size() - 1));
        }
        answer(connection, out, response, 0, "GET", true);
        return;
      }
      for (;;) {
        RecordedRequest request = readRequest(in, out, connection.getPort());
        if (request == null) {
          return;
        }
        Response response;
        synchronized (this) {
          requests.add(request);
          response = script.get(Math.min(request.number() - 1, script.size() - 1));
        }
        boolean clientCloses = request.headerValues("Connection").stream()
            .anyMatch(value -> value.toLowerCase(Locale.ROOT).contains("close"));
        if (!answer(connection, out, response, request.number(), request.method(), clientCloses)) {
          return;
        }
      }
    } catch (IOException e) {
      // The client closed or reset the connection, or the server is closing: nothing more to serve.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      open.remove(connection);
    }
  }

  /** Writes one scripted answer; returns true if the connection stays open for another request. */
  private boolean answer(Socket connection, OutputStream out, Response response, int number, String method,
      boolean clientCloses) throws IOException, InterruptedException {
    if (response.delay.toNanos() > 0 && closing.await(response.delay.toNanos(), TimeUnit.NANOSECONDS)) {
      return false;
    }
    switch (response.kind) {
      case HANG -> {
        closing.await();
        return false;
      }
      case DISCONNECT -> {
        return false; // closed by serve's try-with-resources: a FIN, no answer
      }
      case RESET -> {
        connection.setSoLinger(true, 0); // close() now sends RST instead of FIN
        return false;
      }
      default -> {
        // an answer: below
      }
    }
    byte[] text = response.text == null ? null
        : response.text.replace("{n}", Integer.toString(number)).getBytes(StandardCharsets.UTF_8);
    long length = text != null ? text.length : response.length;
    boolean noBody = method.equals("HEAD") || response.status == 204 || response.status == 304
        || response.status < 200;
    boolean close = clientCloses || response.closeConnection || response.resetAfter >= 0;
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(response.status).append(' ')
        .append(reason(response.status)).append("\r\n");
    if (!(response.status == 204 || response.status < 200)) {
      head.append("Content-Length: ").append(length).append("\r\n");
    }
    if (close) {
      head.append("Connection: close\r\n");
    }
    for (int i = 0; i < response.headers.size(); i += 2) {
      head.append(response.headers.get(i)).append(": ").append(response.headers.get(i + 1)).append("\r\n");
    }
    out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    long sent = 0;
    try {
      long toSend = noBody ? 0 : response.resetAfter >= 0 ? Math.min(response.resetAfter, length) : length;
      while (sent < toSend) {
        int n = response.trickle != null ? 1 : (int) Math.min(CHUNK.length, toSend - sent);
        if (text != null) {
          out.write(text, (int) sent, n);
        } else {
          out.write(CHUNK, (int) (sent % 251), n);
        }
        if (sent == 0) {
          bodiesStarted.incrementAndGet();
        }
        sent += n;
        if (response.trickle != null) {
          out.flush();
          if (closing.await(response.trickle.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
          }
        }
      }
      out.flush();
    } finally {
      synchronized (this) {
        bodyBytesSent.add(sent);
      }
    }
    if (response.resetAfter >= 0) {
      connection.setSoLinger(true, 0);
      return false;
    }
    return !close;
  }

  /** Reads one request, or returns null if the client closed the connection between requests. */
  private RecordedRequest readRequest(InputStream in, OutputStream out, int remotePort) throws IOException {
    String requestLine = readLine(in, true);
    if (requestLine == null) {
      return null;
    }
    long receivedNanos = System.nanoTime();
    String[] parts = requestLine.split(" ");
    if (parts.length != 3) {
      throw new IOException("not an HTTP request line: " + requestLine);
    }
    Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    int headBytes = requestLine.length();
    for (String line = readLine(in, false); !line.isEmpty(); line = readLine(in, false)) {
      headBytes += line.length();
      if (headBytes > MAX_HEAD_BYTES) {
        throw new IOException("request head longer than " + MAX_HEAD_BYTES + " bytes");
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new IOException("not a header line: " + line);
      }
      headers.computeIfAbsent(line.substring(0, colon).trim(), name -> new ArrayList<>())
          .add(line.substring(colon + 1).trim());
    }
    if (first(headers, "Expect") != null && first(headers, "Expect").equalsIgnoreCase("100-continue")) {
      out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    }
    byte[] body;
    String transferEncoding = first(headers, "Transfer-Encoding");
    if (transferEncoding != null && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked")) {
      body = readChunked(in);
    } else if (first(headers, "Content-Length") != null) {
      body = readExactly(in, Long.parseLong(first(headers, "Content-Length")));
    } else {
      body = new byte[0];
    }
    headers.replaceAll((name, values) -> List.copyOf(values));
    int number;
    synchronized (this) {
      number = requests.size() + 1;
    }
    return new RecordedRequest(number, parts[0], parts[1], Collections.unmodifiableMap(headers), body,
        remotePort, receivedNanos);
  }

  private static String first(Map<String, List<String>> headers, String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** One CRLF-terminated line; null at a clean end of stream before its first byte if {@code eofOk}. */
  private static String readLine(InputStream in, boolean eofOk) throws IOException {
    StringBuilder line = new StringBuilder();
    for (;;) {
      int b = in.read();
      if (b < 0) {
        if (eofOk && line.length() == 0) {
          return null;
        }
        throw new EOFException("connection closed in the middle of a request");
      }
      if (b == '\n') {
        int end = line.length();
        return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
      }
      if (line.length() > MAX_HEAD_BYTES) {
        throw new IOException("request line longer than " + MAX_HEAD_BYTES + " bytes");
      }
      line.append((char) b);
    }
  }

  private static byte[] readExactly(InputStream in, long length) throws IOException {
    if (length < 0 || length > Integer.MAX_VALUE - 8) {
      throw new IOException("unsupported Content-Length " + length);
    }
    byte[] bytes = in.readNBytes((int) length);
    if (bytes.length < length) {
      throw new EOFException("connection closed after " + bytes.length + " of " + length + " body bytes");
    }
    return bytes;
  }

  private static byte[] readChunked(InputStream in) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (;;) {
      String sizeLine = readLine(in, false);
      int semicolon = sizeLine.indexOf(';');
      long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
      if (size == 0) {
        while (!readLine(in, false).isEmpty()) {
          // trailers: ignored
        }
        return body.toByteArray();
      }
      body.write(readExactly(in, size));
      readLine(in, false); // the CRLF after the chunk
    }
  }

  private static boolean isTokenChar(int b) {
    return b > 32 && b < 127 && "()<>@,;:\\\"/[]?={}".indexOf(b) < 0;
  }

  private static String reason(int status) {
    return switch (status) {
      case 100 -> "Continue";
      case 200 -> "OK";
      case 201 -> "Created";
      case 204 -> "No Content";
      case 301 -> "Moved Permanently";
      case 302 -> "Found";
      case 304 -> "Not Modified";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 408 -> "Request Timeout";
      case 409 -> "Conflict";
      case 413 -> "Content Too Large";
      case 429 -> "Too Many Requests";
      case 500 -> "Internal Server Error";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      default -> "Status " + status;
    };
  }

  /** Stops accepting, wakes every waiting response and ends every connection. */
  @Override
  public void close() throws IOException {
    closing.countDown();
    try {
      socket.close();
    } finally {
      for (Socket connection : open) {
        try {
          connection.close();
        } catch (IOException ignored) {
          // already closing: nothing to do
        }
      }
      executor.shutdownNow();
    }
  }

  /**
   * One scripted answer. Immutable: every method returns a new response, so one may be shared between
   * scripts and servers.
   */
  public static final class Response {
    private enum Kind { ANSWER, HANG, DISCONNECT, RESET }

    private final Kind kind;
    private final int status;
    private final String text;
    private final long length;
    private final List<String> headers;
    private final Duration delay;
    private final Duration trickle;
    private final long resetAfter;
    private final boolean closeConnection;

    private Response(Kind kind, int status, String text, long length, List<String> headers, Duration delay,
        Duration trickle, long resetAfter, boolean closeConnection) {
      this.kind = kind;
      this.status = status;
      this.text = text;
      this.length = length;
      this.headers = headers;
      this.delay = delay;
      this.trickle = trickle;
      this.resetAfter = resetAfter;
      this.closeConnection = closeConnection;
    }

    private static Response answer(int status, String text, long length) {
      if (status < 100 || status > 999) {
        throw new IllegalArgumentException("status must be from 100 to 999, was " + status);
      }
      return new Response(Kind.ANSWER, status, text, length, List.of(), Duration.ZERO, null, -1, false);
    }

    /**
     * Answers {@code status} with an empty body.
     *
     * @throws IllegalArgumentException if {@code status} is not from 100 to 999
     */
    public static Response of(int status) {
      return of(status, "");
    }

    /**
     * Answers {@code status} with {@code body} in UTF-8, in which every {@code {n}} becomes the request's
     * number (1 for the first request the server read).
     *
     * @throws IllegalArgumentException if {@code status} is not from 100 to 999
     * @throws NullPointerException if {@code body} is null
     */
    public static Response of(int status, String body) {
      if (body == null) {
        throw new NullPointerException("body must not be null");
      }
      return answer(status, body, -1);
    }

    /**
     * Answers {@code status} with a generated body of {@code bodyBytes} bytes, byte {@code i} being
     * {@link #patternByte patternByte(i)}, written in 64 KB chunks as fast as the client reads and never held
     * in memory: for bodies of any size.
     *
     * @throws IllegalArgumentException if {@code status} is not from 100 to 999 or {@code bodyBytes} is
     *     negative
     */
    public static Response ofLength(int status, long bodyBytes) {
      if (bodyBytes < 0) {
        throw new IllegalArgumentException("bodyBytes must not be negative, was " + bodyBytes);
      }
      return answer(status, null, bodyBytes);
    }

    /** Never answers: the request is read, then the connection is held open until the server closes. */
    public static Response hang() {
      return new Response(Kind.HANG, 0, null, 0, List.of(), Duration.ZERO, null, -1, true);
    }

    /** Closes the connection (a FIN) after reading the request, without any answer. */
    public static Response disconnect() {
      return new Response(Kind.DISCONNECT, 0, null, 0, List.of(), Duration.ZERO, null, -1, true);
    }

    /** Resets the connection (a TCP RST) after reading the request, without any answer. */
    public static Response reset() {
      return new Response(Kind.RESET, 0, null, 0, List.of(), Duration.ZERO, null, -1, true);
    }

    private Response requireAnswer(String what) {
      if (kind != Kind.ANSWER) {
        throw new IllegalStateException(what + " needs a response with a status, not " + this);
      }
      return this;
    }

    /**
     * Adds a response header (after {@code Content-Length} and {@code Connection}, which the server writes
     * itself).
     *
     * @throws IllegalArgumentException if the name is empty or either contains a line break
     * @throws NullPointerException if {@code name} or {@code value} is null
     * @throws IllegalStateException if this response sends no answer
     */
    public Response header(String name, String value) {
      requireAnswer("header");
      if (name == null || value == null) {
        throw new NullPointerException("header name and value must not be null, were " + name + " and " + value);
      }
      if (name.isEmpty() || name.contains(":") || (name + value).contains("\r") || (name + value).contains("\n")) {
        throw new IllegalArgumentException("header must have a name without ':' and no line breaks, was "
            + name + ": " + value);
      }
      List<String> more = new ArrayList<>(headers);
      more.add(name);
      more.add(value);
      return new Response(kind, status, text, length, List.copyOf(more), delay, trickle, resetAfter,
          closeConnection);
    }

    /**
     * Waits this long after reading the request before answering (or before hanging, disconnecting or
     * resetting). {@link ScriptedHttpServer#close} cuts the wait short.
     *
     * @throws IllegalArgumentException if {@code delay} is negative
     * @throws NullPointerException if {@code delay} is null
     */
    public Response delay(Duration delay) {
      return new Response(kind, status, text, length, headers, nonNegative("delay", delay), trickle, resetAfter,
          closeConnection);
    }

    /**
     * Writes the body one byte at a time, flushing each and pausing {@code pause} after it: a body that
     * trickles in.
     *
     * @throws IllegalArgumentException if {@code pause} is negative
     * @throws NullPointerException if {@code pause} is null
     * @throws IllegalStateException if this response sends no answer
     */
    public Response trickle(Duration pause) {
      requireAnswer("trickle");
      return new Response(kind, status, text, length, headers, delay, nonNegative("pause", pause), resetAfter,
          closeConnection);
    }

    private static Duration nonNegative(String name, Duration duration) {
      if (duration == null) {
        throw new NullPointerException(name + " must not be null");
      }
      if (duration.isNegative()) {
        throw new IllegalArgumentException(name + " must not be negative, was " + duration);
      }
      return duration;
    }

    /**
     * Sends the head (with the full {@code Content-Length}) and the first {@code bodyBytes} bytes of the body,
     * then resets the connection (a TCP RST): a response cut off in the middle of its body.
     *
     * @throws IllegalArgumentException if {@code bodyBytes} is negative or not less than the body's length
     * @throws IllegalStateException if this response sends no answer
     */
    public Response resetAfter(long bodyBytes) {
      requireAnswer("resetAfter");
      long bodyLength = text != null ? text.getBytes(StandardCharsets.UTF_8).length : length;
      if (bodyBytes < 0 || bodyBytes >= bodyLength) {
        throw new IllegalArgumentException("bodyBytes must be from 0 to less than the body's " + bodyLength
            + " bytes, was " + bodyBytes);
      }
      return new Response(kind, status, text, length, headers, delay, trickle, bodyBytes, closeConnection);
    }

    /**
     * Sends {@code Connection: close} and closes the connection after this response, so the client's next
     * request comes on a new connection.
     *
     * @throws IllegalStateException if this response sends no answer
     */
    public Response closeConnection() {
      requireAnswer("closeConnection");
      return new Response(kind, status, text, length, headers, delay, trickle, resetAfter, true);
    }

    @Override
    public String toString() {
      String what = switch (kind) {
        case HANG -> "hang";
        case DISCONNECT -> "disconnect";
        case RESET -> "reset";
        case ANSWER -> status + (text != null ? " \"" + text + "\"" : " with " + length + " generated bytes")
            + (headers.isEmpty() ? "" : " " + headers);
      };
      return delay.isZero() ? what : what + " after " + delay;
    }
  }

  /**
   * A request as the server read it. Immutable.
   */
  public static final class RecordedRequest {
    private final int number;
    private final String method;
    private final String target;
    private final Map<String, List<String>> headers;
    private final byte[] body;
    private final int remotePort;
    private final long receivedNanos;

    RecordedRequest(int number, String method, String target, Map<String, List<String>> headers, byte[] body,
        int remotePort, long receivedNanos) {
      this.number = number;
      this.method = method;
      this.target = target;
      this.headers = headers;
      this.body = body;
      this.remotePort = remotePort;
      this.receivedNanos = receivedNanos;
    }

    /** The request's number, 1 for the first request the server read. */
    public int number() {
      return number;
    }

    /** The method, such as {@code GET}. */
    public String method() {
      return method;
    }

    /** The request target as sent: the path and query, such as {@code /api?x=1}. */
    public String target() {
      return target;
    }

    /** Every header, names compared without regard to case; unmodifiable. */
    public Map<String, List<String>> headers() {
      return headers;
    }

    /**
     * The first value of a header, or null if the request did not have it; the name is compared without
     * regard to case.
     *
     * @throws NullPointerException if {@code name} is null
     */
    public String header(String name) {
      return first(headers, name);
    }

    /**
     * Every value of a header, empty if the request did not have it.
     *
     * @throws NullPointerException if {@code name} is null
     */
    public List<String> headerValues(String name) {
      return headers.getOrDefault(name, List.of());
    }

    /** The body decoded as UTF-8, empty if there was none. */
    public String body() {
      return new String(body, StandardCharsets.UTF_8);
    }

    /** The body's bytes (a copy), empty if there was none. */
    public byte[] bodyBytes() {
      return body.clone();
    }

    /** The client's port: requests with the same port came on the same connection. */
    public int remotePort() {
      return remotePort;
    }

    /**
     * When the server read the request line, as {@link System#nanoTime()} on this JVM: compare it with the
     * caller's own readings (a request sent after a deadline, the wait between two attempts).
     */
    public long receivedNanos() {
      return receivedNanos;
    }

    @Override
    public String toString() {
      return "#" + number + " " + method + " " + target + " (" + body.length + " body bytes)";
    }
  }
}
