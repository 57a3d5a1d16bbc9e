package dev.backoff.httpclient5;

import dev.backoff.driver.AttemptContext;
import java.io.IOException;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.apache.hc.core5.concurrent.ComplexCancellable;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;

/**
 * One attempt of an async request: the callback the rest of the chain reports to, and the stage the loop
 * waits on.
 *
 * <p>On the response head it decides, by the rules alone ({@link AsyncExchange#mayRetry}), whether a retry
 * is possible. If not, the response goes straight to the caller's callback ({@linkplain #forwarded()
 * forwarded}) and the stage completes when the exchange does. If so, the body is read ahead
 * ({@link ReadAhead}) up to the read-ahead limit; the stage completes when the body ended within it (and the
 * exchange completed), or as soon as the limit is reached (the body then waits, flow-controlled, for the
 * decision). Then either {@link #discard} (a retry: the connection kept if the body ended, else closed) or
 * {@link #handOver} (the call's outcome: the caller's consumer gets what was read ahead and the rest).
 *
 * <p>Thread-safe: the I/O thread reports to it while the loop decides on another thread.
 */
final class AsyncAttemptState implements org.apache.hc.client5.http.async.AsyncExecCallback {
  private final AsyncExchange exchange;
  private final int number;
  private final AttemptContext context;
  private final ComplexCancellable dependency = new ComplexCancellable();
  private final Stage stage = new Stage();
  private volatile HttpResponse response;
  private volatile EntityDetails details;
  private volatile Instant wallNow;
  private volatile boolean forwarded;
  private volatile ReadAhead readAhead;

  AsyncAttemptState(AsyncExchange exchange, int number, AttemptContext context) {
    this.exchange = exchange;
    this.number = number;
    this.context = context;
  }

  ComplexCancellable dependency() {
    return dependency;
  }

  CompletableFuture<HttpResponse> stage() {
    return stage;
  }

  /** Whether the response went straight to the caller's callback. */
  boolean forwarded() {
    return forwarded;
  }

  /** The wall-clock instant the read-ahead decision read {@code Retry-After} at; null before a response. */
  Instant wallNow() {
    return wallNow;
  }

  @Override
  public AsyncDataConsumer handleResponse(HttpResponse head, EntityDetails entityDetails)
      throws HttpException, IOException {
    response = head;
    details = entityDetails;
    Instant now = exchange.rules().wallNow();
    wallNow = now;
    if (!exchange.mayRetry(head, number, context, now)) {
      forwarded = true;
      return exchange.callback().handleResponse(head, entityDetails);
    }
    if (entityDetails == null) {
      return null; // no body: completed() follows
    }
    ReadAhead body = new ReadAhead(this, exchange.rules().readAheadLimit());
    readAhead = body;
    body.startReading();
    return body;
  }

  @Override
  public void handleInformationResponse(HttpResponse informational) throws HttpException, IOException {
    exchange.callback().handleInformationResponse(informational);
  }

  /** The read-ahead limit was reached before the body ended: the loop decides now. */
  void limitReached() {
    stage.complete(response);
  }

  @Override
  public void completed() {
    HttpResponse head = response;
    if (head == null) {
      failed(new IOException("the exchange completed without a response"));
      return;
    }
    if (stage.complete(head)) {
      return;
    }
    ReadAhead body = readAhead;
    if (body != null) {
      body.exchangeCompleted(); // the rest of a body handed over (or discarded) has arrived
    }
  }

  @Override
  public void failed(Exception cause) {
    if (!stage.isDone()) {
      // As HttpClient's own retry: the connection of a failed exchange is not used again.
      exchange.scope().execRuntime.discardEndpoint();
      stage.completeExceptionally(cause);
      return;
    }
    ReadAhead body = readAhead;
    if (body != null) {
      body.exchangeFailed(cause);
    }
  }

  /** A retry follows (or nobody will read the response): the body read ahead is dropped. */
  void discard() {
    ReadAhead body = readAhead;
    if (body != null && body.discard() && !stage.isCompletedExceptionally()) {
      exchange.scope().execRuntime.discardEndpoint(); // the body did not end: close, do not read on
    }
  }

  /** The call failed or was cancelled with this attempt last: nothing more goes to the caller from it. */
  void abandon() {
    ReadAhead body = readAhead;
    if (body != null && body.discard()) {
      dependency.cancel();
    }
  }

  /** The call ends with this attempt's response: the caller's callback gets it. */
  void handOver() {
    var callback = exchange.callback();
    if (forwarded) {
      callback.completed(); // its consumer has had the body already
      return;
    }
    ReadAhead body = readAhead;
    try {
      AsyncDataConsumer consumer = callback.handleResponse(response, details);
      if (body == null) {
        callback.completed(); // no body
        return;
      }
      body.handOver(consumer, callback);
    } catch (HttpException | IOException | RuntimeException e) {
      if (body != null && body.discard()) {
        exchange.scope().execRuntime.discardEndpoint();
      }
      callback.failed(e);
    }
  }

  /**
   * The attempt's stage as the loop sees it. Cancelling it (the loop does when the caller cancels) cancels
   * the exchange in flight.
   */
  private final class Stage extends CompletableFuture<HttpResponse> {
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      dependency.cancel();
      return cancelled;
    }
  }
}
