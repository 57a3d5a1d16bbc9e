package dev.backoff.conformance;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.backoff.NanoClock;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.http.rules.WaitHeader;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * An HTTP adapter as a driver: a JDK {@code HttpServer} on loopback answers each request from the trial's script,
 * as HTTP: a result is {@code 200} with that body ({@code "busy"}, the result the policy retries, is {@code 429}),
 * a retryable failure {@code 503} with the failure's message as its body (a pushback adds
 * {@code retry-after-ms}, which the adapter's rules read), an abort {@code 400} (a status the rules never
 * retry), an attempt that never completes a request the server answers only after the call has ended. The
 * caller's reply maps back: {@code 200} and {@code 429} are the body as a result, any other status a failure
 * with the body as its message.
 *
 * <p>The adapters' clients run on real sockets and real timers, so the policy's clock is the system's: the
 * matrix asserts the same attempts, scheduled delays, stop reason and delivered result as every other driver,
 * and each wait between two requests' arrivals at least the expected one ({@link #virtualTime()} false), never
 * an upper bound. A server cannot see reliably that a client gave up a request, so the attempts the driver
 * cancelled are not counted ({@link #seesCancelledAttempts()} false). A blocking adapter's call runs on a
 * thread of its own, which the caller interrupts to stop it; an asynchronous one's future is cancelled.
 */
record HttpRunner(HttpRunner.Adapter adapter, HttpRunner.Opener opener) implements DriverRunner {
  /** The rules every adapter is given: the defaults, reading {@code retry-after-ms} besides {@code Retry-After}. */
  static final HttpRules RULES = HttpRules.builder().waitHeaders(WaitHeader.RETRY_AFTER, WaitHeader.RETRY_AFTER_MS)
      .build();
  /** How long a call may take before the row fails: far above every row's waits. */
  private static final Duration BOUND = Duration.ofSeconds(20);
  /** How long a stopped call is watched for a request it should not send. */
  private static final Duration SETTLE = Duration.ofMillis(300);

  /** What the caller got: a status and the body it read. */
  record Reply(int status, String body) {}

  /** A failure the caller saw as a response: the status, and the body as its message. */
  static final class StatusFailure extends Exception {
    private static final long serialVersionUID = 1L;

    StatusFailure(Reply reply) {
      super(reply.body(), null, false, false);
    }
  }

  /** A client of the adapter, under one policy. */
  interface Client extends AutoCloseable {
    /** Sends one GET to {@code uri}: the caller's reply, or its failure. */
    CompletableFuture<Reply> send(URI uri);

    /** Closes the client (nothing by default: the JDK's clients close their connections with the JVM). */
    @Override
    default void close() {}
  }

  /**
   * What the matrix knows of an adapter.
   *
   * @param name its name in the matrix
   * @param blocking whether a call blocks its caller's thread (a caller stops it by interrupting that thread)
   * @param hedgingRefusal a part of the message with which it refuses a hedging policy, or null if it hedges
   * @param attemptTimeoutRefusal a part of the message with which it refuses a policy with an attempt timeout,
   *     or null if it applies one
   */
  record Adapter(String name, boolean blocking, String hedgingRefusal, String attemptTimeoutRefusal) {}

  /** Makes a client of an adapter under a policy, reading its waits with {@link #RULES}. */
  @FunctionalInterface
  interface Opener {
    Client open(RetryPolicy<Object> policy) throws Exception;
  }

  @Override
  public String name() {
    return adapter.name();
  }

  @Override
  public Map<Mechanism, String> refusals() {
    Map<Mechanism, String> refusals = new EnumMap<>(Mechanism.class);
    if (adapter.hedgingRefusal() != null) {
      refusals.put(Mechanism.HEDGING, adapter.hedgingRefusal());
    }
    if (adapter.attemptTimeoutRefusal() != null) {
      refusals.put(Mechanism.ATTEMPT_TIMEOUT, adapter.attemptTimeoutRefusal());
    }
    return refusals;
  }

  @Override
  public StopReason callerStop() {
    return adapter.blocking() ? StopReason.INTERRUPTED : StopReason.CANCELLED;
  }

  /** A 400 is a final response the rules accept (not retried, delivered): listeners hear a success. */
  @Override
  public StopReason abortStop() {
    return null;
  }

  @Override
  public boolean virtualTime() {
    return false;
  }

  @Override
  public boolean seesCancelledAttempts() {
    return false;
  }

  @Override
  public boolean failsWithHistory() {
    return false;
  }

  @Override
  public Map<Mechanism, String> notOffered() {
    return Map.of(Mechanism.RECOVERY, "no recovery parameter: the caller gets the last response or the client's error");
  }

  /** A failure's message: the body of a failed reply, else the first of Backoff's own exceptions in the chain. */
  @Override
  public String failureMessage(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof StatusFailure || t.getClass().getPackageName().equals("dev.backoff")) {
        return t.getMessage();
      }
    }
    return failure.getMessage();
  }

  @Override
  public Outcome run(Trial trial) throws Exception {
    @SuppressWarnings("unchecked") // the row's rules and listener read no response (its result rule: "busy"::equals)
    RetryPolicy<Object> policy = (RetryPolicy<Object>) (RetryPolicy<?>) trial.policy(NanoClock.system());
    CountDownLatch ended = new CountDownLatch(1);
    ExecutorService handlers = Executors.newCachedThreadPool();
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(handlers);
    server.createContext("/", exchange -> answer(trial, exchange, ended));
    server.start();
    try (Client client = opener.open(policy)) {
      long start = System.nanoTime();
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
      CompletableFuture<Reply> call = client.send(uri);
      if (trial.cancelAfter() != null) {
        // In its last backoff: after the delays the row expects were scheduled (not at a fixed time, which a
        // busy machine can reach before the last attempt), and no sooner than the row says.
        trial.awaitScheduled(BOUND);
        TimeUnit.NANOSECONDS.sleep(start + trial.cancelAfter().toNanos() - System.nanoTime());
        call.cancel(true);
      }
      try {
        Reply reply = call.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
        trial.awaitEnd(SETTLE);
        return reply.status() == 200 || reply.status() == 429 ? Outcome.of(reply.body())
            : Outcome.failed(new StatusFailure(reply));
      } catch (CancellationException stopped) {
        if (call instanceof CallerThread thread) {
          thread.join(BOUND);
        }
        Thread.sleep(SETTLE.toMillis()); // a request sent after the stop would be counted
        return new Outcome(null, null);
      } catch (ExecutionException e) {
        trial.awaitEnd(SETTLE);
        return Outcome.failed(e.getCause());
      } catch (TimeoutException e) {
        throw new AssertionError("the call had not ended within " + BOUND);
      }
    } finally {
      ended.countDown();
      server.stop(0);
      handlers.shutdownNow();
    }
  }

  /** Answers one request from the script. */
  private static void answer(Trial trial, HttpExchange exchange, CountDownLatch ended) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      int status;
      String body;
      try {
        body = trial.attempt();
        status = "busy".equals(body) ? 429 : 200;
      } catch (Trial.Hang hang) {
        try {
          ended.await(BOUND.toMillis(), TimeUnit.MILLISECONDS); // answers only once the call has ended
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        status = 200;
        body = "too late";
      } catch (ConformanceTable.RetryAfterException pushback) {
        exchange.getResponseHeaders().add("retry-after-ms", Long.toString(pushback.after.toMillis()));
        status = 503;
        body = pushback.getMessage();
      } catch (IllegalArgumentException abort) {
        status = 400;
        body = abort.getMessage();
      } catch (Exception failure) {
        status = 503;
        body = failure.getMessage();
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    } catch (IOException gone) {
      // the client gave the request up (a hedge lost, an attempt timed out): nobody reads this answer
    }
  }

  /** {@code source} mapped to a reply; cancelling the reply cancels {@code source}, as the caller's cancel would. */
  static <T> CompletableFuture<Reply> replyOf(CompletableFuture<T> source, Function<T, Reply> reply) {
    CompletableFuture<Reply> mapped = source.thenApply(reply);
    mapped.whenComplete((done, failure) -> {
      if (mapped.isCancelled()) {
        source.cancel(true);
      }
    });
    return mapped;
  }

  /** A blocking adapter's call on a thread of its own: cancelling it interrupts that thread, as its caller would. */
  static CompletableFuture<Reply> onCallerThread(Callable<Reply> call) {
    CallerThread future = new CallerThread();
    future.thread = new Thread(() -> {
      try {
        future.complete(call.call());
      } catch (Throwable failure) {
        future.completeExceptionally(failure);
      }
    }, "conformance-caller");
    future.thread.start();
    return future;
  }

  private static final class CallerThread extends CompletableFuture<Reply> {
    private Thread thread;

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      thread.interrupt();
      return cancelled;
    }

    void join(Duration bound) throws InterruptedException {
      thread.join(bound.toMillis());
    }
  }
}
