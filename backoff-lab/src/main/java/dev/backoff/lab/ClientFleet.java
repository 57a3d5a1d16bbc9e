package dev.backoff.lab;

import dev.backoff.RetryPolicy;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The retry-storm experiment's client fleet: N independent clients in a closed loop, each waiting an exponentially
 * distributed think time, sending one request, waiting for the answer or the timeout, and retrying it
 * under the policy until it succeeds (or the policy stops); a client never has two requests in flight.
 *
 * <p>Requests go through backoff-http's retrying client; with a hedging policy ({@code +hedge}) that client
 * sends the hedges and cancels the losers, and the fleet counts both (see {@link FleetTotals}). No thread per client: requests are asynchronous
 * {@code java.net.http} calls, think times and retry delays are tasks on one scheduler thread, and the HTTP
 * client runs on two worker threads, so a fleet of thousands costs about five threads. For safety it only sends to loopback addresses.
 *
 * <p>Thread-safe. Close it to stop every client.
 */
public final class ClientFleet implements AutoCloseable {
  private final int clients;
  private final long thinkMeanNanos;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ExecutorService httpExecutor;
  private final HttpClient http;
  private final LogicalRequestSender sender;
  private final Counters counters = new Counters();
  private final LatencyHistogram latencies = new LatencyHistogram();
  private final boolean hedging;
  private final dev.backoff.AdaptiveHedgeDelay hedgeDelay;
  private volatile boolean closed;

  private ClientFleet(Builder builder) {
    this.clients = builder.clients;
    this.thinkMeanNanos = builder.think.toNanos();
    AtomicInteger threadNumber = new AtomicInteger();
    this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> daemon(runnable, "backoff-lab-fleet-timer"));
    scheduler.setRemoveOnCancelPolicy(true);
    this.httpExecutor = Executors.newFixedThreadPool(2,
        runnable -> daemon(runnable, "backoff-lab-fleet-http-" + threadNumber.incrementAndGet()));
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(builder.timeout)
        .executor(httpExecutor)
        .build();
    HttpRequest request = HttpRequest.newBuilder(builder.uri).timeout(builder.timeout).GET().build();
    dev.backoff.Hedging hedges = builder.policy.build().hedging();
    this.hedging = hedges != null;
    // The builder holds one Hedging, so the sender's policy shares this adaptive delay (its live state).
    this.hedgeDelay = hedges == null ? null : hedges.adaptiveDelay();
    this.sender = new HttpSender(http, request, builder.policy, builder.timeout, scheduler, counters);
  }

  private static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }

  /** A builder with the retry-storm experiment's defaults (1000 clients, think 10 s, timeout 2 s, policy "storm-exponential"). */
  public static Builder builder() {
    return new Builder();
  }

  private void start() {
    for (int i = 0; i < clients; i++) {
      thinkThenRequest();
    }
  }

  private void thinkThenRequest() {
    if (closed) {
      return;
    }
    // Exponential think time with the given mean; 1 - u avoids log(0).
    double u = ThreadLocalRandom.current().nextDouble();
    long think = (long) (-Math.log(1 - u) * thinkMeanNanos);
    try {
      scheduler.schedule(this::request, think, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException shutDown) {
      // closed meanwhile
    }
  }

  private void request() {
    if (closed) {
      return;
    }
    counters.requests.increment();
    long start = System.nanoTime();
    sender.send().whenComplete((succeeded, ignored) -> {
      if (Boolean.TRUE.equals(succeeded)) {
        latencies.record(System.nanoTime() - start);
        counters.succeeded.increment();
      } else {
        counters.failed.increment();
      }
      thinkThenRequest();
    });
  }

  /** The totals since the start. */
  FleetTotals totals() {
    return counters.snapshot();
  }

  /** Hedges in flight now: started, and neither answered, failed nor cancelled yet. */
  int hedgesInFlight() {
    long ended = counters.hedgesEnded.sum(); // before the starts: an end follows its start
    return (int) Math.max(0, counters.hedgesStarted.sum() - ended);
  }

  /** Whether the fleet's policy hedges. */
  boolean hedging() {
    return hedging;
  }

  /** The policy's adaptive hedging delay ({@code +hedge:p95}), shared by the fleet's calls; null without one. */
  dev.backoff.AdaptiveHedgeDelay hedgeDelay() {
    return hedgeDelay;
  }

  /** The latencies of the logical requests that succeeded so far, from their start to their success. */
  LatencyHistogram latencies() {
    return latencies;
  }

  /** The number of clients. */
  public int clients() {
    return clients;
  }

  /**
   * Stops every client: no new request, retry or hedge starts once this returns, and every logical request
   * in flight is cancelled (its attempts in flight are cancelled, their connections closed, and it counts
   * as failed). Waits for a retry or hedge that is being started at that moment (a task of the fleet's
   * timer, which takes microseconds), at most 5 s; if interrupted meanwhile, returns at once with the
   * thread's interrupt flag set.
   */
  @Override
  public void close() {
    closed = true;
    sender.close();
    scheduler.shutdownNow();
    try {
      // Retries and hedges start on the timer: once it has terminated, none can.
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    shutdownHttpClient();
    httpExecutor.shutdown();
  }

  /** On JDK 21+ the client can be shut down at once; on 17 it is released when unreachable. */
  private void shutdownHttpClient() {
    try {
      Method shutdownNow = HttpClient.class.getMethod("shutdownNow");
      shutdownNow.invoke(http);
    } catch (ReflectiveOperationException | RuntimeException notAvailable) {
      // JDK 17: nothing to call.
    }
  }

  private static final class Counters implements AttemptObserver {
    final LongAdder attempts = new LongAdder();
    final LongAdder ok = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder requests = new LongAdder();
    final LongAdder succeeded = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder hedgesSent = new LongAdder();
    final LongAdder hedgesStarted = new LongAdder();
    final LongAdder hedgesEnded = new LongAdder();
    final LongAdder hedgesWon = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder sent = new LongAdder();
    final LongAdder answers = new LongAdder();

    @Override
    public void hedgeSent() {
      hedgesSent.increment();
    }

    @Override
    public void hedgeStarted() {
      hedgesStarted.increment();
    }

    @Override
    public void hedgeEnded() {
      hedgesEnded.increment();
    }

    @Override
    public void hedgeWon() {
      hedgesWon.increment();
    }

    @Override
    public void attemptCancelled() {
      cancelled.increment();
    }

    @Override
    public void requestSent() {
      sent.increment();
    }

    @Override
    public void answerReceived() {
      answers.increment();
    }

    @Override
    public void attemptStarted() {
      attempts.increment();
    }

    @Override
    public void attemptEnded(Outcome outcome) {
      switch (outcome) {
        case OK: ok.increment(); break;
        case TIMEOUT: timeouts.increment(); break;
        default: errors.increment(); break;
      }
    }

    @Override
    public void retryScheduled() {
      retries.increment();
    }

    @Override
    public void refused() {
      refused.increment();
    }

    FleetTotals snapshot() {
      // Ends read before starts (an answer follows its send, an outcome its start), so that a snapshot taken
      // while attempts run never shows more attempts ended than started.
      long answered = answers.sum();
      long okCount = ok.sum();
      long errorCount = errors.sum();
      long timeoutCount = timeouts.sum();
      long cancelledCount = cancelled.sum();
      long won = hedgesWon.sum();
      long hedges = hedgesSent.sum();
      long started = attempts.sum();
      return new FleetTotals(started, okCount, errorCount, timeoutCount, retries.sum(), requests.sum(),
          succeeded.sum(), failed.sum(), refused.sum(), hedges, won, cancelledCount, sent.sum(), answered);
    }
  }

  /** Configures a {@link ClientFleet}. Not thread-safe. */
  public static final class Builder {
    private URI uri = URI.create("http://127.0.0.1:8070/api");
    private int clients = 1000;
    private Duration think = Duration.ofSeconds(10);
    private Duration timeout = Duration.ofSeconds(2);
    private RetryPolicy.Builder<HttpResponse<?>> policy = LabPolicies.named("storm-exponential");

    Builder() {}

    /**
     * The address every client requests; its host must be a loopback address.
     *
     * @throws IllegalArgumentException if it is not an absolute http URI on a loopback host
     */
    public Builder uri(URI uri) {
      if (uri == null || !"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
        throw new IllegalArgumentException("url must be an absolute http:// URL, was " + uri);
      }
      try {
        if (!InetAddress.getByName(uri.getHost()).isLoopbackAddress()) {
          throw new IllegalArgumentException("url must be on this machine (a loopback address such as 127.0.0.1): "
              + "the lab generates load, was " + uri);
        }
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("url host is unknown: " + uri);
      }
      this.uri = uri;
      return this;
    }

    /**
     * The number of clients.
     *
     * @throws IllegalArgumentException if not in 1..1,000,000
     */
    public Builder clients(int clients) {
      if (clients < 1 || clients > 1_000_000) {
        throw new IllegalArgumentException("clients must be in 1..1000000, was " + clients);
      }
      this.clients = clients;
      return this;
    }

    /**
     * The mean think time between a client's requests.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder think(Duration think) {
      if (think == null || think.isNegative() || think.isZero()) {
        throw new IllegalArgumentException("think must be positive, was " + show(think));
      }
      this.think = think;
      return this;
    }

    /**
     * The per-attempt timeout.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder timeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, was " + show(timeout));
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * The retry policy by name (see {@link LabPolicies}; default "storm-exponential").
     *
     * @throws IllegalArgumentException if the name is unknown
     */
    public Builder policy(String name) {
      this.policy = LabPolicies.named(name);
      return this;
    }

    /**
     * The retry policy, as a builder (the fleet adds its listener). backoff-http adds its rules of what to
     * retry.
     */
    public Builder policy(RetryPolicy.Builder<HttpResponse<?>> policy) {
      if (policy == null) {
        throw new NullPointerException("policy must not be null");
      }
      this.policy = policy.build().toBuilder();
      return this;
    }

    /** The number of clients set. */
    public int clients() {
      return clients;
    }

    /**
     * Starts the clients; each first thinks, so requests begin spread out.
     *
     * @throws IllegalStateException if {@code ulimit -n} is too low for the fleet
     */
    public ClientFleet start() {
      FileDescriptors.require(clients, "--clients " + clients);
      ClientFleet fleet = new ClientFleet(this);
      fleet.start();
      return fleet;
    }
  }

  /** A duration for a message, as a user writes one ({@code 0s}, not {@code PT0S}). */
  static String show(Duration value) {
    return value == null ? "null" : value.isNegative() ? value.toString() : dev.backoff.spec.Durations.format(value);
  }
}
