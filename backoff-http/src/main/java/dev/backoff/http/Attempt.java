package dev.backoff.http;

import dev.backoff.RetryPolicy;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.Verdict;
import dev.backoff.http.rules.driver.HttpVerdicts;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.net.http.HttpTimeoutException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;

/**
 * One attempt of a call: the body handler the client gets, and the timer that bounds the whole exchange.
 *
 * <p>The handler decides on the status and headers, before any byte of the body: when a retry is possible
 * (a retryable status to a repeatable request, attempts left, a {@code Retry-After} within the maximum and
 * the deadline) the body is read ahead to a bounded prefix ({@link AttemptBody#readAhead}); otherwise it
 * goes straight to the caller's handler. The decision engine may still stop where a retry looked possible
 * (a budget refusal); the body read ahead is then handed to the caller's handler followed by the rest.
 *
 * <p>The timer starts with the attempt and ends it with an {@link HttpTimeoutException} when its time is
 * up, whether the client is still waiting for headers (the request's own timeout covers that too) or
 * reading the body: {@code HttpRequest.timeout} alone stops at the headers. It runs until the response is
 * handed over: for a handler that reads the whole body (ofString, ofByteArray, ofFile...) that is the
 * whole exchange; a streaming body (ofInputStream, ofLines) is the caller's to read after that.
 *
 * <p>Thread-safe: the client applies the handler on its own threads while the caller's thread or the
 * scheduler finishes, discards or times out the attempt.
 */
final class Attempt<T> implements BodyHandler<Object> {
  private final RetryingHttpClient owner;
  private final RetryPolicy<HttpResponse<?>> policy;
  private final boolean repeatable;
  private final int number;
  private final AttemptContext context;
  private final BodyHandler<T> handler;
  private final long timeoutNanos;
  private volatile AttemptBody body;
  private volatile HttpTimeoutException expired;
  private volatile Verdict verdict; // the response's, judged once as its head arrived
  private volatile Future<?> timer;

  Attempt(RetryingHttpClient owner, RetryPolicy<HttpResponse<?>> policy, HttpRequest request, boolean repeatable,
      AttemptContext context, BodyHandler<T> handler) {
    this.owner = owner;
    this.policy = policy;
    this.repeatable = repeatable;
    this.number = context.attempt();
    this.context = context; // its time left stays readable while this attempt is in flight
    this.handler = handler;
    this.timeoutNanos = owner.attemptTimeoutNanos(request, context.nanosLeft());
  }

  /** The attempt's request: the caller's, its timeout shortened to this attempt's. */
  HttpRequest request(HttpRequest request) {
    return owner.attemptRequest(request, timeoutNanos);
  }

  /** Starts the timer, if the attempt has a timeout. */
  void startTimer() {
    if (timeoutNanos < 0) {
      return;
    }
    try {
      timer = owner.timeoutScheduler().schedule(this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // A scheduler that was shut down cannot time the body: the request's own timeout still bounds the
      // wait for headers.
    }
  }

  private void expire() {
    HttpTimeoutException timeout = new HttpTimeoutException(
        "no complete response within " + dev.backoff.spec.Durations.formatTruncated(timeoutNanos)
            + " (the attempt's timeout)");
    expired = timeout;
    AttemptBody current = body;
    if (current != null) {
      current.fail(timeout);
    }
  }

  /**
   * The failure to report for this attempt: the timeout if the timer fired, whatever the client threw.
   * Cancelling the body can make the client fail the exchange with its own "bytes received" IOException
   * (JDK 25) before it sees ours; the attempt still failed because its time was up.
   */
  Throwable failure(Throwable thrown) {
    HttpTimeoutException timeout = expired;
    if (timeout == null || thrown instanceof HttpTimeoutException) {
      return thrown;
    }
    if (thrown != null) {
      timeout.addSuppressed(thrown);
    }
    return timeout;
  }

  /** Stops the timer: the attempt's outcome is known and handed over. */
  void close() {
    Future<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
    body = null; // handed over or released: not ours to hold (a handler's body can be large)
  }

  /**
   * The verdict on this attempt's response, judged once as its head arrived (its {@code Retry-After} read
   * then), for the loop's judge to hand on; null before a response.
   */
  Verdict verdict() {
    return verdict;
  }

  @Override
  public BodySubscriber<Object> apply(ResponseInfo info) {
    // A hedged call's attempts overlap: only the winner's body may reach the caller's handler (a handler may
    // have side effects, such as printing), so every body is read ahead until the call has its winner.
    boolean readAhead = retryPossible(info) || policy.hedging() != null;
    AttemptBody created = readAhead
        ? AttemptBody.readAhead(owner.readAheadLimit())
        : AttemptBody.direct(handler.apply(info));
    body = created;
    HttpTimeoutException timeout = expired;
    if (timeout != null) {
      created.fail(timeout); // the timer fired while the headers were arriving
    }
    return created;
  }

  /**
   * Judges the response once, from its status and headers, and asks the engine's side-effect-free preview
   * whether a retry may follow it. Where the preview says no, the engine says no too: the loop's judge
   * hands it the same verdict ({@link #verdict}).
   */
  private boolean retryPossible(ResponseInfo info) {
    if (!owner.isRetryStatus(info.statusCode())) {
      verdict = Verdict.ACCEPT; // the success path: no view, no clock
      return false;
    }
    Verdict judged = HttpVerdicts.response(owner.rules(), policy, repeatable,
        JdkViews.response(info.statusCode(), info.headers()));
    verdict = judged;
    return HttpVerdicts.mayRetry(policy, judged, number, context);
  }

  /**
   * The response as the caller's handler produces it: unchanged if its body went straight to that handler,
   * else the body read ahead followed by the rest, through {@code handler}. Stops the timer when done.
   */
  @SuppressWarnings("unchecked")
  CompletableFuture<HttpResponse<T>> finish(HttpResponse<Object> response) {
    Object read = response.body();
    if (!(read instanceof AttemptBody)) {
      close();
      return CompletableFuture.completedFuture((HttpResponse<T>) (HttpResponse<?>) response);
    }
    AttemptBody readAhead = (AttemptBody) read;
    BodySubscriber<T> subscriber;
    try {
      subscriber = handler.apply(new Info(response));
    } catch (RuntimeException e) {
      readAhead.discard();
      close();
      return CompletableFuture.failedFuture(e);
    }
    readAhead.bridge(subscriber);
    return subscriber.getBody().toCompletableFuture()
        .<HttpResponse<T>>thenApply(converted -> new HandedOverResponse<>(response, converted))
        .whenComplete((converted, failure) -> close());
  }

  /** Releases a response that is retried or that nobody will read, and stops the timer. */
  void discard(HttpResponse<?> response) {
    close();
    release(response);
  }

  /** Ends the attempt's body (a cancelled call): the connection is closed unless the body already ended. */
  void cancel() {
    AttemptBody current = body;
    close();
    if (current != null) {
      current.fail(new java.util.concurrent.CancellationException("the call was cancelled"));
    }
  }

  /**
   * Releases a response nobody will read: a body read ahead is discarded (its connection closed unless it
   * ended within the limit); a body the caller's handler made closeable (an input stream, a stream of
   * lines) is closed, which frees its connection.
   */
  static void release(HttpResponse<?> response) {
    if (response == null) {
      return;
    }
    Object read = response.body();
    if (read instanceof AttemptBody) {
      ((AttemptBody) read).discard();
      return;
    }
    if (!(read instanceof AutoCloseable)) {
      return;
    }
    try {
      ((AutoCloseable) read).close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // not ours to swallow
    } catch (Exception e) {
      // Closing an unwanted body is best effort: the caller has its outcome already.
    }
  }

  /** Joins {@link #finish}, rethrowing its failure as an {@link IOException}. */
  static <T> HttpResponse<T> join(CompletableFuture<HttpResponse<T>> finished) throws IOException {
    try {
      return finished.join();
    } catch (java.util.concurrent.CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IOException("the body handler failed on the last response's body", cause);
    }
  }

  private static final class Info implements HttpResponse.ResponseInfo {
    private final HttpResponse<?> response;

    Info(HttpResponse<?> response) {
      this.response = response;
    }

    @Override
    public int statusCode() {
      return response.statusCode();
    }

    @Override
    public HttpHeaders headers() {
      return response.headers();
    }

    @Override
    public HttpClient.Version version() {
      return response.version();
    }
  }

  /** The last response with its body converted by the caller's handler; everything else delegated. */
  private static final class HandedOverResponse<T> implements HttpResponse<T> {
    private final HttpResponse<Object> response;
    private final T body;

    HandedOverResponse(HttpResponse<Object> response, T body) {
      this.response = response;
      this.body = body;
    }

    @Override
    public int statusCode() {
      return response.statusCode();
    }

    @Override
    public HttpRequest request() {
      return response.request();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Optional<HttpResponse<T>> previousResponse() {
      // Earlier responses of a redirect chain carry no body, so the cast is only nominal.
      return response.previousResponse().map(previous -> (HttpResponse<T>) previous);
    }

    @Override
    public HttpHeaders headers() {
      return response.headers();
    }

    @Override
    public T body() {
      return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return response.sslSession();
    }

    @Override
    public java.net.URI uri() {
      return response.uri();
    }

    @Override
    public HttpClient.Version version() {
      return response.version();
    }

    @Override
    public String toString() {
      return response.toString();
    }
  }

}
