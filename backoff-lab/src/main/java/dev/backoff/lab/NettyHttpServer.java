package dev.backoff.lab;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The lab's HTTP/1.1 server on Netty: one event-loop thread accepts and serves every connection, bound to the
 * loopback interface. Netty parses requests as their bytes arrive ({@link HttpRequestDecoder}, capped at
 * {@value #MAX_HEADER_BYTES} bytes of headers, 431, and of request line, 414) and collects bodies up to
 * {@value #MAX_BODY_BYTES} bytes ({@link HttpObjectAggregator}, 413 beyond); what Netty does not do for a
 * server that holds requests for minutes is added here, per connection:
 *
 * <ul>
 *   <li>a request must be complete within the request timeout of its first byte, else 408 and closed (a
 *       client that never finishes its headers holds a connection until then, never a thread);
 *   <li>an idle keep-alive connection is closed after the idle timeout, and so is one whose client stops
 *       reading its answer;
 *   <li>a held request's connection keeps being read, so when its client hangs up the descriptor is closed at
 *       once and the exchange's {@linkplain Exchange#onAbandoned abandon callback} runs;
 *   <li>one request at a time per connection: requests a client pipelines meanwhile wait their turn (at most
 *       {@value #MAX_PIPELINED}, with bodies of {@value #MAX_PIPELINED_BODY_BYTES} bytes in all);
 *   <li>at most {@code maxOpenConnections} connections; a new one beyond is closed on accept.
 * </ul>
 *
 * <p>Handlers run on the event loop and must not block; they answer at once or keep the exchange and answer
 * later from any thread.
 *
 * <p>Thread-safe: {@link Exchange#respond} and {@link Exchange#close} may be called from any thread; the rest
 * of a connection's state is confined to the event loop.
 */
final class NettyHttpServer implements AutoCloseable {
  /** Request line, and headers, each; as the JDK's own server keeps them small too. */
  static final int MAX_HEADER_BYTES = 16 * 1024;
  static final int MAX_BODY_BYTES = 64 * 1024;
  /**
   * Requests a client may send ahead while one of its requests is held, and their bodies' bytes in all;
   * more is no client of ours.
   */
  static final int MAX_PIPELINED = 4;
  static final int MAX_PIPELINED_BODY_BYTES = MAX_HEADER_BYTES;

  /**
   * One pool for the one I/O thread, in 512 KiB chunks rather than Netty's default 4 MiB (and no caches for
   * other threads): a held request keeps no buffer, so the pool only serves the reads and writes in flight.
   * Shared by every server in the JVM, so tests that start many servers do not each grow a pool.
   */
  private static final ByteBufAllocator ALLOCATOR = new PooledByteBufAllocator(true, 1, 1, 8192, 6,
      PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(), false);

  /** Runs on the event loop for each request; must not block. */
  interface Handler {
    void handle(Exchange exchange);
  }

  private final EventLoopGroup group;
  private final Channel listener;
  private final Handler handler;
  private final long requestTimeoutNanos;
  private final long idleTimeoutNanos;
  private final int maxOpenConnections;
  private int openConnections; // event loop only

  // RCVBUF_ALLOCATOR is deprecated in Netty 4.2, which (as of 4.2.20) offers no replacement option for capping a
  // channel's read buffer; the cap keeps 4000 held connections' reads small (see MAX_HEADER_BYTES).
  @SuppressWarnings("deprecation")
  private NettyHttpServer(int port, int backlog, int maxOpenConnections, Duration requestTimeout,
      Duration idleTimeout, Handler handler) throws IOException {
    this.handler = handler;
    this.maxOpenConnections = maxOpenConnections;
    this.requestTimeoutNanos = requestTimeout.toNanos();
    this.idleTimeoutNanos = idleTimeout.toNanos();
    // One thread accepts and serves (boss and worker alike); a FastThreadLocalThread, so Netty's per-thread
    // state needs no cleaner thread.
    this.group = new MultiThreadIoEventLoopGroup(
        1, new DefaultThreadFactory("backoff-lab-server-io", true), NioIoHandler.newFactory());
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, backlog)
        .option(ChannelOption.AUTO_READ, false) // connections wait in the backlog until start()
        .option(ChannelOption.ALLOCATOR, ALLOCATOR)
        .childOption(ChannelOption.ALLOCATOR, ALLOCATOR)
        // Reads start at 1 KiB and never exceed the header cap: the buffer lives only during the read.
        .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(64, 1024, MAX_HEADER_BYTES))
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel channel) {
            accept(channel);
          }
        });
    ChannelFuture bound = bootstrap.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
        .awaitUninterruptibly();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      Throwable cause = bound.cause();
      throw cause instanceof IOException io ? io
          : new IOException("cannot listen on 127.0.0.1:" + port + ": " + cause, cause);
    }
    this.listener = bound.channel();
  }

  /**
   * Binds 127.0.0.1:{@code port} (0: any free port); connections queue until {@link #start()}.
   *
   * @throws IOException if the port cannot be bound
   */
  static NettyHttpServer bind(int port, int backlog, int maxOpenConnections, Duration requestTimeout,
      Duration idleTimeout, Handler handler) throws IOException {
    return new NettyHttpServer(port, backlog, maxOpenConnections, requestTimeout, idleTimeout, handler);
  }

  /** Starts accepting. */
  void start() {
    listener.config().setAutoRead(true);
  }

  int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /** Stops at once: closes the listening socket and every connection, and ends the event-loop thread. */
  @Override
  public void close() {
    listener.close();
    // No quiet period: held requests are not drained, their connections close with the event loop.
    io.netty.util.concurrent.Future<?> terminated = group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    if (!listener.eventLoop().inEventLoop()) {
      try {
        terminated.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the event loop closes everything by itself
      }
    }
  }

  /** A new connection, on the event loop: bounded, then given its pipeline. */
  private void accept(SocketChannel channel) {
    if (openConnections >= maxOpenConnections) {
      channel.close(); // bounded descriptors: like a full accept queue, the client sees its connection go
      return;
    }
    openConnections++;
    channel.closeFuture().addListener(closed -> openConnections--);
    Connection connection = new Connection(channel);
    channel.pipeline().addLast(connection.guard, connection.decoder, new HttpResponseEncoder(),
        new Aggregator(connection), connection);
  }

  private static int statusFor(Throwable cause) {
    if (cause instanceof TooLongHttpHeaderException) {
      return 431;
    }
    if (cause instanceof TooLongHttpLineException) {
      return 414;
    }
    if (cause instanceof TooLongFrameException) {
      return 413; // a chunk or body past a limit
    }
    return 400;
  }

  private static String messageFor(int status, Throwable cause) {
    return switch (status) {
      case 431 -> "request headers longer than " + MAX_HEADER_BYTES + " bytes\n";
      case 414 -> "request line longer than " + MAX_HEADER_BYTES + " bytes\n";
      case 413 -> "request body longer than " + MAX_BODY_BYTES + " bytes\n";
      default -> "malformed request: " + cause.getMessage() + "\n";
    };
  }

  /**
   * Netty's request decoder, telling whether it holds part of a request: bytes not parsed yet, a request line
   * or headers parsed into its own state, or a request whose body has not ended. That is when the request
   * timeout runs.
   */
  private static final class RequestDecoder extends HttpRequestDecoder {
    private boolean started; // bytes of a request (not just line breaks between requests) consumed, not ended

    RequestDecoder() {
      super(new HttpDecoderConfig().setMaxInitialLineLength(MAX_HEADER_BYTES).setMaxHeaderSize(MAX_HEADER_BYTES)
          .setInitialBufferSize(128));
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out)
        throws Exception {
      int readerBefore = buffer.readerIndex();
      int before = out.size();
      super.decode(ctx, buffer, out);
      // The decoder returns as soon as it has emitted a request's last content, so what it consumed in a
      // call that ends a request belonged to that request.
      for (int i = before; i < out.size(); i++) {
        if (out.get(i) instanceof LastHttpContent) {
          started = false;
          return;
        }
      }
      if (out.size() > before) {
        started = true; // a request's headers (and maybe part of its body): the body has not ended
      } else if (!started && buffer.readerIndex() > readerBefore) {
        started = buffer.forEachByte(readerBefore, buffer.readerIndex() - readerBefore,
            b -> b == '\r' || b == '\n' || b == ' ' || b == '\t') >= 0;
      }
    }

    boolean holdsPartialRequest() {
      return started || internalBuffer().isReadable();
    }
  }

  /** Netty's body aggregation, answering an oversized body as every other refusal here: text, then close. */
  private static final class Aggregator extends HttpObjectAggregator {
    private final Connection connection;

    Aggregator(Connection connection) {
      super(MAX_BODY_BYTES, true);
      this.connection = connection;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
      connection.refuse(413, messageFor(413, null));
    }
  }

  private enum Timer { NONE, IDLE, REQUEST, WRITE }

  /** One client connection and its last handler. Event loop only, except where {@link Exchange} says. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    final Channel channel;
    final RequestDecoder decoder = new RequestDecoder();
    /** First in the pipeline: sees raw reads, then re-arms the timers once Netty has parsed them. */
    final ChannelInboundHandlerAdapter guard = new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object message) {
        lastReadAt = System.nanoTime();
        ctx.fireChannelRead(message);
        rearm();
      }
    };
    ChannelHandlerContext context;
    Exchange current; // the request being served, from its dispatch to the end of its answer
    boolean writing;
    ArrayDeque<FullHttpRequest> pipelined; // created on first use: almost no client pipelines
    int pipelinedBodyBytes;
    ScheduledFuture<?> timer;
    Timer timerKind = Timer.NONE;
    long freeSince = System.nanoTime(); // when the connection last became free for a new request
    long lastReadAt;
    long partialSince = -1; // the read that brought the first bytes of an incomplete request, or -1

    Connection(Channel channel) {
      this.channel = channel;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      context = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      rearm();
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      if (!(message instanceof FullHttpRequest request)) {
        ReferenceCountUtil.release(message);
        return;
      }
      partialSince = -1; // a request is complete: bytes after it belong to the next one
      if (current != null || writing) {
        if (pipelined == null) {
          pipelined = new ArrayDeque<>(2);
        }
        pipelined.addLast(request);
        pipelinedBodyBytes += request.content().readableBytes();
        if (pipelined.size() > MAX_PIPELINED || pipelinedBodyBytes > MAX_PIPELINED_BODY_BYTES) {
          channel.close(); // the held request is abandoned as when its client hangs up
        }
        return;
      }
      serve(request);
    }

    private void serve(FullHttpRequest request) {
      try {
        if (request.decoderResult().isFailure()) {
          Throwable cause = request.decoderResult().cause();
          int status = statusFor(cause);
          refuse(status, messageFor(status, cause));
          return;
        }
        String target = request.uri();
        if (!target.startsWith("/")) {
          refuse(400, "malformed request target: " + target + "\n");
          return;
        }
        int query = target.indexOf('?');
        Exchange exchange = new Exchange(this, request.method(), query < 0 ? target : target.substring(0, query),
            request.headers(), HttpUtil.isKeepAlive(request));
        current = exchange;
        rearm();
        try {
          handler.handle(exchange);
        } catch (RuntimeException e) {
          exchange.respond(500, "internal error\n".getBytes(StandardCharsets.US_ASCII), "text/plain");
        } finally {
          exchange.headers = null; // a held request keeps no headers
        }
      } finally {
        request.release();
      }
    }

    /** Answers a request that cannot be served, then closes. */
    void refuse(int status, String message) {
      if (current != null || writing) {
        channel.close(); // a bad request pipelined behind a held one: no client of ours
        return;
      }
      writing = true;
      context.writeAndFlush(response(status, message.getBytes(StandardCharsets.UTF_8), "text/plain",
          List.of(), true, false)).addListener(ChannelFutureListener.CLOSE);
    }

    /** Writes an exchange's answer; event loop only. */
    void send(Exchange exchange, FullHttpResponse response, boolean close) {
      if (exchange != current || writing || !channel.isActive()) {
        response.release();
        return; // the client has gone (or the connection was closed meanwhile): nobody to answer
      }
      writing = true;
      arm(Timer.WRITE, idleTimeoutNanos); // a client that never reads its answer does not keep the connection
      context.writeAndFlush(response).addListener(written -> {
        writing = false;
        current = null;
        if (!written.isSuccess() || close) {
          channel.close();
          return;
        }
        freeSince = System.nanoTime();
        FullHttpRequest next = pipelined == null ? null : pipelined.pollFirst();
        if (next != null) {
          pipelinedBodyBytes -= next.content().readableBytes();
          serve(next);
        } else {
          rearm();
        }
      });
    }

    /** Arms the timer the connection's state calls for: none while a request is held. */
    void rearm() {
      if (!channel.isActive() || writing) {
        return; // closed, or the write timer runs
      }
      if (current != null) {
        arm(Timer.NONE, 0); // held: the model decides when it is answered
      } else if (decoder.holdsPartialRequest()) {
        if (partialSince < 0) {
          partialSince = lastReadAt;
        }
        if (timerKind != Timer.REQUEST) {
          long since = partialSince - freeSince > 0 ? partialSince : freeSince;
          arm(Timer.REQUEST, since + requestTimeoutNanos - System.nanoTime());
        }
      } else if (timerKind != Timer.IDLE) {
        partialSince = -1;
        arm(Timer.IDLE, idleTimeoutNanos);
      }
    }

    private void arm(Timer kind, long delayNanos) {
      if (timer != null) {
        timer.cancel(false);
        timer = null;
      }
      timerKind = kind;
      if (kind != Timer.NONE) {
        timer = channel.eventLoop().schedule(() -> expire(kind), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
      }
    }

    private void expire(Timer kind) {
      if (kind != timerKind || !channel.isActive()) {
        return;
      }
      timer = null;
      timerKind = Timer.NONE;
      if (kind == Timer.REQUEST) {
        // Whatever the client does not read of the 408 does not matter: the connection goes now.
        context.writeAndFlush(response(408, ("request not completed within "
            + Duration.ofNanos(requestTimeoutNanos) + "\n").getBytes(StandardCharsets.US_ASCII), "text/plain",
            List.of(), true, false));
      }
      channel.close();
    }

    /** The client closed its end or reset: the descriptor is released now; a held exchange is told. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      arm(Timer.NONE, 0);
      if (pipelined != null) {
        pipelined.forEach(FullHttpRequest::release);
        pipelined.clear();
      }
      Exchange abandoned = current != null && !writing ? current : null;
      current = null;
      if (abandoned != null) {
        abandoned.abandon();
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      channel.close(); // a reset or a broken pipe, mostly: the close above tells a held exchange
    }
  }

  private static FullHttpResponse response(int status, byte[] body, String contentType, List<String> extraHeaders,
      boolean close, boolean head) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    HttpHeaders headers = response.headers();
    headers.set(HttpHeaderNames.CONTENT_LENGTH, body.length); // for HEAD too: the length a GET would get
    if (contentType != null) {
      headers.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    }
    for (int i = 0; i + 1 < extraHeaders.size(); i += 2) {
      headers.add(extraHeaders.get(i), extraHeaders.get(i + 1));
    }
    if (close) {
      headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    return response;
  }

  /**
   * One request and its answer. Answered at most once: {@link #respond} and {@link #close} after the first
   * of them do nothing. Thread-safe.
   */
  final class Exchange {
    private final Connection connection;
    private final HttpMethod method;
    private final String path;
    private final boolean keepAlive;
    private final AtomicBoolean finished = new AtomicBoolean();
    private HttpHeaders headers; // event loop only, while the handler runs
    private Runnable onAbandoned; // event loop only

    private Exchange(Connection connection, HttpMethod method, String path, HttpHeaders headers,
        boolean keepAlive) {
      this.connection = connection;
      this.method = method;
      this.path = path;
      this.headers = headers;
      this.keepAlive = keepAlive;
    }

    String method() {
      return method.name();
    }

    /** The request target without its query. */
    String path() {
      return path;
    }

    /** The header's value (repeated ones joined with ", "), or null; only while the handler runs. */
    String header(String name) {
      List<String> values = headers.getAll(name);
      return values.isEmpty() ? null : String.join(", ", values);
    }

    /** Runs on the event loop if the client hangs up before the answer; call from the handler. */
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
      boolean close = !keepAlive || status >= 400 && status != 404 && status != 405 && status != 429 && status != 503;
      FullHttpResponse response = response(status, body, contentType, List.of(extraHeaders), close,
          method.equals(HttpMethod.HEAD));
      onEventLoop(() -> connection.send(this, response, close));
    }

    /** Closes the connection without an answer (a request dropped as a full accept queue would). */
    void close() {
      if (finished.compareAndSet(false, true)) {
        onEventLoop(() -> {
          if (connection.current == this) {
            connection.channel.close();
          }
        });
      }
    }

    private void onEventLoop(Runnable task) {
      EventLoop loop = connection.channel.eventLoop();
      if (loop.inEventLoop()) {
        task.run();
        return;
      }
      try {
        loop.execute(task);
      } catch (RejectedExecutionException closing) {
        // The server is closing: every connection is closed with it.
      }
    }
  }
}
