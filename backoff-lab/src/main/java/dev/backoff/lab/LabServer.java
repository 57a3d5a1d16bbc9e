package dev.backoff.lab;

import dev.backoff.NanoClock;
import dev.backoff.sim.KneeLatency;
import dev.backoff.lab.NettyHttpServer.Exchange;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The retry-storm experiment's server over real sockets, bound to the loopback interface only: {@code /api} answers {@code OK}
 * after the {@linkplain KneeLatency knee model}'s delay, evaluated against the live concurrency (see
 * {@link ServerCore} for the exact rules, pause included). {@code POST /admin/pause} and
 * {@code POST /admin/resume} stop and restart it from outside (for platforms without SIGSTOP);
 * {@code POST /admin/reset} forgets every held request (the way out of a storm the model never ends);
 * {@code GET /admin/stats} reports its state as JSON. The admin POSTs refuse what a web page could send
 * (a foreign {@code Origin} or {@code Host}, form and plain-text bodies) with 403, so a page the user
 * opens cannot pause the server.
 *
 * <p>HTTP is Netty's, on one event-loop thread that never blocks (a client that never finishes its headers
 * holds a connection until the header timeout, never a thread), and a single ticker thread answers due
 * requests: a delayed request holds a connection and a small object, and thousands of them cost two
 * threads in all. A client that hangs up releases its connection at once; its request keeps counting.
 *
 * <p>Thread-safe. Close it to release its port, threads and connections.
 */
public final class LabServer implements AutoCloseable {
  private static final byte[] OK = "OK".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] OVER_CAPACITY = "over capacity".getBytes(StandardCharsets.US_ASCII);
  /** Slots per check interval: the ticker runs ten times per interval (every 5 ms for the original experiment's 50 ms). */
  private static final int SLOTS_PER_CHECK = 10;
  /** What a web page can send cross-origin without a CORS preflight (besides no Content-Type at all). */
  private static final java.util.Set<String> SIMPLE_CONTENT_TYPES =
      java.util.Set.of("application/x-www-form-urlencoded", "multipart/form-data", "text/plain");

  private final NettyHttpServer http;
  private final ServerCore<Exchange> core;
  private final ScheduledExecutorService ticker;
  private final NanoClock clock;
  private final int maxConnections;
  private final int backlog;
  private final String serviceDistribution;
  private final double slowFraction;
  private final Duration slowLatency;
  private final int rejectStatus;

  private LabServer(Builder builder) throws IOException {
    this.clock = builder.clock;
    this.rejectStatus = builder.rejectStatus;
    this.backlog = builder.backlog;
    this.maxConnections = builder.maxConnections;
    long slotNanos = Math.max(1, builder.checkInterval.toNanos() / SLOTS_PER_CHECK);
    java.util.function.DoubleSupplier serviceFactor = null;
    if (builder.exponentialService || builder.slowFraction > 0) {
      java.util.SplittableRandom random = new java.util.SplittableRandom(builder.seed);
      boolean exponential = builder.exponentialService;
      double slowFraction = builder.slowFraction;
      double slowFactor = slowFraction > 0 ? (double) builder.slowLatency.toNanos() / builder.latency.base().toNanos()
          : 1;
      serviceFactor = () -> {
        double factor = exponential ? -Math.log(1 - random.nextDouble()) : 1; // mean 1; 1 - u avoids log(0)
        // The slow draw only when asked, so that an exponential server's draws stay what they were.
        return slowFraction > 0 && random.nextDouble() < slowFraction ? factor * slowFactor : factor;
      };
    }
    this.slowFraction = builder.slowFraction;
    this.slowLatency = builder.slowLatency;
    this.core = new ServerCore<>(builder.latency, slotNanos, SLOTS_PER_CHECK, builder.backlog,
        builder.maxConnections, serviceFactor);
    this.serviceDistribution = builder.exponentialService ? "exponential" : "fixed";
    // Room beyond the held requests for idle keep-alive connections, 503s and admin calls; never more
    // than the descriptors the process may open.
    long open = 2L * builder.maxConnections + 64;
    long descriptors = FileDescriptors.limit().orElse(Long.MAX_VALUE) - FileDescriptors.RESERVED;
    int maxOpen = (int) Math.max(builder.maxConnections + 16L,
        Math.min(Math.min(open, descriptors), Integer.MAX_VALUE));
    this.http = NettyHttpServer.bind(builder.port, builder.backlog, maxOpen, builder.headerTimeout,
        builder.idleTimeout, this::route);
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "backoff-lab-server-ticker");
      thread.setDaemon(true);
      return thread;
    });
    executor.setRemoveOnCancelPolicy(true);
    this.ticker = executor;
    http.start();
    // Fixed delays, not rates: after a SIGSTOP the ticker must not replay thousands of missed runs.
    ticker.scheduleWithFixedDelay(this::tick, slotNanos, slotNanos, TimeUnit.NANOSECONDS);
    if (builder.report != null) {
      Consumer<String> report = builder.report;
      ticker.scheduleWithFixedDelay(() -> report.accept(statusLine()), 1, 1, TimeUnit.SECONDS);
    }
  }

  /** A builder with the retry-storm experiment's defaults on a free port. */
  public static Builder builder() {
    return new Builder();
  }

  /** Runs on the server's event-loop thread: never blocks. */
  private void route(Exchange exchange) {
    String path = exchange.path();
    switch (path) {
      case "/admin/pause" -> handleAdmin(exchange, this::pause, "paused\n");
      case "/admin/resume" -> handleAdmin(exchange, this::resume, "resumed\n");
      case "/admin/reset" -> handleAdmin(exchange, this::reset, "reset\n");
      case "/admin/stats" -> handleStats(exchange);
      default -> {
        if (path.equals("/api") || path.startsWith("/api/")) {
          handleApi(exchange);
        } else {
          respond(exchange, 404, "no such endpoint: " + path + "\n");
        }
      }
    }
  }

  private void handleApi(Exchange exchange) {
    boolean held;
    boolean paused;
    List<Exchange> evicted = new ArrayList<>(1);
    synchronized (core) {
      held = core.arrive(exchange, clock.nanoTime(), evicted);
      paused = core.paused();
    }
    for (Exchange old : evicted) {
      old.close();
    }
    if (held) {
      // The client hangs up: its connection is closed already; the request keeps counting as the model says.
      exchange.onAbandoned(() -> {
        synchronized (core) {
          core.abandon(exchange);
        }
      });
    } else if (paused) {
      exchange.close(); // a stopped process answers nothing; the client sees the connection go
    } else {
      exchange.respond(rejectStatus, OVER_CAPACITY, "text/plain");
    }
  }

  private void handleAdmin(Exchange exchange, Runnable action, String done) {
    if (!"POST".equals(exchange.method())) {
      exchange.respond(405, "use POST\n".getBytes(StandardCharsets.US_ASCII), "text/plain", "Allow", "POST");
      return;
    }
    String refusal = crossSiteRefusal(exchange);
    if (refusal != null) {
      respond(exchange, 403, "refused: " + refusal + "\n");
      return;
    }
    action.run();
    respond(exchange, 200, done);
  }

  /**
   * Why a state-changing request may come from a web page rather than from the lab's own tools, or null.
   * Browsers send {@code Origin} with every POST (fetch and forms); a page can also post forms or plain
   * text without a CORS preflight, and reach 127.0.0.1 under its own host name (DNS rebinding). curl and
   * java.net.http send none of that.
   */
  private String crossSiteRefusal(Exchange exchange) {
    String host = exchange.header("Host");
    if (host != null && !isOwnAuthority(host)) {
      return "Host " + host + " is not this server (127.0.0.1:" + port() + ")";
    }
    String origin = exchange.header("Origin");
    if (origin != null && !(origin.startsWith("http://") && isOwnAuthority(origin.substring("http://".length())))) {
      return "Origin " + origin + " is not this server's (http://127.0.0.1:" + port()
          + "); admin requests must come from the command line or the same origin";
    }
    String contentType = exchange.header("Content-Type");
    if (contentType != null) {
      String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
      if (SIMPLE_CONTENT_TYPES.contains(mediaType)) {
        return "Content-Type " + contentType + " is what a web form sends; send no body (curl -X POST)";
      }
    }
    return null;
  }

  private boolean isOwnAuthority(String authority) {
    int port = port();
    for (String name : List.of("127.0.0.1", "localhost", "[::1]")) {
      if (authority.equalsIgnoreCase(name + ":" + port) || port == 80 && authority.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  private void handleStats(Exchange exchange) {
    exchange.respond(200, stats(true).toJson().getBytes(StandardCharsets.UTF_8), "application/json");
  }

  private void tick() {
    List<Exchange> due = new ArrayList<>();
    synchronized (core) {
      core.tick(clock.nanoTime(), due);
    }
    for (Exchange exchange : due) {
      exchange.respond(200, OK, null); // an abandoned one has no connection left: nothing is written
    }
  }

  private static void respond(Exchange exchange, int status, String text) {
    exchange.respond(status, text.getBytes(StandardCharsets.UTF_8), "text/plain; charset=utf-8");
  }

  /** Stops answering: requests pile up in the accept backlog, as if the process were stopped. */
  public void pause() {
    synchronized (core) {
      core.pause();
    }
  }

  /** Resumes: the piled-up backlog starts at once; requests beyond it are closed without an answer. */
  public void resume() {
    List<Exchange> answered = new ArrayList<>();
    List<Exchange> dropped = new ArrayList<>();
    synchronized (core) {
      core.resume(clock.nanoTime(), answered, dropped);
    }
    for (Exchange exchange : dropped) {
      exchange.close();
    }
    for (Exchange exchange : answered) {
      exchange.respond(200, OK, null);
    }
  }

  /**
   * Forgets every held request, abandoned or not, closing the connections still open without an answer:
   * the concurrency drops to 0. The way out when the model would never finish them (past a few thousand
   * concurrent requests the original experiment's latency is years); a paused server stays paused.
   */
  public void reset() {
    List<Exchange> forgotten = new ArrayList<>();
    synchronized (core) {
      core.reset(forgotten);
    }
    for (Exchange exchange : forgotten) {
      exchange.close();
    }
  }

  /** The port the server listens on (on 127.0.0.1). */
  public int port() {
    return http.port();
  }

  /** The {@code /api} address. */
  public URI apiUri() {
    return URI.create("http://127.0.0.1:" + port() + "/api");
  }

  /** A snapshot of the server's state (the peak is since the server started). */
  public Stats stats() {
    return stats(false);
  }

  /**
   * A snapshot whose peak concurrency covers the time since the previous call of this method (or since the
   * start), for a sampler that wants the peak of each interval rather than a momentary reading.
   */
  public Stats statsForInterval() {
    return stats(true);
  }

  private Stats stats(boolean interval) {
    synchronized (core) {
      int peak = interval ? core.takePeakSinceMark() : core.peakConcurrency();
      return new Stats(core.concurrency(), peak, core.waiting(), core.lastDelayNanos(), core.paused(),
          core.answered(), core.dropped(), core.refused(), core.abandoned(), core.forgotten(), core.received(),
          core.hungUp());
    }
  }

  /** The once-a-second line of the retry-storm experiment's server: {@code concurrency: N, last delay: D}. */
  public String statusLine() {
    Stats stats = stats();
    return "concurrency: " + stats.concurrency() + ", last delay: " + formatDuration(stats.lastDelayNanos)
        + (stats.paused() ? " (paused, " + stats.waiting() + " waiting)" : "");
  }

  /** The largest number of requests held at once before new ones are refused. */
  public int maxConnections() {
    return maxConnections;
  }

  /** The accept backlog (also the number of requests that start at once on resume). */
  public int backlog() {
    return backlog;
  }

  /** The latency model. */
  public KneeLatency latency() {
    return core.latency();
  }

  /**
   * How each request's service time is drawn: {@code fixed} (the latency model's D) or {@code exponential}
   * (D times an exponential draw of mean 1).
   */
  public String serviceDistribution() {
    return serviceDistribution;
  }

  /** The share of requests that take {@link #slowLatency()} (0 without a slow tail). */
  public double slowFraction() {
    return slowFraction;
  }

  /** What a slow request takes where the others take the base latency; null without a slow tail. */
  public Duration slowLatency() {
    return slowLatency;
  }

  /** The status a request gets when the server already holds its maximum: 503 or 429. */
  public int rejectStatus() {
    return rejectStatus;
  }

  /** Stops the server at once, closing every held connection. */
  @Override
  public void close() {
    ticker.shutdownNow();
    http.close(); // closes every connection, held ones included
    synchronized (core) {
      core.drainAll(new ArrayList<>());
    }
  }

  /** Formats a duration as Go prints one (the original experiment's server is written in Go): 100ms, 2.671s, 2m8.581s. */
  static String formatDuration(long nanos) {
    if (nanos == 0) {
      return "0";
    }
    if (nanos == Long.MAX_VALUE) {
      return "unbounded";
    }
    if (nanos < 1_000_000_000L) {
      double millis = nanos / 1e6;
      return trim(String.format(Locale.ROOT, "%.3f", millis)) + "ms";
    }
    long totalSeconds = nanos / 1_000_000_000L;
    double seconds = (nanos % 60_000_000_000L) / 1e9;
    String secondsText = trim(String.format(Locale.ROOT, "%.3f", seconds)) + "s";
    if (totalSeconds < 60) {
      return secondsText;
    }
    long minutes = totalSeconds / 60;
    if (minutes < 60) {
      return minutes + "m" + secondsText;
    }
    return minutes / 60 + "h" + minutes % 60 + "m" + secondsText;
  }

  private static String trim(String decimal) {
    if (decimal.indexOf('.') < 0) {
      return decimal;
    }
    String trimmed = decimal.replaceAll("0+$", "");
    return trimmed.endsWith(".") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
  }

  /** A snapshot of the server's state. Immutable. */
  public static final class Stats {
    private final int concurrency;
    private final int peakConcurrency;
    private final int waiting;
    private final long lastDelayNanos;
    private final boolean paused;
    private final long answered;
    private final long dropped;
    private final long refused;
    private final int abandoned;
    private final long forgotten;
    private final long received;
    private final long hungUp;

    Stats(int concurrency, int peakConcurrency, int waiting, long lastDelayNanos, boolean paused, long answered,
        long dropped, long refused, int abandoned, long forgotten) {
      this(concurrency, peakConcurrency, waiting, lastDelayNanos, paused, answered, dropped, refused, abandoned,
          forgotten, -1, -1);
    }

    Stats(int concurrency, int peakConcurrency, int waiting, long lastDelayNanos, boolean paused, long answered,
        long dropped, long refused, int abandoned, long forgotten, long received, long hungUp) {
      this.concurrency = concurrency;
      this.peakConcurrency = peakConcurrency;
      this.waiting = waiting;
      this.lastDelayNanos = lastDelayNanos;
      this.paused = paused;
      this.answered = answered;
      this.dropped = dropped;
      this.refused = refused;
      this.abandoned = abandoned;
      this.forgotten = forgotten;
      this.received = received;
      this.hungUp = hungUp;
    }

    /**
     * Requests whose client hung up while the server held them (before their answer), since the start: a
     * timed-out attempt, or a hedge's loser cancelled; -1 if unknown (a server that does not report it).
     */
    public long hungUp() {
      return hungUp;
    }

    /**
     * Requests to {@code /api} that reached the server since the start, whatever became of them (held,
     * answered, refused, dropped, forgotten); -1 if unknown (a server that does not report it).
     */
    public long received() {
      return received;
    }

    /** Requests in service now (abandoned ones included). */
    public int concurrency() {
      return concurrency;
    }

    /** The highest concurrency seen (since the start, or in the interval; see {@link #statsForInterval}). */
    public int peakConcurrency() {
      return peakConcurrency;
    }

    /** Requests waiting for a paused server (backlog and beyond). */
    public int waiting() {
      return waiting;
    }

    /** The latency D computed at the latest check. */
    public Duration lastDelay() {
      return Duration.ofNanos(lastDelayNanos);
    }

    /** Whether the server is paused. */
    public boolean paused() {
      return paused;
    }

    /** Requests answered OK since the start. */
    public long answered() {
      return answered;
    }

    /** Requests beyond the backlog closed without an answer at a resume. */
    public long dropped() {
      return dropped;
    }

    /** Requests refused because {@code maxConnections} were held. */
    public long refused() {
      return refused;
    }

    /** Requests held (counted in the concurrency or waiting) whose client has hung up. */
    public int abandoned() {
      return abandoned;
    }

    /**
     * Requests forgotten since the start: abandoned ones that made room for a newcomer on a full server,
     * and every one held at a reset.
     */
    public long forgotten() {
      return forgotten;
    }

    /** The stats as a JSON object. */
    public String toJson() {
      dev.backoff.sim.Json json = dev.backoff.sim.Json.compact().object()
          .field("concurrency").number(concurrency).field("peakConcurrency").number(peakConcurrency)
          .field("waiting").number(waiting).field("lastDelaySeconds").decimal(lastDelayNanos / 1e9, 6)
          .field("paused").bool(paused).field("answered").number(answered).field("dropped").number(dropped)
          .field("refused").number(refused).field("abandoned").number(abandoned).field("forgotten").number(forgotten);
      if (received >= 0) {
        json.field("received").number(received);
      }
      if (hungUp >= 0) {
        json.field("hungUp").number(hungUp);
      }
      return json.endObject().toString();
    }

    @Override
    public String toString() {
      return toJson();
    }
  }

  /** Configures a {@link LabServer}. Not thread-safe. */
  public static final class Builder {
    private int port;
    private KneeLatency latency = KneeLatency.stormExperiment();
    private int backlog = 512;
    private int maxConnections = -1;
    private Duration checkInterval = Duration.ofMillis(50);
    private Consumer<String> report;
    private NanoClock clock = NanoClock.system();
    private Duration headerTimeout = Duration.ofSeconds(10);
    /** Idle keep-alive connections are closed after this, as the JDK's own server does by default. */
    private Duration idleTimeout = Duration.ofSeconds(30);
    private boolean exponentialService;
    private double slowFraction;
    private Duration slowLatency;
    private long seed = 1;
    private int rejectStatus = 503;

    Builder() {}

    /**
     * The status a request gets at once when the server already holds {@link #maxConnections} requests:
     * 503 (default) or 429, the simulator's {@code reject-status}. With the knee limit at or above
     * {@code maxConnections}, every request takes the base latency, so the server serves
     * {@code maxConnections / base latency} requests per second and throttles above that, as the
     * simulator's pool does above its workers and queue. A 429 or 503 keeps the connection open.
     *
     * @throws IllegalArgumentException if neither 503 nor 429
     */
    public Builder rejectStatus(int status) {
      if (status != 503 && status != 429) {
        throw new IllegalArgumentException("rejectStatus must be 503 or 429, was " + status);
      }
      this.rejectStatus = status;
      return this;
    }

    /**
     * How each request's service time is drawn: {@code fixed} (default: the latency model's D, as in the
     * retry-storm experiment) or {@code exponential} (D times an exponential draw of mean 1, so at low load
     * exponential service times of mean {@code base}: a slow tail, for hedging), the simulator's words.
     *
     * @throws IllegalArgumentException if neither
     */
    public Builder serviceDistribution(String distribution) {
      if (!"fixed".equals(distribution) && !"exponential".equals(distribution)) {
        throw new IllegalArgumentException("serviceDistribution must be fixed or exponential, was "
            + (distribution == null ? "null" : "'" + distribution + "'"));
      }
      this.exponentialService = "exponential".equals(distribution);
      return this;
    }

    /**
     * A slow tail: each request, with probability {@code fraction} (drawn from the {@link #seed}), takes
     * {@code latency} where the others take the base latency; its service time is the latency model's D times
     * {@code latency / base} (times its exponential draw with that distribution), so above the knee it slows
     * with the others. {@code fraction} 0 (the default) turns it off.
     *
     * @throws IllegalArgumentException if {@code fraction} is outside [0, 1) ({@link #start} refuses a
     *     {@code latency} not above the latency model's base latency)
     * @throws NullPointerException if {@code fraction} is above 0 and {@code latency} is null
     */
    public Builder slowTail(double fraction, Duration latency) {
      if (!(fraction >= 0 && fraction < 1)) {
        throw new IllegalArgumentException("slowFraction must be from 0 to 1 (1 excluded), was " + fraction);
      }
      if (fraction > 0 && latency == null) {
        throw new NullPointerException("slowLatency must not be null with a slow fraction");
      }
      this.slowFraction = fraction;
      this.slowLatency = fraction > 0 ? latency : null;
      return this;
    }

    /** The seed of the service-time draws (default 1; used by an exponential distribution and a slow tail). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * The port on 127.0.0.1; 0 (the default) picks a free one.
     *
     * @throws IllegalArgumentException if outside 0..65535
     */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in 0..65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** The latency model (default {@link KneeLatency#stormExperiment()}). */
    public Builder latency(KneeLatency latency) {
      if (latency == null) {
        throw new NullPointerException("latency must not be null");
      }
      this.latency = latency;
      return this;
    }

    /**
     * The accept backlog: the listen socket's (the kernel may lower it to {@code net.core.somaxconn}) and the
     * number of requests that start at once on resume. Default 512, as in the simulator.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder backlog(int backlog) {
      if (backlog < 1) {
        throw new IllegalArgumentException("backlog must be at least 1, was " + backlog);
      }
      this.backlog = backlog;
      return this;
    }

    /**
     * The most requests held at once; more are refused (503, or closed while paused). Default: 10,000, or
     * what {@code ulimit -n} allows if lower.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxConnections(int maxConnections) {
      if (maxConnections < 1) {
        throw new IllegalArgumentException("maxConnections must be at least 1, was " + maxConnections);
      }
      this.maxConnections = maxConnections;
      return this;
    }

    /**
     * How often each request re-checks its latency (as in the retry-storm experiment: 50 ms).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder checkInterval(Duration checkInterval) {
      if (checkInterval == null || checkInterval.isZero() || checkInterval.isNegative()) {
        throw new IllegalArgumentException("checkInterval must be positive, was " + checkInterval);
      }
      this.checkInterval = checkInterval;
      return this;
    }

    /** Receives the status line once a second (null: no report). */
    public Builder report(Consumer<String> report) {
      this.report = report;
      return this;
    }

    /** The clock (default the system's monotonic clock). */
    public Builder clock(NanoClock clock) {
      if (clock == null) {
        throw new NullPointerException("clock must not be null");
      }
      this.clock = clock;
      return this;
    }

    /**
     * How long a connection may take to send a request's line and headers once it has started (default
     * 10 s); then it is answered 408 and closed. Real time, whatever the {@link #clock}: it guards
     * descriptors, not the model.
     *
     * @throws IllegalArgumentException if not positive
     */
    Builder headerTimeout(Duration headerTimeout) {
      if (headerTimeout == null || headerTimeout.isZero() || headerTimeout.isNegative()) {
        throw new IllegalArgumentException("headerTimeout must be positive, was " + headerTimeout);
      }
      this.headerTimeout = headerTimeout;
      return this;
    }

    /**
     * How long a keep-alive connection may stay idle between requests, or take to read its answer (default
     * 30 s); then it is closed. A held request's connection is never idle: the model decides when it is
     * answered. Real time, whatever the {@link #clock}.
     *
     * @throws IllegalArgumentException if not positive
     */
    Builder idleTimeout(Duration idleTimeout) {
      if (idleTimeout == null || idleTimeout.isZero() || idleTimeout.isNegative()) {
        throw new IllegalArgumentException("idleTimeout must be positive, was " + idleTimeout);
      }
      this.idleTimeout = idleTimeout;
      return this;
    }

    /** The connection limit this builder would use: the explicit one, or the default under {@code ulimit -n}. */
    public int effectiveMaxConnections() {
      if (maxConnections > 0) {
        return maxConnections;
      }
      long limit = FileDescriptors.limit().orElse(Long.MAX_VALUE);
      return (int) Math.max(1, Math.min(10_000, limit - FileDescriptors.RESERVED * 2L));
    }

    /**
     * Starts the server.
     *
     * @throws IOException if the port cannot be bound
     * @throws IllegalStateException if {@code ulimit -n} is too low for {@code maxConnections}
     * @throws IllegalArgumentException if a slow tail's latency is not above the base latency
     */
    public LabServer start() throws IOException {
      if (slowFraction > 0 && slowLatency.compareTo(latency.base()) <= 0) {
        throw new IllegalArgumentException("slowLatency must be above the base latency "
            + dev.backoff.spec.Durations.format(latency.base()) + ", was " + dev.backoff.spec.Durations.format(slowLatency));
      }
      if (maxConnections > 0) {
        FileDescriptors.require(maxConnections, "a server holding --max-connections " + maxConnections);
      }
      Builder copy = new Builder();
      copy.port = port;
      copy.latency = latency;
      copy.backlog = backlog;
      copy.maxConnections = effectiveMaxConnections();
      copy.checkInterval = checkInterval;
      copy.report = report;
      copy.clock = clock;
      copy.headerTimeout = headerTimeout;
      copy.idleTimeout = idleTimeout;
      copy.exponentialService = exponentialService;
      copy.slowFraction = slowFraction;
      copy.slowLatency = slowLatency;
      copy.seed = seed;
      copy.rejectStatus = rejectStatus;
      return new LabServer(copy);
    }
  }
}
